import { writeFile } from "node:fs/promises";
import { parseArgs } from "node:util";
import { ApiServer, kubeconfigFor } from "../../apiserver/index.ts";
import { stderrLogger } from "../../cache/index.ts";
import { HttpTransport } from "../../client/index.ts";
import { type ControlPlane, startControlPlane } from "../../controlplane/index.ts";
import type { Command } from "../command.ts";

const USAGE = `usage: kontroller serve [--host 127.0.0.1] [--port 6443] [--kubeconfig-out PATH] [--token TOKEN] [--storage memory] [--controllers all|none]

Runs the embedded Kubernetes-compatible API server until SIGINT or SIGTERM.
  --host            address to bind (default 127.0.0.1: loopback only)
  --port            port to bind; 0 picks a free one (default 6443)
  --kubeconfig-out  write a kubeconfig for the server to PATH (its context selected)
  --token           require "Authorization: Bearer TOKEN" on every request (401 otherwise)
  --storage         where objects live: memory (the only backend so far; default)
  --controllers     all: run the garbage collector and the namespace controller against the
                    server (default); none: the bare API server
`;

/** `kontroller serve`: returns the exit code. */
async function serve(args: string[]): Promise<number> {
  let values: {
    host?: string;
    port?: string;
    "kubeconfig-out"?: string;
    token?: string;
    storage?: string;
    controllers?: string;
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
        controllers: { type: "string" },
        help: { type: "boolean", short: "h" },
      },
      strict: true,
      allowPositionals: false,
    }));
  } catch (err) {
    process.stderr.write(`kontroller serve: ${(err as Error).message}\n\n${USAGE}`);
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
  if ((values.storage ?? "memory") !== "memory") {
    process.stderr.write(
      `kontroller serve: --storage ${JSON.stringify(values.storage)} is not supported; the only storage is "memory"\n`,
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
    });
  } catch (err) {
    process.stderr.write(`kontroller serve: ${(err as Error).message}\n`);
    return 2;
  }
  let url: string;
  try {
    url = await server.listen();
  } catch (err) {
    process.stderr.write(`kontroller serve: cannot listen: ${(err as Error).message}\n`);
    await server.close();
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
        clientOptions: {
          transport: new HttpTransport({
            url,
            ...(token === undefined
              ? {}
              : { headers: () => ({ authorization: `Bearer ${token}` }) }),
          }),
        },
        logger: stderrLogger,
      });
    } catch (err) {
      process.stderr.write(
        `kontroller serve: the controllers did not start: ${(err as Error).message}\n`,
      );
      await server.close();
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
  return 0;
}

/** `kontroller serve`. */
export const command: Command = {
  summary: "run the embedded Kubernetes-compatible API server",
  run: serve,
};
