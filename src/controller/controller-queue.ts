import type { Clock } from "../core/index.ts";
import {
  FairStrategy,
  FifoStrategy,
  type MetricsProvider,
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
  add(key: string, options?: EnqueueOptions): void;
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
  metrics?: MetricsProvider;
  rateLimiter?: RateLimiter<string>;
}

/** Builds the queue of a controller. */
export function makeControllerQueue(kind: QueueKind, settings: QueueSettings): ControllerQueue {
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

function priorityQueue(settings: QueueSettings): ControllerQueue {
  const q = new PriorityQueue<string>(settings);
  return adapt(q, {
    add: (key, o = {}) => q.add(key, o),
    get: async (signal) => {
      const got = await q.getWithPriority({ signal });
      return got === undefined ? undefined : { key: got.item, priority: got.priority };
    },
    snapshot: () => q.snapshot(),
  });
}

function strategyQueue(
  strategy: QueueStrategy<string>,
  settings: QueueSettings,
  onAdd: (key: string, priority: number) => void = () => {},
  onTake: (key: string) => void = () => {},
  laneOf?: (key: string) => number,
): ControllerQueue {
  const q = new RateLimitingQueue<string>({ ...settings, strategy });
  return adapt(q, {
    add(key, o = {}) {
      onAdd(key, o.priority ?? 0);
      if (o.rateLimited) q.addRateLimited(key);
      else if ((o.afterMs ?? 0) > 0) q.addAfter(key, o.afterMs!);
      else q.add(key);
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
