/** A stream worker that comes up, answers the first request's head, then crashes. */
import { parentPort } from "node:worker_threads";
import type { FromWorker, ToWorker } from "./stream-protocol.ts";

const post = (m: FromWorker) => parentPort!.postMessage(m);
parentPort!.on("message", (m: ToWorker) => {
  if (m.type !== "open") return;
  post({ type: "head", id: m.id, status: 200, headers: {} });
  const bytes = new TextEncoder().encode("partial").buffer as ArrayBuffer;
  post({ type: "data", id: m.id, bytes, last: true });
  setImmediate(() => {
    throw new Error("the worker crashed");
  });
});
post({ type: "ready", id: 0 });
