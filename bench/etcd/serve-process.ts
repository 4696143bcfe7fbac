/** `kontroller serve` in a child process, for benchmarks that measure a server on its own. */
import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";

const cli = new URL("../../src/cli/kontroller.ts", import.meta.url).pathname;

export interface ServeProcess extends AsyncDisposable {
  readonly url: string;
  readonly child: ChildProcess;
}

/**
 * Starts `kontroller serve --port 0 --controllers none --insecure-http <args>` (plain HTTP on
 * loopback, which the benchmarks' client speaks); resolves once it listens.
 */
export async function startServe(args: string[]): Promise<ServeProcess> {
  const child = spawn(
    process.execPath,
    [
      "--conditions=kontroller-source",
      cli,
      "serve",
      "--port",
      "0",
      "--controllers",
      "none",
      "--insecure-http",
      ...args,
    ],
    { stdio: ["ignore", "pipe", "pipe"] },
  );
  let out = "";
  let err = "";
  child.stderr!.setEncoding("utf8").on("data", (d: string) => {
    err += d;
  });
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout!.setEncoding("utf8").on("data", (d: string) => {
      out += d;
      const m = /listening on (http:\/\/\S+)/.exec(out);
      if (m) resolve(m[1]!);
    });
    child.once("exit", (code) => reject(new Error(`kontroller serve exited (${code}): ${err}`)));
  });
  return {
    url,
    child,
    async [Symbol.asyncDispose]() {
      if (child.exitCode !== null) return;
      const exited = once(child, "exit");
      child.kill("SIGTERM");
      await exited;
    },
  };
}
