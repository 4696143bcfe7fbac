/**
 * The main thread's side of an {@link HttpTransport}'s stream worker (`stream-worker.ts`): starts
 * the worker on the first streaming request, sends it requests, and turns its messages into
 * responses whose bodies are {@link DispatchedBody}s fed from the worker.
 */
import { Worker } from "node:worker_threads";
import { type BodyFlow, DispatchedBody, dispatchedResponse } from "./dispatched-body.ts";
import type {
  FromWorker,
  StreamOpen,
  StreamWorkerConfig,
  ToWorker,
  WorkerError,
} from "./stream-protocol.ts";
import { TransportError, type TransportResponse } from "./transport.ts";

/** A streaming request, as the transport hands it over (headers resolved). */
export interface StreamRequest extends StreamOpen {
  readonly signal: AbortSignal | undefined;
  /** Turns the error the request or its body ended with into what the caller sees. */
  readonly fail: (error: unknown) => unknown;
}

/** A request the worker has: waiting for its head (`settle` set), then its body. */
interface Open {
  readonly request: StreamRequest;
  settle: { resolve(res: TransportResponse): void; reject(err: unknown): void } | undefined;
  body: DispatchedBody | undefined;
  /** For each chunk in the body's queue, in order: whether taking it gives the credit back. */
  readonly lasts: boolean[];
  readonly onAbort: () => void;
}

/** The worker module next to this one, as built (`.js`) or as source (`.ts`). */
const WORKER_URL = new URL(
  import.meta.url.endsWith(".ts") ? "./stream-worker.ts" : "./stream-worker.js",
  import.meta.url,
);

/** Where the worker is: none yet, loading, taking requests, or unable to start here. */
type State = "none" | "starting" | "ready" | "unavailable";

/**
 * Runs streaming requests on one worker thread.
 *
 * The worker is started by the first {@link request}, which (like every request made while the
 * worker loads) is not taken: the caller sends it on the main thread, so no stream waits for a
 * thread to start. A worker that cannot start (its module cannot be loaded, say in a bundle that
 * left it out) makes the state `unavailable` for good, and every stream stays on the main thread.
 *
 * Invariants: `#open` holds every request the worker may still send messages for, and a ready
 * worker is referenced (keeps the process alive) exactly while it is not empty, as the sockets
 * of those requests would on the main thread (a starting one is, until it is ready or failed).
 * A request leaves `#open` when it ends, fails, is aborted or discarded, and the worker is told
 * to drop it unless it ended there. A running worker that fails or exits fails every open
 * request with a `TransportError` (code `ERR_STREAM_WORKER`); the next request starts a new one.
 */
export class StreamWorkerClient {
  readonly #config: StreamWorkerConfig;
  readonly #url: URL;
  #worker: Worker | undefined;
  #state: State = "none";
  readonly #open = new Map<number, Open>();
  #nextId = 1;
  #started: Promise<State> | undefined;
  #settleStart: ((state: State) => void) | undefined;
  /** Who waits for `#open` to be empty (a graceful close). */
  #idle: (() => void)[] = [];

  /**
   * @param config the agent options the worker's connections use.
   * @param url the worker's module (tests give another one).
   */
  constructor(config: StreamWorkerConfig, url: URL = WORKER_URL) {
    this.#config = config;
    this.#url = url;
  }

  /** Where the worker is (for tests and diagnostics). */
  get state(): State {
    return this.#state;
  }

