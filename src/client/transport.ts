/**
 * The `Transport` seam: how a client reaches an API server. The HTTP transport
 * ({@link HttpTransport}) is the default; tests and embedders may supply their own (an
 * in-process server, a recording fake).
 *
 * A transport moves bytes and nothing else: it does not retry, does not decode Status errors and
 * does not know about resources. Those live in the client above it.
 */

import { errnoCode } from "../core/index.ts";

/** HTTP methods the client uses. */
export type HttpMethod = "GET" | "POST" | "PUT" | "PATCH" | "DELETE";

/** One request, as the client hands it to a transport. */
export interface TransportRequest {
  readonly method: HttpMethod;
  /** The path and query, e.g. `/api/v1/namespaces/default/configmaps?limit=500`. */
  readonly path: string;
  readonly headers?: Readonly<Record<string, string>>;
  readonly body?: string | Uint8Array;
  /** Aborting cancels the request, or the body stream if the response has arrived. */
  readonly signal?: AbortSignal;
  /**
   * True for a long-lived response (a watch): the transport must not time out the body while
   * it is silent. The caller detects a dead stream itself.
   * @default false
   */
  readonly stream?: boolean;
}

/**
 * A response whose body is still on the wire. The caller must either read `body` to its end,
 * stop iterating it (`break`, `return()`), or call `discard()`; any of these releases the
 * connection.
 */
export interface TransportResponse {
  readonly status: number;
  /** A response header by lowercase name; repeated headers are joined with `, `. */
  header(name: string): string | undefined;
  /**
   * The body, chunk by chunk as it arrives. Iterating rejects with a {@link TransportError}
   * (code `ECONNRESET`, `UND_ERR_SOCKET`, …) if the connection breaks mid-body, and with the
   * signal's reason if the request's signal aborts.
   */
  readonly body: AsyncIterable<Uint8Array>;
  /** Drops the rest of the body and releases the connection. Idempotent. */
  discard(): void;
}

/** How the client reaches a server. */
export interface Transport {
  /**
   * Sends a request and resolves when the response headers have arrived. Rejects with a
   * {@link TransportError} if no response arrives (refused, reset, TLS failure, timeout), or
   * with `signal.reason` if the signal aborts first.
   */
  request(request: TransportRequest): Promise<TransportResponse>;
  /**
   * Readies what streaming requests use, so that the streams opened once it resolves have it
   * (the HTTP transport starts its stream worker). Optional; never rejects.
   */
  prepare?(): Promise<void>;
  /**
   * Graceful shutdown: refuses new requests (they reject with a {@link TransportError} of code
   * `ERR_CLOSED`), waits for the requests in flight to finish — a response is in flight until
   * its body has arrived, so an open watch holds `close()` until it ends: stop informers first,
   * or call {@link destroy} — then releases the connections. Idempotent.
   */
  close(): Promise<void>;
  /**
   * Abrupt shutdown: refuses new requests as {@link close} does, and ends the requests in flight
   * at once: each rejects, or its body fails, with `reason` (without one, with a
   * {@link TransportError} of code `ERR_CLOSED`); then releases the connections. Idempotent.
   */
  destroy(reason?: unknown): Promise<void>;
}

/**
 * A request that got no HTTP response, or whose body broke off: the connection was refused or
 * reset, TLS failed, or a transport timeout fired. `code` is the system or undici error code
 * (`ECONNREFUSED`, `ECONNRESET`, `UND_ERR_SOCKET`, `UND_ERR_HEADERS_TIMEOUT`, …).
 */
export class TransportError extends Error {
  readonly code: string;
  readonly method: string;
  readonly path: string;

  constructor(method: string, path: string, code: string, message: string, options?: ErrorOptions) {
    super(`${method} ${path}: ${message}`, options);
    this.name = "TransportError";
    this.code = code;
    this.method = method;
    this.path = path;
  }
}

/** Codes that mean the request was never delivered to the server. */
const NOT_DELIVERED = new Set(["ECONNREFUSED", "ENOTFOUND", "EAI_AGAIN", "EHOSTUNREACH"]);

/**
 * True if `err` says the server was not reached at all (connection refused, name not
 * resolved), so the request had no effect and may be sent again, even a write.
 */
export function isConnectionRefused(err: unknown): boolean {
  return err instanceof TransportError && NOT_DELIVERED.has(err.code);
}

/** True if `err` is a {@link TransportError}: no response, or a body that broke off. */
export function isTransportError(err: unknown): err is TransportError {
  return err instanceof TransportError;
}

/**
 * The code and message a {@link TransportError} carries for whatever undici or the socket
 * threw: a system code (`ECONNRESET`), undici's own (`UND_ERR_SOCKET`), or for the few errors
 * that carry only a name (a body cut by an early EOF: `HTTPParserError`), the name.
 */
export function transportErrorParts(err: unknown): { code: string; message: string } {
  const first = hasField(err, "errors") && Array.isArray(err.errors) ? err.errors[0] : undefined;
  const name = hasField(err, "name") && typeof err.name === "string" ? err.name : "Error";
  const code = errnoCode(err) ?? errnoCode(first) ?? (name !== "Error" ? name : "UNKNOWN");
  const message = hasField(err, "message") && typeof err.message === "string" ? err.message : "";
  return { code, message: message !== "" ? message : code };
}

function hasField<K extends string>(value: unknown, key: K): value is Record<K, unknown> {
  return typeof value === "object" && value !== null && key in value;
}
