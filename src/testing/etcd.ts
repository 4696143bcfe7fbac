/**
 * A throwaway etcd for tests: `await using etcd = await startEtcd()` runs Debian's etcd
 * (`apt-get install -y etcd-server`) on free loopback ports with a temporary data directory,
 * and removes both when disposed. `kill()` and `restart()` inject the fault of losing etcd:
 * it comes back on the same ports with the same data, as after a crash.
 */
import type { ChildProcess } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { checkNumber } from "../core/index.ts";
import {
  freePort,
  isRunning,
  launchProcess,
  removeAtExit,
  stopProcess,
  unrefProcess,
} from "./process.ts";

/** Options of {@link startEtcd}. */
export interface StartEtcdOptions {
  /** The etcd executable. @default `$KONTROLLER_ETCD_BINARY`, else "etcd" on the PATH */
  binary?: string;
  /** How long etcd may take to be ready. @default 30000 */
  startTimeoutMs?: number;
  /** Aborts the start (the process is stopped and its directory removed). */
  signal?: AbortSignal;
}

/** A running etcd from {@link startEtcd}. */
export interface EtcdProcess extends AsyncDisposable {
  /** Its client URL, `http://127.0.0.1:PORT`. */
  readonly endpoint: string;
  /** Its data directory (kept across `kill`/`restart`, removed by `close`). */
  readonly dataDir: string;
  /** True while the process runs. */
  readonly running: boolean;
  /** Kills etcd at once (SIGKILL), as a crash does; the data stays. Resolves once it exited. */
  kill(): Promise<void>;
  /**
   * Freezes etcd (SIGSTOP): its connections stay open and nothing answers, as when it hangs.
   * `resume()` thaws it.
   */
  pause(): void;
  resume(): void;
  /** Starts etcd again on the same ports with the same data; resolves once it serves. */
  restart(options?: { signal?: AbortSignal }): Promise<void>;
  /**
   * Lets the test process exit while etcd runs (as `ChildProcess.unref()`); etcd is killed and
   * its data removed when the process exits. Holds across `restart()`.
   */
  unref(): void;
  /** Stops etcd and removes its data directory. Idempotent. */
  close(): Promise<void>;
}

/** etcd is not installed where {@link startEtcd} looked. */
export class EtcdNotFoundError extends Error {
  constructor(binary: string) {
    super(
      `etcd not found (tried "${binary}"): install it with "apt-get install -y etcd-server" or set KONTROLLER_ETCD_BINARY`,
    );
    this.name = "EtcdNotFoundError";
  }
}

/** What etcd 3.4 logs once it serves clients (zap logger; capnslog's wording). */
const READY = /"msg":"serving client traffic|ready to serve client requests/;

/** Starts a throwaway single-member etcd; see {@link EtcdProcess}. */
export async function startEtcd(options: StartEtcdOptions = {}): Promise<EtcdProcess> {
  const binary = options.binary ?? process.env.KONTROLLER_ETCD_BINARY ?? "etcd";
  const timeoutMs = checkNumber("startEtcd", "startTimeoutMs", options.startTimeoutMs ?? 30_000, {
    above: 0,
  });
  const dataDir = await mkdtemp(join(tmpdir(), "kontroller-etcd-"));
  const forgetDir = removeAtExit(dataDir);
  let ports: { client: number; peer: number } | undefined;
  let child: ChildProcess | undefined;
  for (let attempt = 1; child === undefined; attempt++) {
    ports = { client: await freePort(), peer: await freePort() };
    try {
      child = await launch(binary, dataDir, ports, timeoutMs, options.signal);
    } catch (err) {
      const busy = err instanceof Error && /address already in use/.test(err.message);
      if (!busy || attempt >= 5) {
        await rm(dataDir, { recursive: true, force: true });
        forgetDir();
        throw err;
      }
      await rm(join(dataDir, "member"), { recursive: true, force: true });
    }
  }
  const endpoint = `http://127.0.0.1:${ports!.client}`;
  let closing: Promise<void> | undefined;
  let unrefd = false;
  const close = () => {
    closing ??= (async () => {
      child?.kill("SIGCONT"); // a stopped etcd would not act on SIGTERM
      if (child !== undefined) await stopProcess(child, "SIGTERM");
      await rm(dataDir, { recursive: true, force: true });
      forgetDir();
    })();
    return closing;
  };
  return {
    endpoint,
    dataDir,
    get running() {
      return child !== undefined && isRunning(child);
    },
    async kill() {
      if (child !== undefined) await stopProcess(child, "SIGKILL");
    },
    pause() {
      child?.kill("SIGSTOP");
    },
    resume() {
      child?.kill("SIGCONT");
    },
    async restart(restartOptions = {}) {
      if (closing !== undefined) throw new Error(`etcd at ${endpoint} is closed`);
      if (child !== undefined) await stopProcess(child, "SIGKILL");
      child = await launch(binary, dataDir, ports!, timeoutMs, restartOptions.signal);
      if (unrefd) unrefProcess(child);
    },
    unref() {
      unrefd = true;
      if (child !== undefined) unrefProcess(child);
    },
    close,
    [Symbol.asyncDispose]: close,
  };
}

/** Spawns etcd and resolves once it serves clients; rejects (and reaps it) otherwise. */
async function launch(
  binary: string,
  dataDir: string,
  ports: { client: number; peer: number },
  timeoutMs: number,
  signal: AbortSignal | undefined,
): Promise<ChildProcess> {
  const client = `http://127.0.0.1:${ports.client}`;
  const peer = `http://127.0.0.1:${ports.peer}`;
  const { child } = await launchProcess({
    name: `etcd (${binary}) on ${client}`,
    binary,
    args: [
      ...["--name", "default", "--data-dir", dataDir],
      ...["--listen-client-urls", client, "--advertise-client-urls", client],
      ...["--listen-peer-urls", peer, "--initial-advertise-peer-urls", peer],
      ...["--initial-cluster", `default=${peer}`],
      // One member elects itself: short timeouts make it ready in ~0.1 s instead of ~1 s.
      ...["--heartbeat-interval", "10", "--election-timeout", "100"],
      ...["--logger", "zap", "--log-outputs", "stderr"],
    ],
    ready: (line) => READY.test(line),
    timeoutMs,
    signal,
    notFound: (missing) => new EtcdNotFoundError(missing),
  });
  return child;
}