  /** Starts the worker unless it runs (or cannot); resolves as {@link whenStarted}. */
  prepare(): Promise<State> {
    if (this.#state === "none") this.#start();
    return this.whenStarted();
  }

  /** Resolves with the state once a worker being started is ready or has failed to start. */
  whenStarted(): Promise<State> {
    return this.#state === "starting" ? this.#started! : Promise.resolve(this.#state);
  }

  /**
   * Sends `request` through the worker, resolving when its head arrives; or, while the worker is
   * not running (it is then started, unless it cannot be), returns `undefined`: the caller
   * sends the request itself.
   */
  request(request: StreamRequest): Promise<TransportResponse> | undefined {
    if (this.#state !== "ready") {
      if (this.#state === "none") this.#start();
      return undefined;
    }
    const { method, path, signal } = request;
    if (signal?.aborted) return Promise.reject(signal.reason);
    const worker = this.#worker!;
    const id = this.#nextId++;
    return new Promise<TransportResponse>((resolve, reject) => {
      const onAbort = () => this.#drop(id, signal!.reason);
      this.#open.set(id, {
        request,
        settle: { resolve, reject },
        body: undefined,
        lasts: [],
        onAbort,
      });
      if (this.#open.size === 1) worker.ref();
      signal?.addEventListener("abort", onAbort, { once: true });
      this.#post({
        type: "open",
        id,
        origin: request.origin,
        method,
        path,
        headers: request.headers,
        body: request.body,
        headersTimeoutMs: request.headersTimeoutMs,
      });
    });
  }

  /**
   * Takes no new request, waits for the open ones to end, then stops the worker. Idempotent;
   * resolves early if {@link destroy} is called meanwhile.
   */
  async close(): Promise<void> {
    this.#setState("unavailable");
    if (this.#open.size > 0) await new Promise<void>((resolve) => this.#idle.push(resolve));
    await this.#stop();
  }

  /**
   * Takes no new request, fails the open ones with `reason` (by default a `TransportError` with
   * code `ERR_CLOSED`) and stops the worker. Idempotent.
   */
  async destroy(reason?: unknown): Promise<void> {
    this.#setState("unavailable");
    for (const [id, open] of [...this.#open]) {
      this.#forget(id, open);
      const why =
        reason ?? this.#error(open, { code: "ERR_CLOSED", message: "the transport is closed" });
      this.#finish(open, why);
    }
    await this.#stop();
  }

  async #stop(): Promise<void> {
    const worker = this.#worker;
    this.#worker = undefined;
    await worker?.terminate();
  }

  #start(): void {
    // No execArgv of the parent's: per-process flags are refused in workers, and the worker
    // needs none.
    const worker = new Worker(this.#url, { workerData: this.#config, execArgv: [] });
    this.#worker = worker;
    this.#state = "starting";
    this.#started = new Promise((resolve) => {
      this.#settleStart = resolve;
    });
    const failed = (why: string) => {
      if (this.#worker !== worker) return;
      this.#worker = undefined;
      // One that never came up will not come up next time either.
      this.#setState(this.#state === "starting" ? "unavailable" : "none");
      this.#failAll("ERR_STREAM_WORKER", why);
      void worker.terminate();
    };
    worker.on("message", (m: FromWorker) => this.#received(m));
    worker.on("error", (err) => failed(`the stream worker failed: ${err.message}`));
    worker.on("exit", (code) => failed(`the stream worker exited (code ${code})`));
  }

  #received(m: FromWorker): void {
    if (m.type === "ready") {
      if (this.#state !== "starting") return;
      this.#setState("ready");
      this.#worker!.unref(); // no stream is open yet
      return;
    }
    const open = this.#open.get(m.id);
    if (open === undefined) return; // dropped here; the worker had not heard yet
    switch (m.type) {
      case "head": {
        const id = m.id;
        const flow: BodyFlow = {
          paused: false,
          pause() {},
          resume() {},
          abort: () => this.#drop(id, undefined),
        };
        const body = new DispatchedBody(flow, open.request.fail, () => {
          if (open.lasts.shift()) this.#post({ type: "taken", id });
        });
        open.body = body;
        open.settle!.resolve(dispatchedResponse(m.status, m.headers, body));
        open.settle = undefined;
        return;
      }
      case "data":
        open.lasts.push(m.last);
        open.body!.push(Buffer.from(m.bytes));
        return;
      case "end":
        this.#forget(m.id, open);
        this.#finish(open, m.error === undefined ? undefined : this.#error(open, m.error));
        return;
    }
  }

  /**
   * The caller is done with request `id` (aborted with `reason`, or discarded with none): it
   * fails or ends here at once, and the worker is told to drop it.
   */
  #drop(id: number, reason: unknown): void {
    const open = this.#open.get(id);
    if (open === undefined) return;
    this.#forget(id, open);
    this.#post({ type: "abort", id });
    if (reason !== undefined) this.#finish(open, reason);
  }

  /** Ends a request that left `#open`: rejects it before its head, ends its body after. */
  #finish(open: Open, error: unknown): void {
    if (open.settle !== undefined) {
      open.settle.reject(open.request.fail(error));
      open.settle = undefined;
    } else {
      open.body!.end(error);
    }
  }

  #forget(id: number, open: Open): void {
    this.#open.delete(id);
    open.request.signal?.removeEventListener("abort", open.onAbort);
    if (this.#open.size > 0) return;
    this.#worker?.unref();
    for (const resolve of this.#idle.splice(0)) resolve();
  }

  #failAll(code: string, message: string): void {
    for (const [id, open] of [...this.#open]) {
      this.#forget(id, open);
      this.#finish(open, this.#error(open, { code, message }));
    }
  }

  #error(open: Open, e: WorkerError): TransportError {
    return new TransportError(open.request.method, open.request.path, e.code, e.message);
  }

  #setState(state: State): void {
    this.#state = state;
    this.#settleStart?.(state);
    this.#settleStart = undefined;
  }

  #post(message: ToWorker): void {
    this.#worker?.postMessage(message);
  }
}
