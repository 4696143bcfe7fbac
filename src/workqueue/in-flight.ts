import type { Entry } from "./entries.ts";

/** Above this many items in flight, `find` uses a `Map` index instead of a scan. */
const INDEX_ABOVE = 16;

/**
 * The entries in flight: handed out, `done` not called yet. Usually a handful (one per busy
 * worker), so they live in an array searched by identity — cheaper than three `Map` operations
 * per item — with a `Map` index built only while more than {@link INDEX_ABOVE} are in flight.
 *
 * Invariants: `#list[e.slot] === e` for every entry held; `#index`, when present, maps each held
 * entry's item to the entry.
 */
export class InFlight<T> {
  readonly #list: Entry<T>[] = [];
  #index: Map<T, Entry<T>> | undefined;

  get size(): number {
    return this.#list.length;
  }

  add(entry: Entry<T>): void {
    entry.slot = this.#list.length;
    this.#list.push(entry);
    if (this.#index !== undefined) this.#index.set(entry.item, entry);
    else if (this.#list.length > INDEX_ABOVE) {
      this.#index = new Map();
      for (const e of this.#list) this.#index.set(e.item, e);
    }
  }

  /** The entry of `item`, if it is in flight. */
  find(item: T): Entry<T> | undefined {
    if (this.#index !== undefined) return this.#index.get(item);
    const list = this.#list;
    for (let i = list.length - 1; i >= 0; i--) {
      const e = list[i]!;
      if (e.item === item) return e;
    }
    return undefined;
  }

  remove(entry: Entry<T>): void {
    const list = this.#list;
    const last = list.pop()!;
    if (last !== entry) {
      list[entry.slot] = last;
      last.slot = entry.slot;
    }
    if (this.#index !== undefined) {
      this.#index.delete(entry.item);
      if (list.length <= INDEX_ABOVE / 4) this.#index = undefined;
    }
  }

  values(): readonly Entry<T>[] {
    return this.#list;
  }
}
