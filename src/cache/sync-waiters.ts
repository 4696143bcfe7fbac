/**
 * The callers waiting for a cache (an informer, or one handler of it) to sync: each waits until
 * the sync, its own signal's abort, or the cache stopping without syncing — so that no caller
 * waits for ever on an informer that will never sync (client-go's WaitForCacheSync returns false
 * when its stop channel closes).
 *
 * Invariant: every waiter is settled exactly once, and leaves the list when it is.
 */
export class SyncWaiters {
  #waiters: { resolve: () => void; reject: (error: unknown) => void }[] = [];

  /** Waiters not yet settled. */
  get size(): number {
    return this.#waiters.length;
  }

  /** A promise settled by {@link resolveAll}, {@link rejectAll} or `signal` (its reason). */
  wait(signal?: AbortSignal): Promise<void> {
    if (signal?.aborted) return Promise.reject(signal.reason);
    return new Promise((resolve, reject) => {
      const onAbort = () => {
        this.#waiters = this.#waiters.filter((w) => w !== waiter);
        reject(signal!.reason);
      };
      const waiter = {
        resolve: () => {
          signal?.removeEventListener("abort", onAbort);
          resolve();
        },
        reject: (error: unknown) => {
          signal?.removeEventListener("abort", onAbort);
          reject(error);
        },
      };
      this.#waiters.push(waiter);
      signal?.addEventListener("abort", onAbort, { once: true });
    });
  }

  /** Resolves every waiter. */
  resolveAll(): void {
    for (const w of this.#take()) w.resolve();
  }

  /** Rejects every waiter with `error`. */
  rejectAll(error: unknown): void {
    for (const w of this.#take()) w.reject(error);
  }

  #take() {
    const waiters = this.#waiters;
    this.#waiters = [];
    return waiters;
  }
}
