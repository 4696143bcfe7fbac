import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  ApiServer,
  type ApiServerOptions,
  issueAdminCertificate,
  type KeyCertificate,
  kubeconfigFor,
} from "../apiserver/index.ts";
import { silentLogger } from "../cache/index.ts";
import { type ControlPlane, startControlPlane } from "../controlplane/index.ts";
import { InvalidOptionError } from "../core/index.ts";
import { startKubeApiServer } from "./kube-apiserver.ts";
import { type KubeFront, startKubeFront } from "./kube-front.ts";
import { leaseKubeApiServer } from "./kube-pool.ts";
import { testStorageFromEnv } from "./test-storage.ts";

/** Which server {@link startTestServer} runs. */
export type TestBackend = "embedded" | "kube-apiserver";

/** Options of {@link startTestServer}: the server's, except that the port is always free. */
export interface TestServerOptions extends Omit<ApiServerOptions, "port" | "host"> {
  /**
   * The embedded API server, or a real kube-apiserver and etcd from binaries on disk (see
   * `startKubeApiServer`). On kube-apiserver, `token`, `compactionIntervalMs` and
   * `minRequestTimeoutSeconds` become its flags; `storage`, `clock`, `watchCache` and `audit`
   * exist only on the embedded server and are refused; `tls` is what kube-apiserver always has (its
   * kubeconfig is over TLS; `url` stays the plain-HTTP front); `authorization` is always RBAC
   * there, as startKubeApiServer runs it.
   * @default `$KONTROLLER_TEST_BACKEND`, else "embedded"
   */
  backend?: TestBackend;
  /**
   * Run kontroller's control plane (garbage collector, namespace controller) against the server,
   * as a cluster does; false for the bare API server (finalizers and Terminating namespaces
   * stay). A real kube-apiserver has no controllers of its own either: "kontroller" (the same as
   * true) says so where it matters.
   * @default true
   */
  controllers?: boolean | "kontroller";
  /**
   * kube-apiserver only: take the server from the test process's pool, where `close()` gives it
   * back with its etcd reset to how the server started (what the test made is deleted, what it
   * changed is restored), so a suite pays for one start instead of one per test; the process's
   * exit stops what is left and removes its files. False: a server of this test's own, which
   * `close()` stops and removes.
   * @default true
   */
  reuse?: boolean;
}

/** A running API server for one test. */
export interface TestServer extends AsyncDisposable {
  /** Which server runs. */
  readonly backend: TestBackend;
  /**
   * `http://127.0.0.1:PORT`, for a client that needs nothing else. On kube-apiserver this is a
   * loopback front, as `kubectl proxy` is one: it forwards over TLS and adds the admin's token to
   * a request that has no `Authorization` (none where the test gave a `token` of its own).
   */
  readonly url: string;
  /**
   * The CA (PEM) that `url`'s certificate is verified by, when it is `https://` (the embedded
   * server with `tls`); undefined over plain HTTP.
   */
  readonly ca: string | undefined;
  /**
   * A kubeconfig (YAML) for the server, its context selected. With `tls`, it trusts the server's
   * CA and authenticates as the administrator by a client certificate (and the token, if any).
   * On kube-apiserver it reaches the server itself, over TLS with the admin's token.
   */
  readonly kubeconfig: string;
  /** A file holding {@link kubeconfig}, for `kubectl --kubeconfig`; removed on close. */
  readonly kubeconfigPath: string;
  /**
   * The embedded server itself (stats; fault injection: `cutWatches()`, `dropWatchHistory()`).
   * Reading it on the kube-apiserver backend throws: a test that needs it is about the embedded
   * server only.
   */
  readonly server: ApiServer;
  /** The control plane running against it, unless `controllers: false`. */
  readonly controlPlane: ControlPlane | undefined;
  /**
   * Stops the server and removes its files; on kube-apiserver, gives the server back to the pool
   * (see {@link TestServerOptions.reuse}), or stops it and its etcd. Idempotent.
   */
  close(): Promise<void>;
}

