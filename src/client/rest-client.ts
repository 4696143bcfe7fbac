/**
 * The request executor between resource clients and the transport: sends a request, turns a
 * non-2xx answer into an `ApiError`, reads JSON bodies, and retries by the policy of
 * `retry.ts`, waiting on the injected clock.
 */
import { type Clock, isAbortError, realClock, sleep } from "../core/index.ts";
import { DecodeError } from "./decode-error.ts";
import { decodeProtobufBody } from "./protobuf-stream.ts";
import { errorFromResponse } from "./response-error.ts";
import { type ResolvedRetryOptions, retryDelayMs } from "./retry.ts";
import type { Transport, TransportRequest, TransportResponse } from "./transport.ts";

/** Kubernetes protobuf's media type. */
export const PROTOBUF = "application/vnd.kubernetes.protobuf";

/** Shared by every resource client of one {@link Client}. */
export class RestClient {
  readonly transport: Transport;
  readonly clock: Clock;
  readonly retry: ResolvedRetryOptions;
  /** Largest watch line or list item accepted. */
  readonly maxObjectBytes: number;
  /** Ask for (and send) Kubernetes protobuf for the kinds that have it. */
  readonly protobuf: boolean;
  readonly #random: () => number;

  constructor(
    transport: Transport,
    options: {
      clock?: Clock;
      retry: ResolvedRetryOptions;
      maxObjectBytes: number;
      random?: () => number;
      protobuf?: boolean;
    },
  ) {
    this.transport = transport;
    this.clock = options.clock ?? realClock;
    this.retry = options.retry;
    this.maxObjectBytes = options.maxObjectBytes;
    this.protobuf = options.protobuf ?? false;
    this.#random = options.random ?? Math.random;
  }

  /**
   * Sends `req` once; resolves with the response if it is 2xx (its body unread), rejects with
   * the `ApiError` built from it otherwise.
   */
  async send(req: TransportRequest): Promise<TransportResponse> {
    const res = await this.transport.request(req);
    if (res.status >= 200 && res.status < 300) return res;
    throw await errorFromResponse(res, req.method, req.path);
  }

  /**
   * Runs `attempt` until it succeeds or fails in a way the retry policy does not retry, waiting
   * between attempts. `idempotent` is true for reads.
   */
  async withRetries<R>(
    idempotent: boolean,
    signal: AbortSignal | undefined,
    attempt: () => Promise<R>,
  ): Promise<R> {
    for (let n = 0; ; n++) {
      try {
        return await attempt();
      } catch (err) {
        if (signal?.aborted || isAbortError(err)) throw err;
        const delay = retryDelayMs(err, n, idempotent, this.retry, this.#random);
        if (delay === undefined) throw err;
        await sleep(delay, { signal, clock: this.clock });
      }
    }
  }

  /** Sends `req` (with retries as the method allows) and decodes the answer (JSON or protobuf). */
  json<R>(req: TransportRequest): Promise<R> {
    return this.withRetries(req.method === "GET", req.signal, async () => {
      const res = await this.send(req);
      return (await readJson(res, req.method, req.path)) as R;
    });
  }
}

/** Reads a whole (small) body: JSON, or Kubernetes protobuf where the server answered in it. */
export async function readJson(
  res: TransportResponse,
  method: string,
  path: string,
): Promise<unknown> {
  const parts: Buffer[] = [];
  try {
    for await (const chunk of res.body) {
      parts.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk));
    }
  } finally {
    res.discard();
  }
  const bytes = Buffer.concat(parts);
  if (res.header("content-type") === PROTOBUF)
    return decodeProtobufBody(bytes, `${method} ${path}`);
  const text = bytes.toString("utf8");
  try {
    return JSON.parse(text);
  } catch (cause) {
    throw new DecodeError(
      "InvalidJSON",
      `the answer to ${method} ${path} is not valid JSON`,
      text,
      {
        cause,
      },
    );
  }
}
