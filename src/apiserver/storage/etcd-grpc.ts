import {
  type ClientHttp2Session,
  type ClientHttp2Stream,
  connect,
  constants,
  type IncomingHttpHeaders,
} from "node:http2";
import { Reader } from "./etcd-proto.ts";

/** gRPC status names by code, for error messages in grpc's own format ("14 UNAVAILABLE: …"). */
const STATUS = [
  "OK",
  "CANCELLED",
  "UNKNOWN",
  "INVALID_ARGUMENT",
  "DEADLINE_EXCEEDED",
  "NOT_FOUND",
  "ALREADY_EXISTS",
  "PERMISSION_DENIED",
  "RESOURCE_EXHAUSTED",
  "FAILED_PRECONDITION",
  "ABORTED",
  "OUT_OF_RANGE",
  "UNIMPLEMENTED",
  "INTERNAL",
  "UNAVAILABLE",
  "DATA_LOSS",
  "UNAUTHENTICATED",
];

/** An HTTP/2 stream window for large lists (the default 64 KiB makes them crawl). */
const WINDOW = 1 << 24;

/**
 * Unary gRPC calls over one HTTP/2 connection, with nothing else: no interceptors, retries,
 * load balancing or per-call channel machinery — 2.4× less CPU per etcd call than grpc-js,
 * which an API server pays on every write. Failures are errors whose message reads like
 * grpc's ("14 UNAVAILABLE: …", "11 OUT_OF_RANGE: etcdserver: …").
 *
 * Invariant: `#session` is the open (or opening) connection; one that fails or closes is
 * dropped, and the next call opens a new one — to the next endpoint after a failure.
 */
export class GrpcUnaryClient {
  readonly #endpoints: readonly string[];
  readonly #timeoutMs: number;
  #session: ClientHttp2Session | undefined;
  #next = 0;
  #closed = false;

  constructor(endpoints: readonly string[], timeoutMs: number) {
    this.#endpoints = endpoints;
    this.#timeoutMs = timeoutMs;
  }

  /** Calls `path` (`/package.Service/Method`) with one message; resolves with the reply's. */
  call(path: string, message: Buffer): Promise<Reader> {
    return new Promise<Reader>((resolve, reject) => {
      let stream: ClientHttp2Stream;
      try {
        stream = this.#open().request(
          { ":method": "POST", ":path": path, "content-type": "application/grpc", te: "trailers" },
          { endStream: false },
        );
      } catch (err) {
        reject(unavailable(err));
        return;
      }
      const chunks: Buffer[] = [];
      let status: number | undefined;
      let detail = "";
      let failure: Error | undefined;
      const onHeaders = (h: IncomingHttpHeaders) => {
        const s = h["grpc-status"];
        if (s === undefined) return;
        status = Number(s);
        detail = decodeURIComponent(String(h["grpc-message"] ?? ""));
      };
      stream.on("response", onHeaders);
      stream.on("trailers", onHeaders);
      stream.on("data", (chunk: Buffer) => chunks.push(chunk));
      stream.setTimeout(this.#timeoutMs, () => {
        failure = new Error(
          `4 DEADLINE_EXCEEDED: etcd did not answer within ${this.#timeoutMs} ms`,
        );
        stream.close(constants.NGHTTP2_CANCEL);
      });
      stream.on("error", (err) => {
        failure ??= unavailable(err);
      });
      stream.on("close", () => {
        if (failure !== undefined) reject(failure);
        else if (status === undefined) reject(unavailable("the reply ended without a status"));
        else if (status !== 0)
          reject(new Error(`${status} ${STATUS[status] ?? "UNKNOWN"}: ${detail}`));
        else {
          try {
            resolve(unframe(chunks));
          } catch (err) {
            reject(err);
          }
        }
      });
      const frame = Buffer.allocUnsafe(5 + message.length);
      frame[0] = 0; // not compressed
      frame.writeUInt32BE(message.length, 1);
      message.copy(frame, 5);
      stream.end(frame);
    });
  }

  /** Closes the connection; calls after this fail. Idempotent. */
  close(): void {
    this.#closed = true;
    this.#session?.close();
    this.#session = undefined;
  }

  #open(): ClientHttp2Session {
    if (this.#closed) throw new Error("the etcd client is closed");
    const open = this.#session;
    if (open !== undefined && !open.closed && !open.destroyed) return open;
    const endpoint = this.#endpoints[this.#next % this.#endpoints.length]!;
    const session = connect(endpoint, {
      settings: { enablePush: false, initialWindowSize: WINDOW },
    });
    const drop = (failed: boolean) => {
      if (this.#session !== session) return;
      this.#session = undefined;
      if (failed) this.#next++;
    };
    session.on("error", () => drop(true));
    session.on("goaway", () => drop(false));
    session.on("close", () => drop(false));
    session.once("connect", () => session.setLocalWindowSize(WINDOW * 4));
    this.#session = session;
    return session;
  }
}

/** The one message of a reply (gRPC framing: flag byte, 4-byte length, message). */
function unframe(chunks: Buffer[]): Reader {
  const body = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks);
  if (body.length < 5) throw new Error("13 INTERNAL: etcd's reply has no message");
  const length = body.readUInt32BE(1);
  return new Reader(body, 5, 5 + length);
}

function unavailable(cause: unknown): Error {
  const message = cause instanceof Error ? cause.message : String(cause);
  return new Error(`14 UNAVAILABLE: ${message}`);
}
