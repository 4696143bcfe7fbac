/**
 * What a reflector reports when a list or watch fails, and the errors it makes up itself (a
 * dead watch, a watch that closes at once).
 */
import { ApiError } from "../core/index.ts";

/** What the reflector was doing when something failed. */
export type ReflectorPhase = "list" | "watch" | "watch-list";

/** What the reflector does about it. */
export type ReflectorRecovery =
  /** Watch again from the last resourceVersion. */
  | "rewatch"
  /** List (or stream-list) again, then watch. */
  | "relist"
  /** The streaming list failed: list with pages instead, in this cycle. */
  | "fallback-to-list";

/** One failure, as the reflector reports it to `onWatchError` and to metrics. */
export interface ReflectorFailure {
  /** The reflector's name (its resource, namespace and selectors). */
  readonly reflector: string;
  readonly phase: ReflectorPhase;
  /** The error: an `ApiError`, `TransportError`, `DecodeError`, {@link WatchIdleError}, … */
  readonly error: unknown;
  readonly recovery: ReflectorRecovery;
  /** How long the reflector waits before recovering (0: at once). */
  readonly delayMs: number;
}

/**
 * A streaming list delivered nothing for `silentMs` and no initial-events-end bookmark. A server
 * that does streaming lists sends that bookmark right after the initial events (kube within
 * about a second); one that ignores `sendInitialEvents` (kube's own refuse it with 422 when they
 * cannot) never does, and would hold the sync until the idle timeout, or for as long as events
 * keep coming. The reflector lists instead.
 */
export class InitialEventsTimeoutError extends Error {
  readonly silentMs: number;

  constructor(silentMs: number) {
    super(
      `the streaming list was silent for ${silentMs} ms without its initial-events-end bookmark; listing instead`,
    );
    this.name = "InitialEventsTimeoutError";
    this.silentMs = silentMs;
  }
}

/** The watch delivered no event and no bookmark for `idleMs`: presumed dead and replaced. */
export class WatchIdleError extends Error {
  readonly idleMs: number;

  constructor(idleMs: number) {
    super(`the watch was silent for ${idleMs} ms (no event, no bookmark); reconnecting`);
    this.name = "WatchIdleError";
    this.idleMs = idleMs;
  }
}

/**
 * The watch closed within `shortWatchMs` without delivering anything: treated as a failure so
 * that a proxy or server that closes every stream at once does not cause a hot loop.
 */
export class ShortWatchError extends Error {
  constructor(durationMs: number) {
    super(`the watch closed after ${durationMs} ms without any event; backing off`);
    this.name = "ShortWatchError";
  }
}

/** 504 Timeout with cause `ResourceVersionTooLarge`: the server is behind the requested RV. */
export function isResourceVersionTooLarge(err: unknown): boolean {
  if (!(err instanceof ApiError)) return false;
  if (err.details?.causes?.some((c) => c.reason === "ResourceVersionTooLarge")) return true;
  return /too large resource version/i.test(err.message);
}
