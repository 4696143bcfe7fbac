/**
 * The stream worker: the thread on which an {@link HttpTransport} receives the bodies of its
 * streaming requests (watches, streaming lists). Receiving costs the thread that does it about
 * 70 µs per 64 KiB socket read (the read, HTTP framing, undici's callbacks) — a fifth of what
 * an informer spends on a 1 KiB object — so taking it off the main thread leaves that thread to
 * parse and handle events. Started by `StreamWorkerClient`; see `stream-protocol.ts` for the
 * messages and the credit-based flow control.
 */
import { parentPort, workerData } from "node:worker_threads";
import { Agent, type Dispatcher } from "undici";
import type { FromWorker, StreamWorkerConfig, ToWorker } from "./stream-protocol.ts";
import { WorkerStream } from "./worker-stream.ts";

const port = parentPort!;
const config = workerData as StreamWorkerConfig;
/** PEM given as bytes arrives as a Uint8Array (a Buffer does not survive the clone). */
const pem = (v: string | Uint8Array | undefined) =>
  v === undefined || typeof v === "string" ? v : Buffer.from(v.buffer, v.byteOffset, v.byteLength);
const { ca, cert, key, ...rest } = config.connect;
const agent = new Agent({
  keepAliveTimeout: config.keepAliveTimeoutMs,
  connect: {
    ...rest,
    ...(ca === undefined ? {} : { ca: pem(ca) }),
    ...(cert === undefined ? {} : { cert: pem(cert) }),
    ...(key === undefined ? {} : { key: pem(key) }),
  },
});

function post(message: FromWorker, transfer?: ArrayBuffer[]): void {
  port.postMessage(message, transfer);
}

const streams = new Map<number, WorkerStream>();

function open(m: Extract<ToWorker, { type: "open" }>): void {
  const stream = new WorkerStream(m.id, post, () => streams.delete(m.id));
  streams.set(m.id, stream);
  const handler: Dispatcher.DispatchHandler = {
    onRequestStart(c) {
      stream.started(c);
    },
    onResponseStart(_c, status, headers) {
      post({ type: "head", id: m.id, status, headers: { ...headers } });
    },
    onResponseData(_c, chunk) {
      stream.data(chunk);
    },
    onResponseEnd() {
      stream.end();
    },
    onResponseError(_c, err) {
      // Before the head, the main thread fails the request with it; after, the body.
      stream.end(err);
    },
  };
  try {
    agent.dispatch(
      {
        origin: m.origin,
        path: m.path,
        method: m.method as Dispatcher.HttpMethod,
        headers: m.headers,
        body: m.body,
        headersTimeout: m.headersTimeoutMs,
        bodyTimeout: 0,
      },
      handler,
    );
  } catch (err) {
    stream.end(err);
  }
}

port.on("message", (m: ToWorker) => {
  switch (m.type) {
    case "open":
      open(m);
      return;
    case "taken":
      streams.get(m.id)?.taken();
      return;
    case "abort":
      streams.get(m.id)?.abort();
      return;
  }
});

post({ type: "ready", id: 0 });
