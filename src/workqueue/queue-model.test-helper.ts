/**
 * The reference model of the work-queue properties (`properties.test.ts`): client-go's rules with
 * our decisions, in the plainest code — a ready array, a dirty set, an in-flight set, a map of
 * waiting items — and the random operations it is driven with.
 */
import fc from "fast-check";
import type { QueueMetrics, QueueMetricsProvider, QueueProbe } from "../core/index.ts";

export const KEYS = ["a", "b", "c", "d", "e"];
const key = fc.constantFrom(...KEYS);

export type Op =
  | { t: "add"; k: string }
  | { t: "addAfter"; k: string; ms: number }
  | { t: "addRateLimited"; k: string }
  | { t: "get" }
  | { t: "done"; i: number }
  | { t: "forget"; k: string }
  | { t: "advance"; ms: number }
  | { t: "shutDown" };

/** The operations and how often each is drawn. */
const OPS: Record<Op["t"], { weight: number; arbitrary: fc.Arbitrary<Op> }> = {
  add: { weight: 4, arbitrary: fc.record({ t: fc.constant("add" as const), k: key }) },
  addAfter: {
    weight: 2,
    arbitrary: fc.record({
      t: fc.constant("addAfter" as const),
      k: key,
      ms: fc.integer({ min: -2, max: 20 }),
    }),
  },
  addRateLimited: {
    weight: 2,
    arbitrary: fc.record({ t: fc.constant("addRateLimited" as const), k: key }),
  },
  get: { weight: 4, arbitrary: fc.record({ t: fc.constant("get" as const) }) },
  done: { weight: 4, arbitrary: fc.record({ t: fc.constant("done" as const), i: fc.nat(4) }) },
  forget: { weight: 1, arbitrary: fc.record({ t: fc.constant("forget" as const), k: key }) },
  advance: {
    weight: 2,
    arbitrary: fc.record({
      t: fc.constant("advance" as const),
      ms: fc.integer({ min: 0, max: 15 }),
    }),
  },
  shutDown: { weight: 1, arbitrary: fc.record({ t: fc.constant("shutDown" as const) }) },
};

/** Every kind of operation. */
export const ALL_OPS: readonly Op["t"][] = Object.keys(OPS) as Op["t"][];

/** A random operation, among `kinds`. */
export function op(kinds: readonly Op["t"][]): fc.Arbitrary<Op> {
  return fc.oneof(...kinds.map((k) => OPS[k]));
}

/** The reference: client-go's rules with our decisions. `limit(n)` is the limiter's nth delay. */
export class Model {
  now = 0;
  /** Ready items, in the order a FIFO queue hands them out. */
  queue: string[] = [];
  dirty = new Set<string>();
  inFlight = new Set<string>();
  /** Waiting items: ready time and arrival at it (ties fire in arrival order). */
  waiting = new Map<string, { at: number; seq: number }>();
  failures = new Map<string, number>();
  blocked = 0;
  /** Items handed to blocked gets, in the order the gets were made. */
  handedToBlocked: string[] = [];
  shuttingDown = false;
  /** What the metrics must have counted: items becoming dirty, and delayed adds. */
  adds = 0;
  retries = 0;
  #seq = 0;

  add(k: string): void {
    if (this.shuttingDown) return;
    this.waiting.delete(k);
    if (this.dirty.has(k)) return;
    this.dirty.add(k);
    this.adds++;
    if (!this.inFlight.has(k)) this.#ready(k);
  }

  addAfter(k: string, ms: number): void {
    if (this.shuttingDown) return;
    this.retries++;
    if (ms <= 0) {
      this.add(k);
      return;
    }
    if (this.dirty.has(k)) return;
    const at = this.now + ms;
    const w = this.waiting.get(k);
    // Moving earlier counts as arriving now, for the order among items due at the same time.
    if (w === undefined || at < w.at) this.waiting.set(k, { at, seq: this.#seq++ });
  }

  addRateLimited(k: string): void {
    if (this.shuttingDown) return;
    const n = this.failures.get(k) ?? 0;
    this.failures.set(k, n + 1);
    this.addAfter(k, Math.min(2 ** n, 1000));
  }

  /**
   * What a get does now: "blocked", undefined (shut down, nothing ready), or the item at
   * `pick(queue)` — the head for a FIFO queue, the one the queue chose for another strategy.
   */
  get(pick: (queue: readonly string[]) => number = () => 0): string | "blocked" | undefined {
    if (this.queue.length > 0) {
      const i = pick(this.queue);
      if (i < 0 || i >= this.queue.length) throw new Error("picked an item that is not ready");
      const [k] = this.queue.splice(i, 1);
      return this.#handOut(k!);
    }
    if (this.shuttingDown) return undefined;
    this.blocked++;
    return "blocked";
  }

  done(k: string): void {
    if (!this.inFlight.delete(k)) return;
    if (this.dirty.has(k)) this.#ready(k);
  }

  advance(ms: number): void {
    const target = this.now + ms;
    for (;;) {
      const due = [...this.waiting].filter(([, w]) => w.at <= target);
      if (due.length === 0) break;
      due.sort(([, a], [, b]) => a.at - b.at || a.seq - b.seq);
      const [k, w] = due[0]!;
      this.now = w.at;
      this.waiting.delete(k);
      this.add(k);
    }
    this.now = target;
  }

  shutDown(): void {
    this.shuttingDown = true;
    this.waiting.clear();
    this.blocked = 0;
  }

  #ready(k: string): void {
    if (this.blocked > 0) {
      this.blocked--;
      this.handedToBlocked.push(this.#handOut(k));
    } else this.queue.push(k);
  }

  #handOut(k: string): string {
    this.dirty.delete(k);
    this.inFlight.add(k);
    return k;
  }
}

/**
 * A provider that keeps the current value of every instrument, the names of the queues it
 * was asked for, and every duration observed.
 */
export class RecordingProvider implements QueueMetricsProvider {
  readonly names: string[] = [];
  probe: QueueProbe | undefined;
  depth = 0;
  adds = 0;
  retries = 0;
  waiting = 0;
  readonly queueDurations: number[] = [];
  readonly workDurations: number[] = [];
  readonly byPriority = new Map<number, number>();

  newQueueMetrics(name: string, probe: QueueProbe): QueueMetrics {
    this.names.push(name);
    this.probe = probe;
    const move = (p: number, by: number) =>
      this.byPriority.set(p, (this.byPriority.get(p) ?? 0) + by);
    return {
      depth: { inc: () => this.depth++, dec: () => this.depth-- },
      adds: { inc: () => this.adds++ },
      queueDuration: { observe: (s) => this.queueDurations.push(s) },
      workDuration: { observe: (s) => this.workDurations.push(s) },
      retries: { inc: () => this.retries++ },
      waiting: { inc: () => this.waiting++, dec: () => this.waiting-- },
      priorityDepth: { inc: (p) => move(p, 1), dec: (p) => move(p, -1) },
    };
  }
}
