import type { PriorityGaugeMetric } from "../core/index.ts";
import { Heap, type HeapNode } from "../core/internal.ts";
import type { QueueStrategy } from "./strategy.ts";

interface Ranked<T> {
  readonly item: T;
  priority: number;
  /** Order of arrival at this priority: FIFO within a priority. */
  seq: number;
}

const before = <T>(a: Ranked<T>, b: Ranked<T>) =>
  a.priority > b.priority || (a.priority === b.priority && a.seq < b.seq);

/**
 * The order of a {@link PriorityQueue}: highest priority first, FIFO within a priority
 * (controller-runtime's priority queue). Priorities only rise: `offer` records the priority an
 * add asks for, and an item keeps the highest it was offered until it is handed out.
 *
 * Invariants: `#held` maps each queued item to its heap node; `#pending` holds the priority of
 * items offered while not queued (waiting for a delay, or in flight), consumed by `push`;
 * `#handedOut` holds the priority each in-flight item left with, until `release`.
 */
export class PriorityStrategy<T> implements QueueStrategy<T> {
  readonly #heap = new Heap<Ranked<T>>(before);
  readonly #held = new Map<T, HeapNode<Ranked<T>>>();
  readonly #pending = new Map<T, number>();
  readonly #handedOut = new Map<T, number>();
  #seq = 0;
  /** Depth by priority, when the queue reports metrics. */
  depth: PriorityGaugeMetric | undefined;

  get size(): number {
    return this.#heap.size;
  }

  /**
   * An add asked for `priority`. A queued item with a lower priority rises, to the back of its
   * new priority; any other item remembers the highest priority offered until it is queued.
   */
  offer(item: T, priority: number): void {
    const node = this.#held.get(item);
    if (node === undefined) {
      const pending = this.#pending.get(item);
      if (pending === undefined || priority > pending) this.#pending.set(item, priority);
      return;
    }
    const ranked = node.value;
    if (priority <= ranked.priority) return;
    this.depth?.dec(ranked.priority);
    this.depth?.inc(priority);
    ranked.priority = priority;
    ranked.seq = this.#seq++;
    this.#heap.update(node);
  }

  push(item: T): void {
    const priority = this.#pending.get(item) ?? 0;
    this.#pending.delete(item);
    this.#held.set(item, this.#heap.push({ item, priority, seq: this.#seq++ }));
    this.depth?.inc(priority);
  }

  pop(): T {
    const { item, priority } = this.#heap.pop()!;
    this.#held.delete(item);
    this.#handedOut.set(item, priority);
    this.depth?.dec(priority);
    return item;
  }

  touch(_item: T): void {}

  /** The priority of a queued item, or the one an in-flight item was handed out with. */
  priorityOf(item: T): number | undefined {
    return this.#held.get(item)?.value.priority ?? this.#handedOut.get(item);
  }

  /** The priority an item not queued will have when it is queued. */
  pendingPriority(item: T): number {
    return this.#pending.get(item) ?? 0;
  }

  /** The item is done: forget the priority it was handed out with. */
  release(item: T): void {
    this.#handedOut.delete(item);
  }

  /** Forgets the pending priority of an item that will not be queued (dropped at shutdown). */
  drop(item: T): void {
    this.#pending.delete(item);
  }

  values(): Iterable<T> {
    return [...this.#heap.values()].sort((a, b) => (before(a, b) ? -1 : 1)).map((r) => r.item);
  }
}
