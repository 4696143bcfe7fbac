/** Starts and drives the benchmark's server process (`server-process.ts`). */
import { type ChildProcess, fork } from "node:child_process";
import type { Reply, Request } from "./protocol.ts";

/** The server process, as the benchmark sees it. */
export interface BenchServer extends AsyncDisposable {
  /** The API server. */
  readonly url: string;
  /** The fault proxy in front of it (used to hold a backlog of events back). */
  readonly proxyUrl: string;
  /** Sends a request and resolves with the reply (rejects on an error reply). */
  call(request: Request): Promise<Reply>;
}

/** Forks the server process and waits until it serves. */
export async function startBenchServer(): Promise<BenchServer> {
  const child: ChildProcess = fork(new URL("./server-process.ts", import.meta.url), {
    execArgv: ["--conditions=kontroller-source", "--max-old-space-size=8192", "--expose-gc"],
    stdio: ["ignore", "inherit", "inherit", "ipc"],
  });
  const replies: Reply[] = [];
  let waiter: { resolve: () => void; reject: (e: Error) => void } | undefined;
  let exited: Error | undefined;
  child.on("message", (m: Reply) => {
    replies.push(m);
    waiter?.resolve();
  });
  child.once("exit", (code) => {
    exited = new Error(`the bench server exited (${code})`);
    waiter?.reject(exited);
  });
  const next = async (): Promise<Reply> => {
    while (replies.length === 0) {
      if (exited !== undefined) throw exited;
      await new Promise<void>((resolve, reject) => {
        waiter = { resolve, reject };
      });
    }
    const r = replies.shift()!;
    if (r.type === "error") throw new Error(`bench server: ${r.message}`);
    return r;
  };
  const ready = await next();
  if (ready.type !== "ready") throw new Error(`bench server: unexpected ${ready.type}`);
  return {
    url: ready.url,
    proxyUrl: ready.proxyUrl,
    async call(request) {
      child.send(request);
      return next();
    },
    async [Symbol.asyncDispose]() {
      if (child.exitCode !== null) return;
      const exited = new Promise((r) => child.once("exit", r));
      child.send({ type: "stop" } satisfies Request);
      await exited;
    },
  };
}
