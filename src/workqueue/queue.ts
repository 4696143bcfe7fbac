import {
  type Clock,
  checkMetrics,
  InvalidOptionError,
  noopMetricsProvider,
  preciseClock,
  type QueueMetricsProvider,
  raceAbort,
} from "../core/index.ts";
import { checkClock } from "./check-clock.ts";
import {
  type Entry,
  type EntryStorage,
  EntryTable,
  FifoEntryStorage,
  GONE,
  IN_FLIGHT,
  IN_FLIGHT_DIRTY,
  QUEUED,
  StrategyStorage,
} from "./entries.ts";
import { InFlight } from "./in-flight.ts";
import { QueueMetricsRecorder } from "./queue-metrics.ts";
import type { InFlightEntry, QueueSnapshot } from "./snapshot.ts";
import { checkStrategy, type QueueStrategy } from "./strategy.ts";
import { Waiters } from "./waiters.ts";

/** Options for {@link Queue}. */
export interface QueueOptions<T> {
  /**
   * Names the queue in its metrics (the `name` label). Metrics need a name.
   * @default undefined (no metrics)
   */
  name?: string;
  /**
   * The clock that stamps hand-outs (and, in the delaying queues, times delays).
   * @default preciseClock (monotonic, sub-millisecond: delays are immune to wall-clock steps and
   * fire within microseconds of their time)
   */
  clock?: Clock;
  /**
   * The order in which ready items leave the queue.
   * @default FIFO (a built-in storage equivalent to `new FifoStrategy()`, with one less lookup)
   */
  strategy?: QueueStrategy<T>;
  /**
   * Where the queue reports its metrics; used only when `name` is set.
   * @default noopMetricsProvider
   */
  metrics?: QueueMetricsProvider;
}

/** Options for {@link Queue.get}. */
export interface QueueGetOptions {
  /** Aborting rejects a blocked `get()` with `signal.reason`; the queue is unaffected. */
  signal?: AbortSignal;
}

/** Options for {@link Queue.shutDownWithDrain}. */
export interface DrainOptions {
  /** Aborting stops waiting (rejects with `signal.reason`); the queue stays shut down. */
  signal?: AbortSignal;
}

const RESOLVED_UNDEFINED: Promise<undefined> = Promise.resolve(undefined);

/**
 * A work queue with client-go's semantics: fair (items leave in the strategy's order, FIFO by
 * default) and stingy (an item is never handed to two workers at once, and any number of adds
 * before it is processed give one processing). client-go's `workqueue.Typed`.
 *
 * A worker loops: `const item = await queue.get(); if (item === undefined) return;` then
 * processes it and always calls `queue.done(item)`. Adding an item while a worker holds it marks
 * it dirty; `done` then queues it again, at the back.
 *
 * Items are compared as `Map` keys (SameValueZero): use strings such as `namespace/name`, never
 * objects you rebuild per event.
 *
 * `add`, `done` and `shutDown` are synchronous; `get` returns a promise that is already settled
 * when an item is ready. The constructor starts nothing and sets no timer.
 */
