/**
 * The HTTP(S) transport: undici with a keep-alive connection pool per client, response bodies
 * streamed from its dispatch callbacks (see {@link DispatchedBody}), and header/body timeouts for ordinary requests (watches have no body
 * timeout: the reflector detects a silent watch itself, on its own clock).
 */
import { Agent, type Dispatcher } from "undici";
import { checkNumber } from "../core/index.ts";
import { DispatchedBody } from "./dispatched-body.ts";
import {
  type Transport,
  TransportError,
  type TransportRequest,
  type TransportResponse,
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
}

/** Options as resolved once, in the constructor. */
interface Resolved {
  origin: string;
  basePath: string;
  headers: HttpTransportOptions["headers"];
  headersTimeoutMs: number;
  bodyTimeoutMs: number;
}

/**
 * A {@link Transport} over HTTP/1.1 with keep-alive (undici). The constructor opens nothing;
 * connections are made on the first request and pooled per origin. Connections are not limited
 * in number, because each open watch holds one.
 */
export class HttpTransport implements Transport {
  readonly #options: Resolved;
  readonly #agent: Agent;
  #closed = false;

  constructor(options: HttpTransportOptions) {
    const owner = "HttpTransport";
    let url: URL;
    try {
      url = new URL(options.url);
    } catch (cause) {
      throw new TypeError(`${owner}: option url must be an absolute URL, got ${options.url}`, {
        cause,
      });
    }
    if (url.protocol !== "http:" && url.protocol !== "https:") {
      throw new TypeError(`${owner}: option url must be http(s), got ${options.url}`);
    }
    const ms = (name: string, value: number) =>
      checkNumber(owner, name, value, { min: 0, integer: true });
    this.#options = {
      origin: url.origin,
      basePath: url.pathname.replace(/\/+$/, ""),
      headers: options.headers,
      headersTimeoutMs: ms("headersTimeoutMs", options.headersTimeoutMs ?? 60_000),
      bodyTimeoutMs: ms("bodyTimeoutMs", options.bodyTimeoutMs ?? 60_000),
    };
    const tls = {
      ...(options.ca === undefined ? {} : { ca: toTls(options.ca) }),
      ...(options.cert === undefined ? {} : { cert: toTls(options.cert) }),
      ...(options.key === undefined ? {} : { key: toTls(options.key) }),
      ...(options.servername === undefined ? {} : { servername: options.servername }),
      ...(options.rejectUnauthorized === undefined
        ? {}
        : { rejectUnauthorized: options.rejectUnauthorized }),
    };
    this.#agent = new Agent({
      keepAliveTimeout: ms("keepAliveTimeoutMs", options.keepAliveTimeoutMs ?? 30_000),
      connect: tls,
    });
  }

  async request(req: TransportRequest): Promise<TransportResponse> {
    const path = this.#options.basePath + req.path;
    if (this.#closed) {
      throw new TransportError(req.method, path, "ERR_CLOSED", "the transport is closed");
    }
    req.signal?.throwIfAborted();
    const extra = this.#options.headers === undefined ? undefined : await this.#options.headers();
    const headers: Record<string, string> = {
      accept: "application/json",
      "user-agent": "kontroller",
      ...extra,
      ...req.headers,
    };
    const { method, signal } = req;
    // What the caller sees when the request ends with `err`: the signal's reason if it aborted.
    const fail = (err: unknown) =>
      signal?.aborted ? signal.reason : toTransportError(method, path, err);
    return new Promise<TransportResponse>((resolve, reject) => {
      let body: DispatchedBody | undefined;
      let controller: Dispatcher.DispatchController | undefined;
      const abort = (c: Dispatcher.DispatchController) => {
        const reason: unknown = signal!.reason;
        c.abort(reason instanceof Error ? reason : new Error(String(reason)));
      };
      const onAbort = () => {
        if (controller !== undefined) abort(controller);
      };
      const done = () => signal?.removeEventListener("abort", onAbort);
      signal?.addEventListener("abort", onAbort, { once: true });
      const handler: Dispatcher.DispatchHandler = {
        onRequestStart(c) {
          controller = c;
          if (signal?.aborted) abort(c);
        },
        onResponseStart(c, status, raw) {
          body = new DispatchedBody(c, fail);
          const b = body;
          resolve({
            status,
            header(name) {
              const v = raw[name];
              return Array.isArray(v) ? v.join(", ") : v;
            },
            body: b,
            discard: () => b.discard(),
          });
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
        this.#agent.dispatch(
          {
            origin: this.#options.origin,
            path,
            method,
            headers,
            body: req.body ?? null,
            headersTimeout: this.#options.headersTimeoutMs,
            bodyTimeout: req.stream ? 0 : this.#options.bodyTimeoutMs,
          },
          handler,
        );
      } catch (err) {
        done();
        reject(fail(err));
      }
    });
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await this.#agent.destroy();
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }
}

function toTls(value: string | Uint8Array): string | Buffer {
  return typeof value === "string" ? value : Buffer.from(value);
}

/** Wraps whatever undici or the socket threw, keeping the original as `cause`. */
function toTransportError(method: string, path: string, err: unknown): TransportError {
  if (err instanceof TransportError) return err;
  const e = err as {
    code?: unknown;
    message?: unknown;
    name?: unknown;
    errors?: { code?: unknown }[];
  };
  // Socket errors carry a system code; undici's own errors an UND_ERR_* code; a few (a body cut
  // by an early EOF: HTTPParserError) only a name.
  const code =
    typeof e?.code === "string"
      ? e.code
      : typeof e?.errors?.[0]?.code === "string"
        ? e.errors[0].code
        : typeof e?.name === "string" && e.name !== "Error"
          ? e.name
          : "UNKNOWN";
  const message = typeof e?.message === "string" && e.message !== "" ? e.message : code;
  return new TransportError(method, path, code, message, { cause: err });
}
