import type { Clock, QueueMetricsProvider } from "../core/index.ts";
import {
  defaultControllerRateLimiter,
  FairStrategy,
  FifoStrategy,
  ItemExponentialFailureRateLimiter,
  PriorityQueue,
  type QueueSnapshot,
  type QueueStrategy,
  type RateLimiter,
  RateLimitingQueue,
  TwoLaneStrategy,
} from "../workqueue/index.ts";

/**
 * How a controller orders its keys:
 * - `priority` (default): integer priorities; the initial list and resyncs enter at
 *   {@link LOW_PRIORITY}, fresh events at 0, so real changes never wait behind a backlog;
 * - `two-lane`: a fast lane (priority ≥ 0) always served before a slow lane;
 * - `fair`: round-robin across namespaces, so one namespace cannot starve the others;
 * - `fifo`: client-go's order;
 * - `{ strategy }`: any `QueueStrategy` of keys.
 */
export type QueueKind =
  | "priority"
  | "two-lane"
  | "fair"
  | "fifo"
  | { strategy: QueueStrategy<string> };

/** The priority of the initial list and of resyncs (controller-runtime's LowPriority). */
export const LOW_PRIORITY = -100;

/** How an event or result puts a key back. */
export interface EnqueueOptions {
  priority?: number;
  afterMs?: number;
  rateLimited?: boolean;
}

/** The one queue shape the controller drives, whatever the kind. */
export interface ControllerQueue {
  /**
   * Queues `key`, now or after a delay (`afterMs`, or the rate limiter's for `rateLimited`);
   * returns that delay in ms (0: now), so that the caller knows when the key is due.
   */
  add(key: string, options?: EnqueueOptions): number;
  get(signal?: AbortSignal): Promise<{ key: string; priority: number } | undefined>;
  done(key: string): void;
  forget(key: string): void;
  numRequeues(key: string): number;
  shutDown(): void;
  shutDownWithDrain(signal?: AbortSignal): Promise<void>;
  readonly size: number;
  snapshot(): QueueSnapshot<string>;
}

/** Settings every queue kind takes. */
export interface QueueSettings {
  name: string;
  clock?: Clock;
  metrics?: QueueMetricsProvider;
  rateLimiter?: RateLimiter<string>;
}

/**
 * Builds the queue of a controller. The rate limiter is resolved here (the queue kind's default
 * when none is given: per item 5 ms → 1000 s for the priority queue, client-go's controller
 * default for the others) and shared with the queue, so that `add` knows the delay it asks for.
 */
export function makeControllerQueue(kind: QueueKind, given: QueueSettings): ControllerQueue {
  const settings: QueueSettings & { rateLimiter: RateLimiter<string> } = {
    ...given,
    rateLimiter:
      given.rateLimiter ??
      (kind === "priority"
        ? new ItemExponentialFailureRateLimiter<string>({ baseDelayMs: 5, maxDelayMs: 1_000_000 })
        : defaultControllerRateLimiter<string>(
            given.clock === undefined ? {} : { clock: given.clock },
          )),
  };
  if (kind === "priority") return priorityQueue(settings);
  if (kind === "two-lane") {
    // A key's lane is decided when it is added; the strategy asks when it pushes or touches it.
    const fast = new Map<string, boolean>();
    return strategyQueue(
      new TwoLaneStrategy<string>({ isFast: (k) => fast.get(k) ?? true }),
      settings,
      (key, priority) => fast.set(key, priority >= 0),
      (key) => fast.delete(key),
      // Snapshots show the lane as a priority: 0 fast, -1 slow.
      (key) => (fast.get(key) === false ? -1 : 0),
    );
  }
  if (kind === "fair") {
    return strategyQueue(new FairStrategy<string>({ tenantOf: namespaceOfKey }), settings);
  }
  if (kind === "fifo") return strategyQueue(new FifoStrategy<string>(), settings);
  return strategyQueue(kind.strategy, settings);
}

/** The namespace part of a `namespace/name` key; `""` for cluster-scoped keys. */
export function namespaceOfKey(key: string): string {
  const slash = key.indexOf("/");
  return slash < 0 ? "" : key.slice(0, slash);
}

/** The parts of a controller queue that differ between kinds; the rest is the queue's own. */
type Varying = Pick<ControllerQueue, "add" | "get" | "snapshot">;

function adapt(q: RateLimitingQueue<string>, varying: Varying): ControllerQueue {
  return {
    ...varying,
    done: (k) => q.done(k),
    forget: (k) => q.forget(k),
    numRequeues: (k) => q.numRequeues(k),
    shutDown: () => q.shutDown(),
    shutDownWithDrain: (signal) => q.shutDownWithDrain({ signal }),
    get size() {
      return q.size;
    },
  };
}

/** The delay `o` asks for: the rate limiter's (counting a failure) or `afterMs`; the shorter. */
function delayOf(
  key: string,
  o: EnqueueOptions,
  limiter: RateLimiter<string>,
  shuttingDown: boolean,
): number {
  const after = Math.max(0, o.afterMs ?? 0);
  if (o.rateLimited !== true || shuttingDown) return after;
  const limited = limiter.when(key);
  return after > 0 ? Math.min(after, limited) : limited;
}

function priorityQueue(settings: QueueSettings & { rateLimiter: RateLimiter<string> }) {
  const q = new PriorityQueue<string>(settings);
  return adapt(q, {
    add: (key, o = {}) => {
      const afterMs = delayOf(key, o, settings.rateLimiter, q.shuttingDown);
      q.add(key, { priority: o.priority ?? 0, afterMs });
      return afterMs;
    },
    get: async (signal) => {
      const got = await q.getWithPriority({ signal });
      return got === undefined ? undefined : { key: got.item, priority: got.priority };
    },
    snapshot: () => q.snapshot(),
  });
}

function strategyQueue(
  strategy: QueueStrategy<string>,
  settings: QueueSettings & { rateLimiter: RateLimiter<string> },
  onAdd: (key: string, priority: number) => void = () => {},
  onTake: (key: string) => void = () => {},
  laneOf?: (key: string) => number,
): ControllerQueue {
  const q = new RateLimitingQueue<string>({ ...settings, strategy });
  return adapt(q, {
    add(key, o = {}) {
      onAdd(key, o.priority ?? 0);
      const afterMs = delayOf(key, o, settings.rateLimiter, q.shuttingDown);
      if (afterMs > 0) q.addAfter(key, afterMs);
      else q.add(key);
      return afterMs;
    },
    get: async (signal) => {
      const key = await q.get({ signal });
      if (key === undefined) return undefined;
      onTake(key);
      return { key, priority: 0 };
    },
    snapshot: () => {
      const snap = q.snapshot();
      if (laneOf !== undefined) for (const r of snap.ready) r.priority = laneOf(r.item);
      return snap;
    },
  });
}
