import { InvalidOptionError } from "../core/index.ts";
import { RingBuffer } from "../core/internal.ts";
import type { QueueStrategy } from "./strategy.ts";

/** Options for {@link FairStrategy}. */
export interface FairStrategyOptions<T> {
  /**
   * The tenant an item belongs to, for example its namespace: `(key) => key.split("/")[0]`.
   * Asked once, when the item is queued; it must not change while the item is queued.
   */
  tenantOf(item: T): string;
}

/**
 * Round-robin across tenants: one item of each tenant that has items ready, in turn, FIFO within
 * a tenant — so a tenant (a namespace, a customer) with 100 000 keys queued cannot starve a
 * tenant with one. A tenant whose last item leaves drops out of the round and joins at the back
 * when it has an item again.
 *
 * Guarantee: between two hand-outs of one backlogged tenant, every other backlogged tenant gets
 * at most one — every tenant stays within one round of the others.
 */
export class FairStrategy<T> implements QueueStrategy<T> {
  readonly #tenantOf: (item: T) => string;
  /** Invariant: a tenant is in `#queues` iff its queue is not empty iff it is in `#round` once. */
  readonly #queues = new Map<string, RingBuffer<T>>();
  /** Tenants with items, in the order they are served next. */
  readonly #round = new RingBuffer<string>();
  #size = 0;

  constructor(options: FairStrategyOptions<T>) {
    const tenantOf = options?.tenantOf;
    if (typeof tenantOf !== "function") {
      throw new InvalidOptionError("FairStrategy", "tenantOf", tenantOf, "must be a function");
    }
    this.#tenantOf = tenantOf;
  }

  get size(): number {
    return this.#size;
  }

  /** Tenants that have items ready. */
  get tenants(): number {
    return this.#queues.size;
  }

  push(item: T): void {
    const tenant = this.#tenantOf(item);
    let queue = this.#queues.get(tenant);
    if (queue === undefined) {
      queue = new RingBuffer<T>({ initialCapacity: 4 });
      this.#queues.set(tenant, queue);
      this.#round.push(tenant);
    }
    queue.push(item);
    this.#size++;
  }

  pop(): T {
    const tenant = this.#round.shift()!;
    const queue = this.#queues.get(tenant)!;
    const item = queue.shift() as T;
    if (queue.size > 0) this.#round.push(tenant);
    else this.#queues.delete(tenant);
    this.#size--;
    return item;
  }

  /** A queued item keeps its place within its tenant. */
  touch(_item: T): void {}

  /** The order `pop` would follow: round by round, tenants in turn. O(n log n). */
  values(): Iterable<T> {
    const slots: { round: number; turn: number; item: T }[] = [];
    let turn = 0;
    for (const tenant of this.#round) {
      let round = 0;
      for (const item of this.#queues.get(tenant)!) slots.push({ round: round++, turn, item });
      turn++;
    }
    slots.sort((a, b) => a.round - b.round || a.turn - b.turn);
    return slots.map((s) => s.item);
  }
}
