import { writeFile } from "node:fs/promises";
import { parseArgs } from "node:util";
import { ApiServer, EtcdStorage, kubeconfigFor } from "../../apiserver/index.ts";
import { stderrLogger } from "../../cache/index.ts";
import { type ControlPlane, startControlPlane } from "../../controlplane/index.ts";
import { errorMessage } from "../../core/index.ts";
import type { Command } from "../command.ts";

const USAGE = `usage: kontroller serve [--host 127.0.0.1] [--port 6443] [--kubeconfig-out PATH] [--token TOKEN]
                        [--storage memory|etcd] [--etcd-endpoints URL,...] [--etcd-prefix /registry]
                        [--controllers all|none] [--service-cluster-ip-range CIDR]
                        [--service-node-port-range FIRST-LAST]

Runs the embedded Kubernetes-compatible API server until SIGINT or SIGTERM.
  --host            address to bind (default 127.0.0.1: loopback only)
  --port            port to bind; 0 picks a free one (default 6443)
  --kubeconfig-out  write a kubeconfig for the server to PATH (its context selected)
  --token           require "Authorization: Bearer TOKEN" on every request (401 otherwise)
  --storage         where objects live: memory (default; gone when the server stops) or etcd
  --etcd-endpoints  with --storage etcd: etcd client URLs, comma-separated (required), e.g.
                    http://127.0.0.1:2379; start-up waits for etcd, retrying
  --etcd-prefix     with --storage etcd: the key prefix in etcd (default /registry: kube's
                    layout, /registry/configmaps/NAMESPACE/NAME); several servers with one
                    prefix on one etcd serve the same objects
  --controllers     all: run the garbage collector and the namespace controller against the
                    server (default); none: the bare API server
  --service-cluster-ip-range
                    the IPv4 range Services' cluster IPs come from (default 10.0.0.0/24, as
                    kube-apiserver's)
  --service-node-port-range
                    the range Services' node ports come from (default 30000-32767)
`;

/** `kontroller serve`: returns the exit code. */
async function serve(args: string[]): Promise<number> {
  let values: {
    host?: string;
    port?: string;
    "kubeconfig-out"?: string;
    token?: string;
    storage?: string;
    "etcd-endpoints"?: string;
    "etcd-prefix"?: string;
    controllers?: string;
    "service-cluster-ip-range"?: string;
    "service-node-port-range"?: string;
    help?: boolean;
  };
  try {
    ({ values } = parseArgs({
      args,
      options: {
        host: { type: "string" },
        port: { type: "string" },
        "kubeconfig-out": { type: "string" },
        token: { type: "string" },
        storage: { type: "string" },
        "etcd-endpoints": { type: "string" },
        "etcd-prefix": { type: "string" },
        controllers: { type: "string" },
        "service-cluster-ip-range": { type: "string" },
        "service-node-port-range": { type: "string" },
        help: { type: "boolean", short: "h" },
      },
      strict: true,
      allowPositionals: false,
    }));
  } catch (err) {
    process.stderr.write(`kontroller serve: ${errorMessage(err)}\n\n${USAGE}`);
    return 2;
  }
  if (values.help) {
    process.stdout.write(USAGE);
    return 0;
  }
  const port = Number(values.port ?? "6443");
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    process.stderr.write(
      `kontroller serve: --port must be an integer from 0 to 65535, got ${JSON.stringify(values.port)}\n`,
    );
    return 2;
  }
  const storageKind = values.storage ?? "memory";
  if (storageKind !== "memory" && storageKind !== "etcd") {
    process.stderr.write(
      `kontroller serve: --storage must be "memory" or "etcd", got ${JSON.stringify(values.storage)}\n`,
    );
    return 2;
  }
  let etcd: EtcdStorage | undefined;
  if (storageKind === "etcd") {
    const made = etcdStorage(values["etcd-endpoints"], values["etcd-prefix"]);
    if (typeof made === "string") {
      process.stderr.write(`kontroller serve: ${made}\n`);
      return 2;
    }
    etcd = made;
  } else if (values["etcd-endpoints"] !== undefined || values["etcd-prefix"] !== undefined) {
    process.stderr.write(
      "kontroller serve: --etcd-endpoints and --etcd-prefix need --storage etcd\n",
    );
    return 2;
  }
  const controllers = values.controllers ?? "all";
  if (controllers !== "all" && controllers !== "none") {
    process.stderr.write(
      `kontroller serve: --controllers must be "all" or "none", got ${JSON.stringify(controllers)}\n`,
    );
    return 2;
  }
  let server: ApiServer;
  try {
    server = new ApiServer({
      host: values.host ?? "127.0.0.1",
      port,
      ...(values.token !== undefined ? { token: values.token } : {}),
      ...(etcd !== undefined ? { storage: etcd } : {}),
      ...(values["service-cluster-ip-range"] !== undefined
        ? { serviceClusterIpRange: values["service-cluster-ip-range"] }
        : {}),
      ...(values["service-node-port-range"] !== undefined
        ? { serviceNodePortRange: values["service-node-port-range"] }
        : {}),
    });
  } catch (err) {
    process.stderr.write(`kontroller serve: ${errorMessage(err)}\n`);
    await etcd?.close();
    return 2;
  }
  if (etcd !== undefined && !(await waitForEtcd(etcd))) {
    await etcd.close();
    return 1;
  }
  let url: string;
  try {
    url = await server.listen();
  } catch (err) {
    process.stderr.write(`kontroller serve: cannot listen: ${errorMessage(err)}\n`);
    await server.close();
    await etcd?.close();
    return 1;
  }
  if (values["kubeconfig-out"] !== undefined) {
    await writeFile(values["kubeconfig-out"], kubeconfigFor(url, values.token));
  }
  let controlPlane: ControlPlane | undefined;
  if (controllers === "all") {
    const token = values.token;
    try {
      controlPlane = await startControlPlane({
        clientOptions: token === undefined ? { url } : { url, token },
        logger: stderrLogger,
      });
    } catch (err) {
      process.stderr.write(
        `kontroller serve: the controllers did not start: ${errorMessage(err)}\n`,
      );
      await server.close();
      await etcd?.close();
      return 1;
    }
  }
  process.stdout.write(`kontroller API server listening on ${url}\n`);
  await new Promise<void>((resolve) => {
    const stop = () => {
      process.off("SIGINT", stop);
      process.off("SIGTERM", stop);
      resolve();
    };
    process.once("SIGINT", stop);
    process.once("SIGTERM", stop);
  });
  await controlPlane?.stop();
  await server.close();
  await etcd?.close();
  return 0;
}

