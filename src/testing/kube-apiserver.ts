/**
 * A real control plane for tests, as controller-runtime's envtest starts one: kube-apiserver and
 * etcd from binaries on disk, on free loopback ports, with everything they need made fresh in a
 * temporary directory (a service-account key pair, an admin token, a self-signed serving
 * certificate), and all of it stopped and removed by `close()`.
 *
 * Where the binaries come from, in order: `binary` / `etcdBinary`; `$KONTROLLER_KUBE_APISERVER`;
 * `$KUBEBUILDER_ASSETS/kube-apiserver` and `$KUBEBUILDER_ASSETS/etcd` (setup-envtest's layout),
 * `/usr/local/kubebuilder/bin` where that variable is unset (envtest's default); etcd from the
 * machine otherwise. No binary is built or downloaded here.
 */
import { generateKeyPairSync, randomBytes } from "node:crypto";
import { existsSync } from "node:fs";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { request } from "node:https";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { checkNumber, InvalidOptionError } from "../core/index.ts";
import { type EtcdProcess, startEtcd } from "./etcd.ts";
import {
  freePort,
  isRunning,
  type LaunchedProcess,
  launchProcess,
  processFailure,
  removeAtExit,
  stopProcess,
  unrefProcess,
} from "./process.ts";

/** Options of {@link startKubeApiServer}. */
export interface StartKubeApiServerOptions {
  /**
   * The kube-apiserver executable.
   * @default `$KONTROLLER_KUBE_APISERVER`, else `$KUBEBUILDER_ASSETS/kube-apiserver` (the
   * assets folder defaults to envtest's `/usr/local/kubebuilder/bin`)
   */
  binary?: string;
  /**
   * The etcd executable.
   * @default `$KUBEBUILDER_ASSETS/etcd` where it exists, else `$KONTROLLER_ETCD_BINARY`, else "etcd"
   */
  etcdBinary?: string;
  /** The admin user's bearer token. @default a random one */
  token?: string;
  /** Where its temporary directory (certificates, keys, token file) is made. @default os.tmpdir() */
  tmpDir?: string;
  /** More kube-apiserver flags, after the fixture's own (a later flag wins). @default [] */
  args?: readonly string[];
  /** How long etcd and kube-apiserver together may take to be ready. @default 60000 */
  startTimeoutMs?: number;
  /** Aborts the start (both processes are stopped and their directory removed). */
  signal?: AbortSignal;
}

/** A running kube-apiserver from {@link startKubeApiServer}. */
export interface KubeApiServerProcess extends AsyncDisposable {
  /** `https://127.0.0.1:PORT`. */
  readonly url: string;
  /** The bearer token of the admin user (`admin`, in `system:masters`). */
  readonly token: string;
  /** The serving certificate's CA (PEM): the server's own self-signed certificate. */
  readonly ca: string;
  /** A kubeconfig (YAML) for the admin user, its context selected, verifying the server. */
  readonly kubeconfig: string;
  /** The etcd under it. */
  readonly etcd: EtcdProcess;
  /** kube-apiserver's process id. */
  readonly pid: number | undefined;
  /** True while kube-apiserver runs. */
  readonly running: boolean;
  /** Settles once kube-apiserver has exited, for whatever reason (a crash, or `close()`). */
  readonly exited: Promise<void>;
  /**
   * Lets the test process exit while kube-apiserver and etcd run (as `ChildProcess.unref()`):
   * both are killed, and their files removed, when the process exits.
   */
  unref(): void;
  /**
   * Stops kube-apiserver, then etcd, and removes their directories. Idempotent. Rejects, after
   * cleaning up, if kube-apiserver had exited on its own, quoting its last lines.
   */
  close(): Promise<void>;
}

/** No kube-apiserver binary where {@link startKubeApiServer} looked. */
export class KubeApiServerNotFoundError extends Error {
  constructor(tried: string | undefined) {
    super(
      tried === undefined
        ? "no kube-apiserver binary: set KONTROLLER_KUBE_APISERVER to its path, or KUBEBUILDER_ASSETS to a folder holding kube-apiserver and etcd (as setup-envtest lays it out)"
        : `kube-apiserver not found at ${JSON.stringify(tried)}: set KONTROLLER_KUBE_APISERVER to its path, or KUBEBUILDER_ASSETS to a folder holding kube-apiserver and etcd`,
    );
    this.name = "KubeApiServerNotFoundError";
  }
}

/** Where envtest looks for its binaries when `$KUBEBUILDER_ASSETS` is unset. */
const DEFAULT_ASSETS = "/usr/local/kubebuilder/bin";

