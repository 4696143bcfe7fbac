import type { CancelTimer, Clock, FieldSelector, LabelSelector } from "../../core/index.ts";
import type {
  CacheEntry,
  CacheEvent,
  ObjectAttrs,
  SerializationCounter,
  WatchEncoder,
} from "./cache-event.ts";

/** Which objects a watch or list sees. */
export interface CacheFilter {
  /** Only objects in this namespace (absent or `""`: all). */
  readonly namespace?: string;
  readonly label: LabelSelector;
  readonly field: FieldSelector;
}

/** True if an object with `attrs` in `namespace` passes `filter`. */
export function filterMatches(filter: CacheFilter, namespace: string, attrs: ObjectAttrs): boolean {
  if (filter.namespace && filter.namespace !== namespace) return false;
  if (!filter.label.empty && !filter.label.matches(attrs.labels)) return false;
  return filter.field.empty || filter.field.matches(attrs.fields);
}

/** Why a watch ended. */
export type WatchCloseReason =
  | "timeout"
  | "slow"
  | "terminated"
  | "client"
  | "error"
  | "cache-closed";

/** What a {@link CacheWatcher} needs from its cache. */
export interface CacheWatcherOptions {
  readonly filter: CacheFilter;
  readonly encoder: WatchEncoder;
  readonly counter: SerializationCounter;
  readonly clock: Clock;
  /** Events with a resourceVersion at or below this are not delivered. */
  readonly startRv: number;
  /** Lines waiting to be written beyond which the watcher is closed as too slow. */
  readonly maxPending: number;
  /** The bookmark object's kind and apiVersion, when the client asked for bookmarks. */
  readonly bookmarks: { kind: string; apiVersion: string; intervalMs: number } | undefined;
  /** When the watch ends (cache clock, ms since epoch); `Infinity` for never. */
  readonly deadline: number;
  /** The cache's current resourceVersion (what a bookmark reports). */
  readonly currentRv: () => number;
  /** Called once when the watcher closes, to unregister it. */
  readonly onClose: (w: CacheWatcher) => void;
}

/** How long before its deadline a watch gets its last bookmark (kube: 2 s). */
const FINAL_BOOKMARK_LEAD_MS = 2000;

/**
 * One client's watch on a watch cache: the cache pushes encoded lines into it; the HTTP layer
 * iterates it and writes each batch of lines to the response.
 *
 * Invariants: lines are queued in resourceVersion order and no event at or below `#lastRv` is
 * queued again; `#pending` never holds more than `maxPending` lines — a watcher that would
 * exceed it while its writer is busy is closed (its client resumes from the last resourceVersion
 * it received); once
 * closed, nothing is queued and the iteration ends after the lines already queued.
 */
export class CacheWatcher implements AsyncIterable<Buffer[]> {
  readonly #o: CacheWatcherOptions;
  #pending: Buffer[] = [];
  #waiter: ((lines: Buffer[] | undefined) => void) | undefined;
  #lastRv: number;
  #closed: WatchCloseReason | undefined;
  #cancelBookmark: CancelTimer | undefined;
  #cancelDeadline: CancelTimer | undefined;
  #wakeScheduled = false;
  readonly #closedWaiters: ((reason: WatchCloseReason) => void)[] = [];

  constructor(options: CacheWatcherOptions) {
    this.#o = options;
    this.#lastRv = options.startRv;
  }

  /** Starts the deadline and bookmark timers. Called by the cache once the watcher is registered. */
  start(): void {
    const { clock, deadline } = this.#o;
    if (Number.isFinite(deadline)) {
      this.#cancelDeadline = clock.setTimer(deadline - clock.now(), () => this.close("timeout"));
    }
    this.#scheduleBookmark();
  }

  /** Why the watcher closed, or undefined while open. */
  get closeReason(): WatchCloseReason | undefined {
    return this.#closed;
  }

  /** Lines queued and not yet taken by the writer. */
  get pending(): number {
    return this.#pending.length;
  }