/** Options that only the embedded server has. */
const EMBEDDED_ONLY = ["storage", "clock", "watchCache", "audit"] as const;

/** The backend `startTestServer()` runs in this test run: `$KONTROLLER_TEST_BACKEND`, else "embedded". */
export function testBackend(): TestBackend {
  return backendOf({});
}

/**
 * A skip reason for a test about the embedded server only, where this run's backend is
 * kube-apiserver; false otherwise: `it("...", { skip: embeddedOnly("virtual time") }, ...)`.
 * Say which behaviour kube-apiserver does not have, so the skip says why.
 */
export function embeddedOnly(why: string): string | false {
  return testBackend() === "kube-apiserver" ? `embedded server only: ${why}` : false;
}

function backendOf(options: TestServerOptions): TestBackend {
  const backend = options.backend ?? (process.env.KONTROLLER_TEST_BACKEND || "embedded");
  if (backend !== "embedded" && backend !== "kube-apiserver") {
    throw new InvalidOptionError(
      "startTestServer",
      options.backend === undefined ? "backend ($KONTROLLER_TEST_BACKEND)" : "backend",
      backend,
      'must be "embedded" or "kube-apiserver"',
    );
  }
  return backend;
}

/**
 * Starts an API server on a free loopback port: `await using s = await startTestServer()`. Each
 * server has its own storage, so tests are independent.
 */
export async function startTestServer(options: TestServerOptions = {}): Promise<TestServer> {
  if (backendOf(options) === "kube-apiserver") return startKube(options);
  const { controllers = true, backend: _, reuse: __, ...serverOptions } = options;
  if (
    options.authorization === "RBAC" &&
    controllers &&
    !options.tls &&
    options.token === undefined
  ) {
    throw new InvalidOptionError(
      "startTestServer",
      "authorization",
      options.authorization,
      "needs tls or token beside it: over plain HTTP without a token every request is anonymous, the control plane's included, and RBAC refuses them (give tls: {} to be the administrator by client certificate, or controllers: false)",
    );
  }
  // $KONTROLLER_TEST_STORAGE=etcd: a throwaway etcd instead of memory (see test-storage.ts).
  const own = options.storage === undefined ? await testStorageFromEnv() : undefined;
  const server = new ApiServer({
    ...serverOptions,
    ...(own ? { storage: own.storage } : {}),
    host: "127.0.0.1",
    port: 0,
  });
  let url: string;
  try {
    url = await server.listen();
  } catch (err) {
    await server.close();
    await own?.close();
    throw err;
  }
  const token = options.token;
  const pki = server.certificates;
  let admin: KeyCertificate | undefined;
  if (pki !== undefined) admin = await issueAdminCertificate(pki.ca);
  const kubeconfig = kubeconfigFor(url, {
    ...(token === undefined ? {} : { token }),
    ...(pki === undefined ? {} : { certificateAuthority: pki.ca.certificatePem }),
    ...(admin === undefined ? {} : { clientCertificate: admin }),
  });
  let controlPlane: ControlPlane | undefined;
  if (controllers) {
    try {
      controlPlane = await startControlPlane({
        clientOptions: {
          url,
          ...(token === undefined ? {} : { token }),
          ...(pki === undefined ? {} : { ca: pki.ca.certificatePem }),
          ...(admin === undefined ? {} : { cert: admin.certificatePem, key: admin.privateKeyPem }),
        },
        logger: silentLogger,
        gracefulShutdownMs: 1000,
      });
    } catch (err) {
      await server.close();
      await own?.close();
      throw err;
    }
  }
  const dir = await mkdtemp(join(tmpdir(), "kontroller-test-server-"));
  const kubeconfigPath = join(dir, "kubeconfig");
  await writeFile(kubeconfigPath, kubeconfig);
  let closing: Promise<void> | undefined;
  const close = () => {
    closing ??= (async () => {
      await controlPlane?.stop();
      await server.close();
      await own?.close();
      await rm(dir, { recursive: true, force: true });
    })();
    return closing;
  };
  return {
    backend: "embedded",
    url,
    ca: pki?.ca.certificatePem,
    kubeconfig,
    kubeconfigPath,
    server,
    controlPlane,
    close,
    [Symbol.asyncDispose]: close,
  };
}

