/**
 * The HTTP(S) transport: undici with a keep-alive connection pool per client, response bodies
 * streamed from its dispatch callbacks (see {@link DispatchedBody}), and header/body timeouts
 * for ordinary requests (watches have no body timeout: the reflector detects a silent watch
 * itself, on its own clock). Streaming requests (watches) are received on a worker thread by
 * default (`streamThread`).
 */
import { Agent, type Dispatcher } from "undici";
import { checkNumber, InvalidOptionError } from "../core/index.ts";
import { DispatchedBody, dispatchedResponse } from "./dispatched-body.ts";
import type { StreamOpen, StreamWorkerConfig } from "./stream-protocol.ts";
import { StreamWorkerClient } from "./stream-worker-client.ts";
import {
  type Transport,
  TransportError,
  type TransportRequest,
  type TransportResponse,
  transportErrorParts,
} from "./transport.ts";

/** Options for {@link HttpTransport}. */
export interface HttpTransportOptions {
  /** The server's base URL: scheme, host, port and an optional path prefix. */
  url: string;
  /** CA certificate(s) to trust (PEM). @default the system's trusted CAs */
  ca?: string | Uint8Array;
  /** Client certificate (PEM) for mutual TLS. */
  cert?: string | Uint8Array;
  /** Client key (PEM) for mutual TLS. */
  key?: string | Uint8Array;
  /** Verify the server's certificate. @default true */
  rejectUnauthorized?: boolean;
  /** TLS server name (SNI) when it differs from the URL's host. */
  servername?: string;
  /**
   * Headers added to every request, typically `Authorization`. Called once per request so that
   * rotating credentials (exec plugins, projected tokens) stay fresh.
   */
  headers?: () => Promise<Record<string, string>> | Record<string, string>;
  /**
   * How long to wait for response headers.
   * @default 60000
   */
  headersTimeoutMs?: number;
  /**
   * How long a non-streaming response body may stay silent before the request fails.
   * @default 60000
   */
  bodyTimeoutMs?: number;
  /**
   * How long an idle keep-alive connection stays open.
   * @default 30000
   */
  keepAliveTimeoutMs?: number;
  /**
   * Where the bodies of streaming requests (watches, streaming lists) are received. `"main"`:
   * on the main thread, like every other request. `"worker"`: on a worker thread the transport
   * starts at its first streaming request — one thread for all its streams, which keeps the
   * process alive only while a stream is open on it. It hands the bytes over in blocks of at
   * most 64 KiB, so the main thread only decodes them: about a third less of its CPU per event
   * of a burst, which a busy main thread (reconciling) gets back where the process has a core
   * to spare. Where it has none (a one-CPU pod; two cores shared with the API server), the
   * worker competes with the main thread and syncs and bursts are no faster (see the README's
   * benchmarks), hence the default. Streams opened while the worker loads (the first one, say)
   * are received on the main thread, and all of them are if the worker cannot start (a bundle
   * without `stream-worker.js`).
   * @default "main"
   */
  streamThread?: "worker" | "main";
}

/** Options as resolved once, in the constructor. */
interface Resolved {
  origin: string;
  basePath: string;
  headers: HttpTransportOptions["headers"];
  headersTimeoutMs: number;
  bodyTimeoutMs: number;
  streamThread: "worker" | "main";
}

/**
 * A {@link Transport} over HTTP/1.1 with keep-alive (undici). The constructor opens nothing;
 * connections are made on the first request and pooled per origin. Connections are not limited
 * in number, because each open watch holds one.
 *
 * Shutdown: {@link close} is graceful (new requests are refused, those in flight — bodies
 * included — finish, then the connections are released), {@link destroy} is abrupt (those in
 * flight fail with its reason). `#closing` is set by the first of either and never cleared;
 * `#destroyed` holds the reason once `destroy` was called, and every failure of a request
 * reports it from then on, whatever undici reports.
 */
export class HttpTransport implements Transport {
  readonly #options: Resolved;
  readonly #agent: Agent;
  readonly #streams: StreamWorkerClient | undefined;
  #closing: Promise<void> | undefined;
  #destroyed: { reason: unknown | undefined } | undefined;
  /** Ends each request in flight on the main thread (undici's destroy does not, after a close). */
  readonly #inFlight = new Set<() => void>();
  /** Resolves once a `destroy` has ended every request and released the connections. */
  readonly #destroyDone = Promise.withResolvers<void>();

