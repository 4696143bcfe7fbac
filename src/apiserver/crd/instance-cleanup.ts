import { FieldSelector, isNotFound, LabelSelector } from "../../core/index.ts";
import type { Store } from "../registry/store.ts";
import type { CacheWatcher } from "../watchcache/cache-watcher.ts";

const ALL = { label: LabelSelector.everything(), field: FieldSelector.everything() };

/**
 * Deletes the custom resources of a terminating CRD and waits for them to be gone, as
 * apiextensions-apiserver's finalizer controller does: each is deleted through its store, so
 * its own finalizers hold it (marked, with a deletionTimestamp) until its controller removes
 * them, and `onEmpty` runs once nothing is left — whenever that is.
 *
 * Invariant: the wake-up watch is registered before emptiness is first checked, so the last
 * deletion cannot fall between the check and the watch.
 */
export class InstanceCleanup {
  readonly #store: Store;
  readonly #onEmpty: () => Promise<void>;
  #watcher: CacheWatcher | undefined;
  #done = false;

  constructor(store: Store, onEmpty: () => Promise<void>) {
    this.#store = store;
    this.#onEmpty = onEmpty;
  }

  /** Issues the deletes and starts waiting. Resolves once the deletes are issued. */
  async start(): Promise<void> {
    const store = this.#store;
    const cache = store.cache;
    for (const e of cache.list(ALL).entries) {
      const meta = e.object.metadata ?? {};
      try {
        await store.delete(meta.namespace ?? "", meta.name ?? "");
      } catch (err) {
        if (!isNotFound(err)) throw err;
      }
    }
    // Deletes the cache has not applied yet come after this start: they wake the watch.
    this.#watcher = store.watch({ filter: ALL, startRv: cache.resourceVersion });
    void this.#wait(this.#watcher);
  }

  /** False once it has finished (or was closed): a new cleanup is needed to try again. */
  get active(): boolean {
    return !this.#done;
  }

  /** Stops waiting (the CRD went, or the server closes). */
  close(): void {
    this.#done = true;
    this.#watcher?.close("terminated");
  }

  async #wait(watcher: CacheWatcher): Promise<void> {
    if (await this.#finishIfEmpty()) return;
    for await (const _ of watcher) {
      if (await this.#finishIfEmpty()) return;
    }
  }

  async #finishIfEmpty(): Promise<boolean> {
    if (this.#done) return true;
    if (this.#store.cache.list(ALL).entries.length > 0) return false;
    this.#done = true;
    this.#watcher?.close("terminated");
    try {
      await this.#onEmpty();
    } catch {
      // Storage failed: inactive now, so the CRD's next event starts a new cleanup.
    }
    return true;
  }
}