/**
 * A real kube-apiserver (lent from the process's pool unless `reuse: false`), behind a
 * plain-HTTP front, with kontroller's control plane beside it unless `controllers: false`.
 */
async function startKube(options: TestServerOptions): Promise<TestServer> {
  for (const name of EMBEDDED_ONLY) {
    if (options[name] !== undefined) {
      throw new InvalidOptionError(
        "startTestServer",
        name,
        options[name],
        'exists only on the embedded backend (this test is about the embedded server: run it with backend "embedded")',
      );
    }
  }
  const args: string[] = [];
  if (options.compactionIntervalMs !== undefined) {
    args.push(`--etcd-compaction-interval=${Math.round(options.compactionIntervalMs / 1000)}s`);
  }
  if (options.minRequestTimeoutSeconds !== undefined) {
    args.push(`--min-request-timeout=${options.minRequestTimeoutSeconds}`);
  }
  if (options.tokenAuthFile !== undefined) {
    throw new InvalidOptionError(
      "startTestServer",
      "tokenAuthFile",
      options.tokenAuthFile,
      "is not passed to kube-apiserver, whose token file holds the test server's administrator: run a test of a token file on the embedded backend",
    );
  }
  // As on the embedded server: no anonymous requests where the test gave a token (a request
  // without it is 401 there; kube's anonymous user would get 403 instead), unless it says.
  if (!(options.anonymousAuth ?? options.token === undefined)) args.push("--anonymous-auth=false");
  const lease =
    options.reuse === false
      ? await startKubeApiServer({ args, ...tokenOption(options.token) }).then((kube) => ({
          kube,
          release: () => kube.close(),
        }))
      : await leaseKubeApiServer({ token: options.token, args });
  const { kube } = lease;
  let front: KubeFront | undefined;
  let dir: string | undefined;
  let controlPlane: ControlPlane | undefined;
  try {
    // With a token of the test's own, requests must carry it, as on the embedded server.
    front = await startKubeFront({
      target: kube.url,
      ca: kube.ca,
      token: options.token === undefined ? kube.token : undefined,
    });
    const url = front.url;
    dir = await mkdtemp(join(tmpdir(), "kontroller-test-server-"));
    const kubeconfigPath = join(dir, "kubeconfig");
    await writeFile(kubeconfigPath, kube.kubeconfig, { mode: 0o600 });
    if (options.controllers !== false) {
      controlPlane = await startControlPlane({
        clientOptions: { kubeconfig: kubeconfigPath },
        logger: silentLogger,
        gracefulShutdownMs: 1000,
      });
    }
    let closing: Promise<void> | undefined;
    const close = () => {
      closing ??= (async () => {
        try {
          await controlPlane?.stop();
          await front!.close();
        } finally {
          await rm(dir!, { recursive: true, force: true });
          await lease.release();
        }
      })();
      return closing;
    };
    return {
      backend: "kube-apiserver",
      url,
      ca: undefined,
      kubeconfig: kube.kubeconfig,
      kubeconfigPath,
      get server(): ApiServer {
        throw new Error(
          "startTestServer: .server is the embedded API server, and this test server is a real kube-apiserver; a test that needs it runs on the embedded backend only",
        );
      },
      controlPlane,
      close,
      [Symbol.asyncDispose]: close,
    };
  } catch (err) {
    await controlPlane?.stop();
    await front?.close();
    if (dir !== undefined) await rm(dir, { recursive: true, force: true });
    await lease.release();
    throw err;
  }
}

function tokenOption(token: string | undefined): { token?: string } {
  return token === undefined ? {} : { token };
}
