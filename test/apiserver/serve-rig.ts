/** `kontroller serve` in a child process, for the suites that drive the command itself. */
import { spawn } from "node:child_process";

const node = process.execPath;
const cli = new URL("../../src/cli/kontroller.ts", import.meta.url).pathname;

/** A running `kontroller serve`. */
export interface Served {
  readonly child: ReturnType<typeof spawn>;
  /** Resolves with the URL of its listening line; rejects if it exits first. */
  readonly listening: Promise<string>;
  /** Resolves with its exit code. */
  readonly exited: Promise<number | null>;
  /** What it wrote to stderr so far. */
  stderr(): string;
  /** Stops it (SIGTERM) and resolves with its exit code. */
  stop(): Promise<number | null>;
}

/** Every server started and not yet exited: killed when the test process ends, whatever ended it. */
const running = new Set<ReturnType<typeof spawn>>();
process.once("exit", () => {
  for (const child of running) child.kill("SIGKILL");
});

/** Starts `kontroller serve ...args`. */
export function serve(args: string[]): Served {
  const child = spawn(node, ["--conditions=kontroller-source", cli, "serve", ...args], {
    stdio: ["ignore", "pipe", "pipe"],
  });
  running.add(child);
  child.once("exit", () => running.delete(child));
  let out = "";
  let err = "";
  child.stderr.on("data", (d: Buffer) => {
    err += d.toString();
  });
  const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
  const listening = new Promise<string>((resolve, reject) => {
    child.stdout.on("data", (d: Buffer) => {
      out += d.toString();
      const m = /^kontroller API server listening on (https?:\/\/127\.0\.0\.1:\d+)$/m.exec(out);
      if (m) resolve(m[1]!);
    });
    void exited.then((code) => reject(new Error(`serve exited with ${code}: ${err}`)));
  });
  listening.catch(() => {});
  return {
    child,
    listening,
    exited,
    stderr: () => err,
    stop: () => {
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM");
      return exited;
    },
  };
}
