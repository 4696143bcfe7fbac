import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ApiServer, type ApiServerOptions, kubeconfigFor } from "../apiserver/index.ts";
import { silentLogger } from "../cache/index.ts";
import { type ControlPlane, startControlPlane } from "../controlplane/index.ts";
import { testStorageFromEnv } from "./test-storage.ts";

/** Options of {@link startTestServer}: the server's, except that the port is always free. */
export interface TestServerOptions extends Omit<ApiServerOptions, "port" | "host"> {
  /**
   * Run the control plane (garbage collector, namespace controller) against the server, as a
   * cluster does; false for the bare API server (finalizers and Terminating namespaces stay).
   * @default true
   */
  controllers?: boolean;
}

/** A running embedded API server for one test. */
export interface TestServer extends AsyncDisposable {
  /** `http://127.0.0.1:PORT`. */
  readonly url: string;
  /** A kubeconfig (YAML) for the server, its context selected. */
  readonly kubeconfig: string;
  /** A file holding {@link kubeconfig}, for `kubectl --kubeconfig`; removed on close. */
  readonly kubeconfigPath: string;
  /** The server itself (stats; fault injection: `cutWatches()`, `dropWatchHistory()`). */
  readonly server: ApiServer;
  /** The control plane running against it, unless `controllers: false`. */
  readonly controlPlane: ControlPlane | undefined;
  /** Stops the server and removes the kubeconfig file. Idempotent. */
  close(): Promise<void>;
}

/**
 * Starts the embedded API server on a free loopback port: `await using s = await
 * startTestServer()`. Each server has its own in-memory storage, so tests are independent.
 */
export async function startTestServer(options: TestServerOptions = {}): Promise<TestServer> {
  const { controllers = true, ...serverOptions } = options;
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
  const kubeconfig = kubeconfigFor(url, options.token);
  const token = options.token;
  let controlPlane: ControlPlane | undefined;
  if (controllers) {
    try {
      controlPlane = await startControlPlane({
        clientOptions: token === undefined ? { url } : { url, token },
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
    url,
    kubeconfig,
    kubeconfigPath,
    server,
    controlPlane,
    close,
    [Symbol.asyncDispose]: close,
  };
}
