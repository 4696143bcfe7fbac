/**
 * A throwaway etcd for tests: `await using etcd = await startEtcd()` runs Debian's etcd
 * (`apt-get install -y etcd-server`) on free loopback ports with a temporary data directory,
 * and removes both when disposed. `kill()` and `restart()` inject the fault of losing etcd:
 * it comes back on the same ports with the same data, as after a crash.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { mkdtemp, rm } from "node:fs/promises";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { checkNumber } from "../core/index.ts";

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
const live = new Set<ChildProcess>();
let exitHook = false;

/** Starts a throwaway single-member etcd; see {@link EtcdProcess}. */
export async function startEtcd(options: StartEtcdOptions = {}): Promise<EtcdProcess> {
  const binary = options.binary ?? process.env.KONTROLLER_ETCD_BINARY ?? "etcd";
  const timeoutMs = checkNumber("startEtcd", "startTimeoutMs", options.startTimeoutMs ?? 30_000, {
    above: 0,
  });
  const dataDir = await mkdtemp(join(tmpdir(), "kontroller-etcd-"));
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
        throw err;
      }
      await rm(join(dataDir, "member"), { recursive: true, force: true });
    }
  }
  const endpoint = `http://127.0.0.1:${ports!.client}`;
  let closing: Promise<void> | undefined;
  const close = () => {
    closing ??= (async () => {
      child?.kill("SIGCONT"); // a stopped etcd would not act on SIGTERM
      if (child !== undefined) await stop(child, "SIGTERM");
      await rm(dataDir, { recursive: true, force: true });
    })();
    return closing;
  };
  return {
    endpoint,
    dataDir,
    get running() {
      return child !== undefined && child.exitCode === null && child.signalCode === null;
    },
    async kill() {
      if (child !== undefined) await stop(child, "SIGKILL");
    },
    pause() {
      child?.kill("SIGSTOP");
    },
    resume() {
      child?.kill("SIGCONT");
    },
    async restart(restartOptions = {}) {
      if (closing !== undefined) throw new Error(`etcd at ${endpoint} is closed`);
      if (child !== undefined) await stop(child, "SIGKILL");
      child = await launch(binary, dataDir, ports!, timeoutMs, restartOptions.signal);
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
  signal?.throwIfAborted();
  const client = `http://127.0.0.1:${ports.client}`;
  const peer = `http://127.0.0.1:${ports.peer}`;
  const child = spawn(
    binary,
    [
      ...["--name", "default", "--data-dir", dataDir],
      ...["--listen-client-urls", client, "--advertise-client-urls", client],
      ...["--listen-peer-urls", peer, "--initial-advertise-peer-urls", peer],
      ...["--initial-cluster", `default=${peer}`],
      // One member elects itself: short timeouts make it ready in ~0.1 s instead of ~1 s.
      ...["--heartbeat-interval", "10", "--election-timeout", "100"],
      ...["--logger", "zap", "--log-outputs", "stderr"],
    ],
    { stdio: ["ignore", "ignore", "pipe"] },
  );
  trackForExit(child);
  const tail: string[] = [];
  let buffered = "";
  let ready: () => void = () => {};
  const readyP = new Promise<void>((resolve) => {
    ready = resolve;
  });
  // Read stderr for as long as etcd runs: a full pipe would block it.
  child.stderr!.setEncoding("utf8");
  child.stderr!.on("data", (chunk: string) => {
    buffered += chunk;
    let nl = buffered.indexOf("\n");
    while (nl >= 0) {
      const line = buffered.slice(0, nl);
      buffered = buffered.slice(nl + 1);
      tail.push(line);
      if (tail.length > 20) tail.shift();
      if (READY.test(line)) ready();
      nl = buffered.indexOf("\n");
    }
  });
  const failure = (why: string) =>
    new Error(`etcd (${binary}) ${why} on ${client}; its last lines:\n${tail.join("\n")}`);
  const exited = new Promise<never>((_, reject) => {
    child.once("error", (err: NodeJS.ErrnoException) =>
      reject(err.code === "ENOENT" ? new EtcdNotFoundError(binary) : err),
    );
    child.once("exit", (code, sig) =>
      reject(failure(`exited (${sig ?? code}) before it was ready`)),
    );
  });
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(failure(`was not ready after ${timeoutMs} ms`)), timeoutMs);
  });
  let onAbort: () => void = () => {};
  const aborted = new Promise<never>((_, reject) => {
    onAbort = () => reject(signal!.reason);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
  try {
    await Promise.race([readyP, exited, timedOut, aborted]);
    return child;
  } catch (err) {
    await stop(child, "SIGKILL");
    throw err;
  } finally {
    clearTimeout(timer);
    signal?.removeEventListener("abort", onAbort);
    for (const p of [exited, timedOut, aborted]) p.catch(() => {});
  }
}

/** Signals the process and resolves once it has exited (SIGKILL after 10 s of SIGTERM). */
async function stop(child: ChildProcess, signal: NodeJS.Signals): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null || child.pid === undefined) {
    live.delete(child);
    return;
  }
  const exit = once(child, "exit");
  child.kill(signal);
  const force = signal === "SIGKILL" ? undefined : setTimeout(() => child.kill("SIGKILL"), 10_000);
  await exit;
  clearTimeout(force);
  live.delete(child);
}

/** Kills any etcd still running when the test process exits. */
function trackForExit(child: ChildProcess): void {
  live.add(child);
  child.once("exit", () => live.delete(child));
  if (exitHook) return;
  exitHook = true;
  process.once("exit", () => {
    for (const c of live) c.kill("SIGKILL");
  });
}

/** A TCP port free on the loopback interface right now. */
async function freePort(): Promise<number> {
  const server = createServer();
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}