  /** Resolves with the reason once the watcher closes. */
  closed(): Promise<WatchCloseReason> {
    if (this.#closed !== undefined) return Promise.resolve(this.#closed);
    return new Promise((resolve) => this.#closedWaiters.push(resolve));
  }

  /** Queues the initial ADDED event for a current object (streaming list, legacy RV ""/"0"). */
  deliverInitial(entry: CacheEntry): void {
    if (!filterMatches(this.#o.filter, entry.namespace, entry.attrs)) return;
    const json = entry.json(this.#o.encoder, this.#o.counter);
    this.#push(Buffer.from(`{"type":"ADDED","object":${json}}\n`));
  }

  /** Queues `event` as this watcher sees it: filtered, with selector transitions applied. */
  deliver(event: CacheEvent): void {
    if (this.#closed !== undefined || event.rv <= this.#lastRv) return;
    this.#lastRv = event.rv;
    const f = this.#o.filter;
    const now = filterMatches(f, event.entry.namespace, event.entry.attrs);
    let as: "ADDED" | "MODIFIED" | "DELETED" | undefined;
    if (event.type === "MODIFIED") {
      const before = filterMatches(f, event.prev!.namespace, event.prev!.attrs);
      as = now ? (before ? "MODIFIED" : "ADDED") : before ? "DELETED" : undefined;
    } else if (now) {
      as = event.type;
    }
    if (as !== undefined) this.#push(event.line(as, this.#o.encoder, this.#o.counter));
  }

  /** Queues a BOOKMARK at `rv` (with `annotations`, e.g. the initial-events-end marker). */
  bookmark(rv: number, annotations?: Record<string, string>): void {
    const b = this.#o.bookmarks;
    if (b === undefined || this.#closed !== undefined) return;
    const metadata = annotations
      ? { resourceVersion: String(rv), annotations }
      : { resourceVersion: String(rv) };
    const object = { kind: b.kind, apiVersion: b.apiVersion, metadata };
    this.#push(Buffer.from(`{"type":"BOOKMARK","object":${JSON.stringify(object)}}\n`));
  }

  /** Queues one ERROR event carrying `status` and closes the watcher. */
  fail(status: object): void {
    if (this.#closed !== undefined) return;
    this.#pending.push(Buffer.from(`{"type":"ERROR","object":${JSON.stringify(status)}}\n`));
    this.close("error");
  }

  /** Closes the watcher; the lines already queued are still handed out, unless it was too slow. */
  close(reason: WatchCloseReason): void {
    if (this.#closed !== undefined) return;
    this.#closed = reason;
    if (reason === "slow") this.#pending = [];
    this.#cancelBookmark?.();
    this.#cancelDeadline?.();
    this.#o.onClose(this);
    this.#wake();
    for (const w of this.#closedWaiters.splice(0)) w(reason);
  }

  async *[Symbol.asyncIterator](): AsyncIterator<Buffer[]> {
    try {
      for (;;) {
        if (this.#pending.length > 0) {
          const lines = this.#pending;
          this.#pending = [];
          yield lines;
          continue;
        }
        if (this.#closed !== undefined) return;
        const lines = await new Promise<Buffer[] | undefined>((resolve) => {
          this.#waiter = resolve;
        });
        if (lines !== undefined) yield lines;
      }
    } finally {
      this.close("client");
    }
  }

  #push(line: Buffer): void {
    if (this.#closed !== undefined) return;
    // The bound applies while the writer is busy (its socket full): lines queued for a writer
    // that is waiting for them are handed over within this turn of the event loop.
    if (this.#waiter === undefined && this.#pending.length >= this.#o.maxPending) {
      this.close("slow");
      return;
    }
    this.#pending.push(line);
    this.#wake();
  }

  /**
   * Hands the queued lines to a waiting writer. New lines are handed over on the next turn of
   * the event loop (not at once), so that a burst of events reaches the socket as one write
   * instead of one write per event; closing hands over at once.
   */
  #wake(): void {
    if (this.#waiter === undefined || this.#wakeScheduled) return;
    if (this.#closed !== undefined) {
      this.#handOver();
      return;
    }
    this.#wakeScheduled = true;
    setImmediate(() => {
      this.#wakeScheduled = false;
      this.#handOver();
    });
  }

  #handOver(): void {
    const waiter = this.#waiter;
    if (waiter === undefined) return;
    this.#waiter = undefined;
    const lines = this.#pending;
    this.#pending = [];
    waiter(lines.length > 0 ? lines : undefined);
  }

  #scheduleBookmark(): void {
    const b = this.#o.bookmarks;
    if (b === undefined || this.#closed !== undefined) return;
    const { clock, deadline } = this.#o;
    const now = clock.now();
    let at = now + b.intervalMs;
    const final = deadline - FINAL_BOOKMARK_LEAD_MS;
    if (final > now && final < at) at = final;
    if (!(at < deadline)) return;
    this.#cancelBookmark = clock.setTimer(at - now, () => {
      this.bookmark(Math.max(this.#o.currentRv(), this.#lastRv));
      this.#scheduleBookmark();
    });
  }
}