/**
 * The etcd storage of `--etcd-endpoints` and `--etcd-prefix`, or what is wrong with them. The
 * registry's keys start with /registry, so the prefix /registry (the default) is no prefix at
 * all, and `/x/registry` is `/x`; any other prefix P puts keys at P/registry/….
 */
function etcdStorage(endpoints: string | undefined, prefix = "/registry"): EtcdStorage | string {
  if (endpoints === undefined || endpoints.trim() === "") {
    return "--storage etcd needs --etcd-endpoints, e.g. --etcd-endpoints http://127.0.0.1:2379";
  }
  if (!prefix.startsWith("/")) {
    return `--etcd-prefix must start with "/", got ${JSON.stringify(prefix)}`;
  }
  try {
    return new EtcdStorage({
      endpoints: endpoints.split(",").map((e) => e.trim()),
      prefix: prefix.replace(/\/registry\/?$/, "").replace(/\/$/, ""),
    });
  } catch (err) {
    return errorMessage(err);
  }
}

/** Waits until etcd answers, saying so on stderr; false if stopped (SIGINT/SIGTERM) first. */
async function waitForEtcd(etcd: EtcdStorage): Promise<boolean> {
  const stop = new AbortController();
  const onSignal = () => stop.abort(new Error("stopped while waiting for etcd"));
  process.once("SIGINT", onSignal);
  process.once("SIGTERM", onSignal);
  try {
    await etcd.ready({
      signal: stop.signal,
      onRetry: (err, attempt, delayMs) =>
        process.stderr.write(
          `kontroller serve: waiting for etcd at ${etcd.endpoints.join(",")} (attempt ${attempt}: ${err.message}); retrying in ${(delayMs / 1000).toFixed(1)} s\n`,
        ),
    });
    return true;
  } catch (err) {
    process.stderr.write(`kontroller serve: ${errorMessage(err)}\n`);
    return false;
  } finally {
    process.off("SIGINT", onSignal);
    process.off("SIGTERM", onSignal);
  }
}

/** `kontroller serve`. */
export const command: Command = {
  summary: "run the embedded Kubernetes-compatible API server",
  run: serve,
};
