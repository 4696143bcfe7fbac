import { type Clock, realClock } from "./clock.ts";

/** Options of a call that can wait. */
export interface WaitOptions {
  /** Aborting rejects the wait with `signal.reason`. */
  signal?: AbortSignal;
  /** @default realClock */
  clock?: Clock;
}

/**
 * Resolves after `ms` on the clock; rejects with `signal.reason` as soon as the signal aborts
 * (at once if it already has). Leaves no timer and no listener behind either way.
 */
export function sleep(ms: number, options: WaitOptions = {}): Promise<void> {
  const { signal, clock = realClock } = options;
  if (signal?.aborted) return Promise.reject(signal.reason);
  return new Promise<void>((resolve, reject) => {
    const onAbort = () => {
      cancel();
      reject(signal!.reason);
    };
    const cancel = clock.setTimer(ms, () => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    });
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

/**
 * Settles like `promise`, or rejects with `signal.reason` if the signal aborts first. The
 * promise itself is not cancelled (its eventual rejection is swallowed); the listener is removed
 * either way.
 */
export function raceAbort<T>(promise: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (signal === undefined) return promise;
  if (signal.aborted) {
    promise.catch(() => {});
    return Promise.reject(signal.reason);
  }
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => {
      promise.catch(() => {});
      reject(signal.reason);
    };
    signal.addEventListener("abort", onAbort, { once: true });
    promise.then(
      (v) => {
        signal.removeEventListener("abort", onAbort);
        resolve(v);
      },
      (e: unknown) => {
        signal.removeEventListener("abort", onAbort);
        reject(e);
      },
    );
  });
}

/** True if `err` is what an aborted signal rejects with by default (`AbortError`/`TimeoutError`). */
export function isAbortError(err: unknown): boolean {
  return err instanceof Error && (err.name === "AbortError" || err.name === "TimeoutError");
}
