import { InvalidOptionError } from "../core/index.ts";
import type { QueueStrategy } from "./strategy.ts";

/** Options for {@link TwoLaneStrategy}. */
export interface TwoLaneStrategyOptions<T> {
  /**
   * Which lane an item belongs to, asked when the item is queued and again when it is added
   * while queued. For example `(key) => changed.has(key)`, with the informer's event handler
   * marking keys of real changes and a resync leaving them slow.
   */
  isFast(item: T): boolean;
}

/** A node of a lane: an intrusive doubly linked list, so that an item moves lanes in O(1). */
interface Node<T> {
  readonly item: T;
  fast: boolean;
  prev: Node<T> | undefined;
  next: Node<T> | undefined;
}

/** One lane: a FIFO list of nodes. */
class Lane<T> {
  head: Node<T> | undefined;
  tail: Node<T> | undefined;
  size = 0;

  append(node: Node<T>): void {
    node.prev = this.tail;
    node.next = undefined;
    if (this.tail === undefined) this.head = node;
    else this.tail.next = node;
    this.tail = node;
    this.size++;
  }

  unlink(node: Node<T>): void {
    if (node.prev === undefined) this.head = node.next;
    else node.prev.next = node.next;
    if (node.next === undefined) this.tail = node.prev;
    else node.next.prev = node.prev;
    node.prev = undefined;
    node.next = undefined;
    this.size--;
  }

  *items(): IterableIterator<T> {
    for (let n = this.head; n !== undefined; n = n.next) yield n.item;
  }
}

/**
 * Two FIFO lanes under one work queue (the two-lane queue as a pluggable strategy): a fast item
 * is never behind a slow one, however many slow items are queued — so a resync or an initial
 * list of 100 000 keys does not delay the key a user just changed. Because it sits under the
 * queue, dedupe and "never two workers on one item" hold across both lanes (knative's two-lane
 * queue only prefers the fast lane when it hands items to a shared consumer queue, where they
 * can again wait behind slow ones).
 *
 * `touch` moves a queued item to the back of the lane it now belongs to; an item that stays in its
 * lane keeps its place. An item added while in flight picks its lane when it is queued again.
 */
export class TwoLaneStrategy<T> implements QueueStrategy<T> {
  readonly #isFast: (item: T) => boolean;
  readonly #fast = new Lane<T>();
  readonly #slow = new Lane<T>();
  /** Invariant: the node of every item held, in the lane its `fast` flag names. */
  readonly #nodes = new Map<T, Node<T>>();

  constructor(options: TwoLaneStrategyOptions<T>) {
    const isFast = options?.isFast;
    if (typeof isFast !== "function") {
      throw new InvalidOptionError("TwoLaneStrategy", "isFast", isFast, "must be a function");
    }
    this.#isFast = isFast;
  }

  get size(): number {
    return this.#fast.size + this.#slow.size;
  }

  /** Items in the fast lane. */
  get fastSize(): number {
    return this.#fast.size;
  }

  /** Items in the slow lane. */
  get slowSize(): number {
    return this.#slow.size;
  }

  push(item: T): void {
    const fast = this.#isFast(item);
    const node: Node<T> = { item, fast, prev: undefined, next: undefined };
    this.#nodes.set(item, node);
    (fast ? this.#fast : this.#slow).append(node);
  }

  pop(): T {
    const lane = this.#fast.size > 0 ? this.#fast : this.#slow;
    const node = lane.head!;
    lane.unlink(node);
    this.#nodes.delete(node.item);
    return node.item;
  }

  touch(item: T): void {
    const node = this.#nodes.get(item);
    if (node === undefined) return;
    const fast = this.#isFast(item);
    if (fast === node.fast) return;
    (node.fast ? this.#fast : this.#slow).unlink(node);
    node.fast = fast;
    (fast ? this.#fast : this.#slow).append(node);
  }

  lanes(): Record<string, number> {
    return { fast: this.#fast.size, slow: this.#slow.size };
  }

  *values(): IterableIterator<T> {
    yield* this.#fast.items();
    yield* this.#slow.items();
  }
}