/** The binaries {@link startKubeApiServer} would run, or undefined where there is no kube-apiserver. */
export function findKubeApiServer(
  env: NodeJS.ProcessEnv = process.env,
): { kubeApiServer: string; etcd: string | undefined } | undefined {
  const assets = env.KUBEBUILDER_ASSETS ?? DEFAULT_ASSETS;
  const inAssets = (name: string) =>
    assets !== "" && existsSync(join(assets, name)) ? join(assets, name) : undefined;
  const kubeApiServer = env.KONTROLLER_KUBE_APISERVER || inAssets("kube-apiserver");
  if (kubeApiServer === undefined) return undefined;
  return { kubeApiServer, etcd: inAssets("etcd") };
}

/** What kube-apiserver prints once it listens; /readyz decides when it serves. */
const LISTENING = /Serving securely on /;

/** The user the fixture's token authenticates, in kube's token-file CSV form. */
const ADMIN = { name: "admin", uid: "kontroller-admin", groups: "system:masters" };

/**
 * Starts etcd and kube-apiserver on free loopback ports and resolves once `/readyz` answers ok:
 * `await using kube = await startKubeApiServer()`. Rejects with
 * {@link KubeApiServerNotFoundError} where no binary is configured, never falling back.
 */
export async function startKubeApiServer(
  options: StartKubeApiServerOptions = {},
): Promise<KubeApiServerProcess> {
  const timeoutMs = checkNumber(
    "startKubeApiServer",
    "startTimeoutMs",
    options.startTimeoutMs ?? 60_000,
    { above: 0 },
  );
  const found = findKubeApiServer();
  const binary = options.binary ?? found?.kubeApiServer;
  if (binary === undefined) throw new KubeApiServerNotFoundError(undefined);
  if (!existsSync(binary)) throw new KubeApiServerNotFoundError(binary);
  const started = Date.now();
  const dir = await mkdtemp(join(options.tmpDir ?? tmpdir(), "kontroller-kube-apiserver-"));
  const forgetDir = removeAtExit(dir);
  let etcd: EtcdProcess | undefined;
  let apiserver: LaunchedProcess | undefined;
  try {
    const etcdBinary = options.etcdBinary ?? found?.etcd;
    etcd = await startEtcd({
      ...(etcdBinary === undefined ? {} : { binary: etcdBinary }),
      startTimeoutMs: timeoutMs,
      ...(options.signal === undefined ? {} : { signal: options.signal }),
    });
    const token = options.token ?? randomBytes(24).toString("hex");
    if (!/^[^\s,"]+$/.test(token)) {
      throw new InvalidOptionError(
        "startKubeApiServer",
        "token",
        token,
        "must be one word with no comma or quote (kube's token file is CSV)",
      );
    }
    const files = await writeInputs(dir, token);
    const port = await freePort();
    const url = `https://127.0.0.1:${port}`;
    apiserver = await launchProcess({
      name: `kube-apiserver (${binary}) on ${url}`,
      binary,
      args: [...flags(files, dir, port, etcd.endpoint), ...(options.args ?? [])],
      ready: (line) => LISTENING.test(line),
      timeoutMs: Math.max(1, timeoutMs - (Date.now() - started)),
      signal: options.signal,
      notFound: (missing) => new KubeApiServerNotFoundError(missing),
    });
    // The self-signed certificate is written before the server listens.
    const ca = await readFile(join(dir, "certs", "apiserver.crt"), "utf8");
    await waitReady(apiserver, url, token, ca, started + timeoutMs, options.signal);
    return running(apiserver, etcd, { dir, forgetDir }, { url, token, ca });
  } catch (err) {
    if (apiserver !== undefined) await stopProcess(apiserver.child, "SIGKILL");
    await etcd?.close();
    await rm(dir, { recursive: true, force: true });
    forgetDir();
    throw err;
  }
}

interface InputFiles {
  tokens: string;
  saKey: string;
  saPub: string;
}

/** The token file and the service-account key pair kube-apiserver requires. */
async function writeInputs(dir: string, token: string): Promise<InputFiles> {
  const { privateKey, publicKey } = generateKeyPairSync("rsa", {
    modulusLength: 2048,
    privateKeyEncoding: { type: "pkcs8", format: "pem" },
    publicKeyEncoding: { type: "spki", format: "pem" },
  });
  const files = {
    tokens: join(dir, "tokens.csv"),
    saKey: join(dir, "sa.key"),
    saPub: join(dir, "sa.pub"),
  };
  await writeFile(files.tokens, `${token},${ADMIN.name},${ADMIN.uid},"${ADMIN.groups}"\n`, {
    mode: 0o600,
  });
  await writeFile(files.saKey, privateKey, { mode: 0o600 });
  await writeFile(files.saPub, publicKey);
  return files;
}

/**
 * The flags: envtest's, with a token file for the admin user and RBAC on. The ServiceAccount
 * admission plugin is off as in envtest: no controller creates the `default` ServiceAccount
 * here, so it would refuse every pod. The `kubernetes` Service gets no endpoints: kube refuses a
 * loopback address in Endpoints, and would log that refusal every 10 s.
 */
function flags(files: InputFiles, dir: string, port: number, etcd: string): string[] {
  return [
    `--etcd-servers=${etcd}`,
    `--cert-dir=${join(dir, "certs")}`,
    "--bind-address=127.0.0.1",
    "--advertise-address=127.0.0.1",
    `--secure-port=${port}`,
    `--token-auth-file=${files.tokens}`,
    `--service-account-key-file=${files.saPub}`,
    `--service-account-signing-key-file=${files.saKey}`,
    "--service-account-issuer=https://kubernetes.default.svc.cluster.local",
    "--service-cluster-ip-range=10.0.0.0/24",
    "--authorization-mode=RBAC",
    "--disable-admission-plugins=ServiceAccount",
    "--allow-privileged=true",
    "--enable-priority-and-fairness=false",
    "--endpoint-reconciler-type=none",
  ];
}

/** Asks `/readyz` until it answers ok, the process dies, or the time is up. */
async function waitReady(
  apiserver: LaunchedProcess,
  url: string,
  token: string,
  ca: string,
  deadline: number,
  signal: AbortSignal | undefined,
): Promise<void> {
  for (;;) {
    signal?.throwIfAborted();
    if (!isRunning(apiserver.child)) {
      throw processFailure("kube-apiserver", apiserver, "exited before /readyz answered ok");
    }
    if ((await getStatus(`${url}/readyz`, token, ca)) === 200) return;
    if (Date.now() > deadline) {
      throw processFailure("kube-apiserver", apiserver, "was not ready in time (/readyz)");
    }
    // An external process has no event for "ready": ask again shortly, as envtest does.
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** The status code of a GET, or 0 where the request failed. */
function getStatus(url: string, token: string, ca: string): Promise<number> {
  return new Promise((resolve) => {
    const req = request(url, { ca, headers: { Authorization: `Bearer ${token}` } }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.setTimeout(2000, () => req.destroy());
    req.on("error", () => resolve(0));
    req.end();
  });
}

function running(
  apiserver: LaunchedProcess,
  etcd: EtcdProcess,
  files: { dir: string; forgetDir: () => void },
  server: { url: string; token: string; ca: string },
): KubeApiServerProcess {
  let crashed: Error | undefined;
  let closing: Promise<void> | undefined;
  const exited = new Promise<void>((resolve) => {
    apiserver.child.once("exit", (code, sig) => {
      resolve();
      if (closing !== undefined) return;
      crashed = processFailure("kube-apiserver", apiserver, `exited on its own (${sig ?? code})`);
      process.stderr.write(`${crashed.message}\n`);
    });
  });
  const close = () => {
    closing ??= (async () => {
      await stopProcess(apiserver.child, "SIGTERM");
      await etcd.close();
      await rm(files.dir, { recursive: true, force: true });
      files.forgetDir();
      if (crashed !== undefined) throw crashed;
    })();
    return closing;
  };
  return {
    ...server,
    kubeconfig: adminKubeconfig(server),
    etcd,
    pid: apiserver.child.pid,
    exited,
    get running() {
      return isRunning(apiserver.child);
    },
    unref() {
      unrefProcess(apiserver.child);
      etcd.unref();
    },
    close,
    [Symbol.asyncDispose]: close,
  };
}

function adminKubeconfig(server: { url: string; token: string; ca: string }): string {
  const ca = Buffer.from(server.ca).toString("base64");
  return [
    "apiVersion: v1",
    "kind: Config",
    "clusters:",
    "- name: kube-apiserver",
    "  cluster:",
    `    server: ${server.url}`,
    `    certificate-authority-data: ${ca}`,
    "users:",
    `- name: ${ADMIN.name}`,
    "  user:",
    `    token: ${server.token}`,
    "contexts:",
    "- name: kube-apiserver",
    "  context:",
    "    cluster: kube-apiserver",
    `    user: ${ADMIN.name}`,
    "current-context: kube-apiserver",
    "",
  ].join("\n");
}
