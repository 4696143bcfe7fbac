/**
 * A binary min-heap ordered by a comparator, with handles so that an entry can be removed or
 * re-positioned after its key changed, both in O(log n).
 *
 * Invariants: `#nodes[i].index === i` for every node in the heap; for every i > 0,
 * `less(#nodes[i], #nodes[parent(i)])` is false. A node that left the heap has index -1.
 * Ties are broken by nothing: equal entries come out in an unspecified order; callers that need
 * FIFO among equals put a sequence number into the comparator.
 */
export class Heap<T> {
  readonly #less: (a: T, b: T) => boolean;
  #nodes: HeapNode<T>[] = [];

  /** @param less — true when `a` must come out before `b`. */
  constructor(less: (a: T, b: T) => boolean) {
    this.#less = less;
  }

  get size(): number {
    return this.#nodes.length;
  }

  /** Adds `value`; the returned handle can later be passed to `remove` or `update`. */
  push(value: T): HeapNode<T> {
    const node: HeapNode<T> = { value, index: this.#nodes.length };
    this.#nodes.push(node);
    this.#up(node.index);
    return node;
  }

  /** The smallest entry, without removing it. */
  peek(): T | undefined {
    return this.#nodes[0]?.value;
  }

  /** Removes and returns the smallest entry. */
  pop(): T | undefined {
    const top = this.#nodes[0];
    if (top === undefined) return undefined;
    this.#removeAt(0);
    return top.value;
  }

  /** Removes the entry behind `node`. Returns false if it was no longer in this heap. */
  remove(node: HeapNode<T>): boolean {
    if (this.#nodes[node.index] !== node) return false;
    this.#removeAt(node.index);
    return true;
  }

  /** Restores the order after the key of `node.value` changed (in either direction). */
  update(node: HeapNode<T>): void {
    if (this.#nodes[node.index] !== node) {
      throw new Error("Heap.update: the node is not in this heap");
    }
    if (!this.#up(node.index)) this.#down(node.index);
  }

  /** Removes every entry. */
  clear(): void {
    for (const n of this.#nodes) n.index = -1;
    this.#nodes = [];
  }

  /** The entries in heap (not sorted) order. */
  *values(): IterableIterator<T> {
    for (const n of this.#nodes) yield n.value;
  }

  #removeAt(i: number): void {
    const nodes = this.#nodes;
    const removed = nodes[i]!;
    const last = nodes.pop()!;
    removed.index = -1;
    if (last === removed) return;
    nodes[i] = last;
    last.index = i;
    if (!this.#up(i)) this.#down(i);
  }

  /** Moves the node at `i` towards the root; true if it moved. */
  #up(i: number): boolean {
    const nodes = this.#nodes;
    const node = nodes[i]!;
    const start = i;
    while (i > 0) {
      const p = (i - 1) >> 1;
      const parent = nodes[p]!;
      if (!this.#less(node.value, parent.value)) break;
      nodes[i] = parent;
      parent.index = i;
      i = p;
    }
    nodes[i] = node;
    node.index = i;
    return i !== start;
  }

  #down(i: number): void {
    const nodes = this.#nodes;
    const n = nodes.length;
    const node = nodes[i]!;
    for (;;) {
      const l = 2 * i + 1;
      if (l >= n) break;
      const r = l + 1;
      const c = r < n && this.#less(nodes[r]!.value, nodes[l]!.value) ? r : l;
      const child = nodes[c]!;
      if (!this.#less(child.value, node.value)) break;
      nodes[i] = child;
      child.index = i;
      i = c;
    }
    nodes[i] = node;
    node.index = i;
  }
}

/** A handle to an entry of a {@link Heap}. `index` is -1 once the entry left the heap. */
export interface HeapNode<T> {
  readonly value: T;
  index: number;
}