  constructor(options: HttpTransportOptions) {
    const owner = "HttpTransport";
    let url: URL;
    try {
      url = new URL(options.url);
    } catch {
      throw new InvalidOptionError(owner, "url", options.url, "must be an absolute URL");
    }
    if (url.protocol !== "http:" && url.protocol !== "https:") {
      throw new InvalidOptionError(owner, "url", options.url, "must be http(s)");
    }
    const ms = (name: string, value: number) =>
      checkNumber(owner, name, value, { min: 0, integer: true });
    this.#options = {
      origin: url.origin,
      basePath: url.pathname.replace(/\/+$/, ""),
      headers: options.headers,
      headersTimeoutMs: ms("headersTimeoutMs", options.headersTimeoutMs ?? 60_000),
      bodyTimeoutMs: ms("bodyTimeoutMs", options.bodyTimeoutMs ?? 60_000),
      streamThread: options.streamThread ?? "main",
    };
    if (this.#options.streamThread !== "worker" && this.#options.streamThread !== "main") {
      throw new InvalidOptionError(
        owner,
        "streamThread",
        options.streamThread,
        'must be "worker" or "main"',
      );
    }
    const tls = {
      ...(options.ca === undefined ? {} : { ca: toTls(options.ca) }),
      ...(options.cert === undefined ? {} : { cert: toTls(options.cert) }),
      ...(options.key === undefined ? {} : { key: toTls(options.key) }),
      ...(options.servername === undefined ? {} : { servername: options.servername }),
      ...(options.rejectUnauthorized === undefined
        ? {}
        : { rejectUnauthorized: options.rejectUnauthorized }),
    };
    const keepAliveTimeoutMs = ms("keepAliveTimeoutMs", options.keepAliveTimeoutMs ?? 30_000);
    this.#agent = new Agent({ keepAliveTimeout: keepAliveTimeoutMs, connect: tls });
    const streamConfig: StreamWorkerConfig = { keepAliveTimeoutMs, connect: tls };
    this.#streams =
      this.#options.streamThread === "worker" ? new StreamWorkerClient(streamConfig) : undefined;
  }

  async request(req: TransportRequest): Promise<TransportResponse> {
    const path = this.#options.basePath + req.path;
    this.#refuseIfClosed(req.method, path);
    req.signal?.throwIfAborted();
    const extra = this.#options.headers === undefined ? undefined : await this.#options.headers();
    this.#refuseIfClosed(req.method, path);
    const headers: Record<string, string> = {
      accept: "application/json",
      "user-agent": "kontroller",
      ...extra,
      ...req.headers,
    };
    const { method, signal } = req;
    // What the caller sees when the request ends with `err`: the signal's reason if it aborted,
    // the destroy reason if the transport was destroyed.
    const fail = (err: unknown) =>
      signal?.aborted
        ? signal.reason
        : this.#destroyed !== undefined
          ? (this.#destroyed.reason ?? destroyedError(method, path))
          : toTransportError(method, path, err);
    const { origin, headersTimeoutMs } = this.#options;
    const sent = req.body ?? null;
    if (req.stream && this.#streams !== undefined) {
      const open: StreamOpen = { origin, method, path, headers, body: sent, headersTimeoutMs };
      const viaWorker = this.#streams.request({ ...open, signal, fail });
      if (viaWorker !== undefined) return viaWorker;
    }
    return new Promise<TransportResponse>((resolve, reject) => {
      let body: DispatchedBody | undefined;
      let controller: Dispatcher.DispatchController | undefined;
      // Ends the request, for its signal or for a destroy (`fail` then says why).
      const abort = (c: Dispatcher.DispatchController) => {
        const reason: unknown = signal?.aborted ? signal.reason : "the transport was destroyed";
        c.abort(reason instanceof Error ? reason : new Error(String(reason)));
      };
      const onAbort = () => {
        if (controller !== undefined) abort(controller);
      };
      const done = () => {
        signal?.removeEventListener("abort", onAbort);
        this.#inFlight.delete(onAbort);
      };
      signal?.addEventListener("abort", onAbort, { once: true });
      this.#inFlight.add(onAbort);
      const destroyed = () => this.#destroyed !== undefined;
      const handler: Dispatcher.DispatchHandler = {
        onRequestStart(c) {
          controller = c;
          if (signal?.aborted || destroyed()) abort(c);
        },
        onResponseStart(c, status, raw) {
          body = new DispatchedBody(c, fail);
          resolve(dispatchedResponse(status, raw, body));
        },
        onResponseData(_c, chunk) {
          body!.push(chunk);
        },
        onResponseEnd() {
          done();
          body!.end();
        },
        onResponseError(_c, err) {
          done();
          if (body === undefined) reject(fail(err));
          else body.end(err);
        },
      };
      try {
        const bodyTimeout = req.stream ? 0 : this.#options.bodyTimeoutMs;
        const headersTimeout = headersTimeoutMs;
        this.#agent.dispatch(
          { origin, path, method, headers, body: sent, headersTimeout, bodyTimeout },
          handler,
        );
      } catch (err) {
        done();
        reject(fail(err));
      }
    });
  }

  /** True when streams opened now are received on the stream worker (it is up and running). */
  get streamsOnWorker(): boolean {
    return this.#streams?.state === "ready";
  }

  /**
   * Starts the stream worker (with `streamThread: "worker"`) and resolves once it takes streams
   * or has failed to start; streams opened after that are received on it. Without this, the
   * first streams are received on the main thread while the worker starts.
   */
  async prepare(): Promise<void> {
    if (this.#closing !== undefined) return;
    await this.#streams?.prepare();
  }

  /**
   * Graceful shutdown: refuses new requests at once, waits for the requests in flight to finish
   * (an open watch is in flight until its body ends: stop informers first, or call
   * {@link destroy}), then releases the connections and the stream worker. Idempotent; resolves
   * early if {@link destroy} is called meanwhile.
   */
  close(): Promise<void> {
    if (this.#closing === undefined) {
      const graceful = Promise.all([this.#agent.close(), this.#streams?.close()]);
      graceful.catch(() => {}); // a destroy meanwhile may fail it; the destroy then settles this
      this.#closing = Promise.race([graceful.then(() => {}), this.#destroyDone.promise]);
    }
    return this.#closing;
  }

  /**
   * Abrupt shutdown: refuses new requests, ends every request in flight — each rejects, or its
   * body fails, with `reason` — and releases the connections and the stream worker. Idempotent:
   * the first reason is the one reported.
   * @param reason what requests in flight fail with; without one, each fails with a
   * {@link TransportError} of code `ERR_CLOSED`.
   */
  async destroy(reason?: unknown): Promise<void> {
    if (this.#destroyed === undefined) {
      this.#destroyed = { reason };
      this.#closing ??= this.#destroyDone.promise;
      for (const end of [...this.#inFlight]) end();
      const error = reason instanceof Error ? reason : new Error("the transport was destroyed");
      await Promise.all([this.#agent.destroy(error), this.#streams?.destroy(reason)]);
      this.#destroyDone.resolve();
    }
    await this.#destroyDone.promise;
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }

  #refuseIfClosed(method: string, path: string): void {
    if (this.#closing === undefined) return;
    const how = this.#destroyed === undefined ? "closed" : "destroyed";
    throw new TransportError(
      method,
      path,
      "ERR_CLOSED",
      `the transport is ${how} and takes no new requests; create a new client`,
    );
  }
}

function toTls(value: string | Uint8Array): string | Buffer {
  return typeof value === "string" ? value : Buffer.from(value);
}

/** What a request in flight fails with when the transport is destroyed with no reason. */
function destroyedError(method: string, path: string): TransportError {
  return new TransportError(method, path, "ERR_CLOSED", "the transport was destroyed");
}

/** Wraps whatever undici or the socket threw, keeping the original as `cause`. */
function toTransportError(method: string, path: string, err: unknown): TransportError {
  if (err instanceof TransportError) return err;
  const { code, message } = transportErrorParts(err);
  return new TransportError(method, path, code, message, { cause: err });
}