export class Queue<T extends NonNullable<unknown> = string> {
  /** The clock the queue stamps with. */
  protected readonly clock: Clock;
  /**
   * Every item the queue is responsible for — queued, or in flight — with its state (see
   * `entries.ts`). client-go's `dirty ∪ processing`; an item without a live entry is clean and
   * not in flight.
   *
   * Invariants: `#storage` holds exactly the `QUEUED` entries, each once; `#inFlight` holds exactly
   * the `IN_FLIGHT` and `IN_FLIGHT_DIRTY` entries (few: one per busy worker), so that `done` finds
   * an entry without searching the big table; a `get()` is blocked only while `#storage` is empty;
   * after shutdown no entry becomes live, so `shutDownWithDrain` completes when none is live.
   */
  readonly #entries = new EntryTable<T>();
  readonly #inFlight = new InFlight<T>();
  /** `Entry.since` is relative to this clock reading, so that it is usually a small integer. */
  #epoch: number | undefined;
  /**
   * True when hand-outs may share one clock reading per turn of the event loop: on the default
   * clock, without metrics. Reading the clock costs as much as the rest of a hand-out, and
   * `sinceMs` (for debugging) needs no more precision than the turn. An injected clock (a
   * `FakeClock` in a test) and metrics get one reading per hand-out.
   */
  readonly #perTurn: boolean;
  /** This turn's hand-out time (ms after `#epoch`) while `#turnEnd` is pending to forget it. */
  #turnStamp: number | undefined;
  #turnEnd: NodeJS.Immediate | undefined;
  readonly #endTurn = () => {
    this.#turnStamp = undefined;
    this.#turnEnd = undefined;
  };
  readonly #storage: EntryStorage<T>;
  readonly #waiters = new Waiters<T>();
  /** Timestamps for metrics; undefined when the queue reports none. */
  readonly #recorder: QueueMetricsRecorder<T> | undefined;
  #shuttingDown = false;
  /** Resolvers of pending `shutDownWithDrain()` calls. */
  #drains: (() => void)[] = [];

  constructor(options: QueueOptions<T> = {}) {
    const owner = new.target.name;
    this.clock = checkClock(owner, "clock", options.clock) ?? preciseClock;
    this.#storage =
      options.strategy === undefined
        ? new FifoEntryStorage<T>()
        : new StrategyStorage(checkStrategy(owner, "strategy", options.strategy), this.#entries);
    const { name, metrics } = options;
    if (name !== undefined && (typeof name !== "string" || name === "")) {
      throw new InvalidOptionError(owner, "name", name, "must be a non-empty string");
    }
    checkMetrics(owner, metrics, ["newQueueMetrics"]);
    if (metrics !== undefined && metrics !== noopMetricsProvider && name === undefined) {
      throw new InvalidOptionError(owner, "name", name, "must be set when metrics is set");
    }
    const strategy = options.strategy;
    const lanes = typeof strategy?.lanes === "function" ? () => strategy.lanes!() : undefined;
    this.#recorder =
      name === undefined || metrics === undefined || metrics === noopMetricsProvider
        ? undefined
        : new QueueMetricsRecorder<T>(this.clock, metrics, name, lanes);
    this.#perTurn = this.clock === preciseClock && this.#recorder === undefined;
  }

  /** Items ready to be handed out: not in flight, not waiting for a delay. Informational only. */
  get size(): number {
    return this.#storage.size;
  }

  /** True once `shutDown()` or `shutDownWithDrain()` was called. */
  get shuttingDown(): boolean {
    return this.#shuttingDown;
  }

  /**
   * Marks `item` as needing processing. A new item is queued (and handed to a blocked `get`); an
   * item already queued stays where it is (the strategy is told, see `QueueStrategy.touch`); an
   * item in flight is queued again when its worker calls `done`. Ignored after shutdown.
   */
  add(item: T): void {
    if (this.#shuttingDown) return;
    const entry = this.#entries.get(item);
    if (entry === undefined) {
      this.#enqueue(this.#entries.create(item, QUEUED));
    } else if (entry.state === GONE) {
      this.#entries.revived();
      entry.state = QUEUED;
      this.#enqueue(entry);
    } else if (entry.state === QUEUED) {
      this.#storage.touch(entry);
    } else if (entry.state === IN_FLIGHT) {
      entry.state = IN_FLIGHT_DIRTY;
      this.#recorder?.added(item);
    }
  }

  /**
   * The next item, which the caller must pass to `done` when finished with it. Resolves at once
   * when an item is ready; otherwise waits for one. Resolves `undefined` once the queue is shut
   * down and has nothing ready (a worker then returns). Rejects with `signal.reason` if `signal`
   * aborts first (an aborted signal takes nothing from the queue).
   */
  get(options?: QueueGetOptions): Promise<T | undefined> {
    const signal = options?.signal;
    if (signal?.aborted) return Promise.reject(signal.reason);
    if (this.#storage.size > 0) return Promise.resolve(this.#handOut());
    if (this.#shuttingDown) return RESOLVED_UNDEFINED;
    return this.#waiters.wait(signal);
  }

  /**
   * Marks `item`, handed out by `get`, as finished. If it was added while in flight it is queued
   * again, at the back. Ignored for an item that is not in flight (it never duplicates an item).
   */
  done(item: T): void {
    const entry = this.#inFlight.find(item);
    if (entry === undefined) return;
    this.#inFlight.remove(entry);
    this.#recorder?.done(item);
    if (entry.state === IN_FLIGHT) {
      entry.state = GONE;
      this.#entries.finished();
      if (this.#drains.length > 0 && this.#entries.live === 0) this.#releaseDrains();
    } else {
      entry.state = QUEUED;
      this.#push(entry);
      if (this.#waiters.size > 0) this.#serveWaiters();
    }
  }

  /**
   * Stops the queue: adds are ignored from now on, and a blocked `get` resolves `undefined`; a
   * `get` still hands out what is queued (and what `done` queues again), then resolves
   * `undefined`. Does not wait for workers; releases a pending `shutDownWithDrain`. Idempotent.
   */
  shutDown(): void {
    this.#beginShutdown();
    this.#releaseDrains();
  }

  /**
   * Shuts down like `shutDown()`, then resolves once every queued and in-flight item is done.
   * Workers must keep calling `get`/`done` until `get` resolves `undefined`; if one never calls
   * `done`, this waits forever — pass a `signal` to bound the wait. A later `shutDown()` resolves
   * it early. Idempotent: every call resolves when the queue is drained.
   */
  shutDownWithDrain(options?: DrainOptions): Promise<void> {
    this.#beginShutdown();
    if (this.#entries.live === 0) return Promise.resolve();
    const drained = new Promise<void>((resolve) => this.#drains.push(resolve));
    return raceAbort(drained, options?.signal);
  }

  /** Same as `shutDown()`, for `using queue = new Queue()`. */
  [Symbol.dispose](): void {
    this.shutDown();
  }

  /** Ready and in-flight items, for debugging; see {@link QueueSnapshot}. O(n). */
  snapshot(): QueueSnapshot<T> {
    const inFlight: InFlightEntry<T>[] = [];
    for (const e of this.#inFlight.values()) {
      const sinceMs = e.since + (this.#epoch ?? 0);
      inFlight.push({ item: e.item, sinceMs, dirty: e.state === IN_FLIGHT_DIRTY });
    }
    inFlight.sort((a, b) => a.sinceMs - b.sinceMs);
    const ready = [...(this.#storage.items() ?? this.#queuedInAddOrder())].map((item) =>
      this.readyEntry(item),
    );
    return { ready, inFlight, waiting: [], requeues: [], shuttingDown: this.#shuttingDown };
  }

  /** How a ready item appears in a snapshot; the priority queue adds the priority. */
  protected readyEntry(item: T): { item: T; priority?: number } {
    return { item };
  }

  /** True if `item` is dirty: queued, or added again while in flight. */
  protected isDirty(item: T): boolean {
    const state = this.#entries.get(item)?.state;
    return state === QUEUED || state === IN_FLIGHT_DIRTY;
  }

  /** The metrics recorder, when the queue reports metrics. */
  protected get recorder(): QueueMetricsRecorder<T> | undefined {
    return this.#recorder;
  }

  /** Called once, when shutdown begins; the delaying queue drops its waiting items here. */
  protected onShutDown(): void {}

  *#queuedInAddOrder(): Iterable<T> {
    for (const e of this.#entries.values()) if (e.state === QUEUED) yield e.item;
  }

  #enqueue(entry: Entry<T>): void {
    this.#push(entry);
    this.#recorder?.added(entry.item);
    if (this.#waiters.size > 0) this.#serveWaiters();
  }

  /**
   * Gives a `QUEUED` entry to the storage. A user's strategy may throw (an `isFast` or
   * `tenantOf` that fails): the entry then finishes, so the item is neither queued nor lost
   * track of (a later `add` queues it afresh, a drain does not wait for it), and the error goes
   * to the caller of `add` or `done`.
   */
  #push(entry: Entry<T>): void {
    try {
      this.#storage.push(entry);
    } catch (err) {
      entry.state = GONE;
      this.#entries.finished();
      if (this.#drains.length > 0 && this.#entries.live === 0) this.#releaseDrains();
      throw err;
    }
  }

  #handOut(): T {
    const entry = this.#storage.pop();
    entry.state = IN_FLIGHT;
    if (this.#perTurn) {
      entry.since = this.#turnStamp ?? this.#stampTurn();
    } else {
      const now = this.clock.now();
      entry.since = this.#sinceEpoch(now);
      this.#recorder?.handedOut(entry.item, now);
    }
    this.#inFlight.add(entry);
    return entry.item;
  }

  /** Whole milliseconds after the epoch: a small integer, which V8 stores without allocating. */
  #sinceEpoch(now: number): number {
    this.#epoch ??= now;
    return Math.floor(now - this.#epoch);
  }

  #stampTurn(): number {
    const stamp = this.#sinceEpoch(this.clock.now());
    if (!this.#shuttingDown) {
      this.#turnStamp = stamp;
      this.#turnEnd = setImmediate(this.#endTurn);
    }
    return stamp;
  }

  #serveWaiters(): void {
    while (this.#waiters.size > 0 && this.#storage.size > 0) {
      this.#waiters.resolveNext(this.#handOut());
    }
  }

  #beginShutdown(): void {
    if (this.#shuttingDown) return;
    this.#shuttingDown = true;
    if (this.#turnEnd !== undefined) clearImmediate(this.#turnEnd);
    this.#endTurn();
    this.onShutDown();
    // A blocked get means the strategy is empty: nothing is left for it.
    this.#waiters.resolveAll(undefined);
  }

  #releaseDrains(): void {
    const drains = this.#drains;
    if (drains.length === 0) return;
    this.#drains = [];
    for (const resolve of drains) resolve();
  }
}
