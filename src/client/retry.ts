/**
 * The client's retry policy, as a pure decision: given a failure and the attempt number, retry
 * after how long, or not at all.
 *
 * Reads (GET, LIST) retry on 429 (honouring Retry-After), on 500/502/503/504, and on a broken
 * or refused connection. Writes retry only when the server cannot have acted on them: a 429
 * (the request was rejected before processing) or a refused connection (it never arrived).
 * A write that failed any other way is never resent: it may have taken effect.
 */
import { ApiError, checkNumber } from "../core/index.ts";
import { isConnectionRefused, isTransportError } from "./transport.ts";

/** Options for the client's retries. */
export interface RetryOptions {
  /**
   * Retries after the first attempt; 0 disables retries.
   * @default 5
   */
  maxRetries?: number;
  /**
   * The first delay when the server gave no Retry-After; doubles per retry, with up to 100 %
   * jitter.
   * @default 200
   */
  initialDelayMs?: number;
  /**
   * The largest delay without Retry-After (before jitter).
   * @default 5000
   */
  maxDelayMs?: number;
  /**
   * Retry-After values above this are cut to it.
   * @default 60000
   */
  maxRetryAfterMs?: number;
}

/** Retry options with every default filled in. */
export type ResolvedRetryOptions = Required<RetryOptions>;

/** Validates `options` and fills in the defaults. */
export function resolveRetryOptions(options: RetryOptions = {}): ResolvedRetryOptions {
  const check = (name: string, value: number) =>
    checkNumber("Client", `retry.${name}`, value, { min: 0, integer: true });
  return {
    maxRetries: check("maxRetries", options.maxRetries ?? 5),
    initialDelayMs: check("initialDelayMs", options.initialDelayMs ?? 200),
    maxDelayMs: check("maxDelayMs", options.maxDelayMs ?? 5_000),
    maxRetryAfterMs: check("maxRetryAfterMs", options.maxRetryAfterMs ?? 60_000),
  };
}

const RETRYABLE_READ_CODES = new Set([429, 500, 502, 503, 504]);

/**
 * How long to wait before retry number `attempt` (0 for the first retry) after `err`, or
 * `undefined` if the request must not be retried.
 *
 * @param idempotent true for GET (and LIST): safe to send again whatever happened.
 * @param random a number in [0, 1) for jitter.
 */
export function retryDelayMs(
  err: unknown,
  attempt: number,
  idempotent: boolean,
  policy: ResolvedRetryOptions,
  random: () => number = Math.random,
): number | undefined {
  if (attempt >= policy.maxRetries) return undefined;
  const exponential = () => {
    const base = Math.min(policy.initialDelayMs * 2 ** attempt, policy.maxDelayMs);
    return base + random() * base;
  };
  if (err instanceof ApiError) {
    const retryable = idempotent ? RETRYABLE_READ_CODES.has(err.code) : err.code === 429;
    if (!retryable) return undefined;
    const after = err.details?.retryAfterSeconds;
    if (after !== undefined) return Math.min(after * 1000, policy.maxRetryAfterMs);
    return exponential();
  }
  if (isConnectionRefused(err)) return exponential();
  if (idempotent && isTransportError(err)) return exponential();
  return undefined;
}
