import {
  type CancelTimer,
  type Clock,
  type FieldSelector,
  INITIAL_EVENTS_END_ANNOTATION,
  type LabelSelector,
} from "../../core/index.ts";
import type { CacheEvent, ObjectAttrs, SerializationCounter, WatchEncoder } from "./cache-event.ts";
import { EventLoopTurns } from "./event-loop-turns.ts";
import { backlogChunks, type WatchBacklog } from "./watch-backlog.ts";

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
  /**
   * Live events with a resourceVersion at or below this are not delivered: the backlog holds
   * what the watcher sees up to it.
   */
  readonly startRv: number;
  /** What is sent before any live event (see {@link WatchBacklog}). */
  readonly backlog?: WatchBacklog;
  /** Live lines waiting to be written beyond which the watcher is closed as too slow. */
  readonly maxPending: number;
  /** The bookmark object's kind and apiVersion, when the client asked for bookmarks. */
  readonly bookmarks: { kind: string; apiVersion: string; intervalMs: number } | undefined;
  /** When the watch ends (cache clock, ms since epoch); `Infinity` for never. */
  readonly deadline: number;
  /** The cache's current resourceVersion (what a bookmark reports). */
  readonly currentRv: () => number;
  /** Called once when the watcher closes, to unregister it. */
  readonly onClose: (w: CacheWatcher) => void;
  /** The turns of the event loop, shared by the watchers of a server. @default its own */
  readonly turns?: EventLoopTurns;
}

/** How long before its deadline a watch gets its last bookmark (kube: 2 s). */
const FINAL_BOOKMARK_LEAD_MS = 2000;

type EventType = "ADDED" | "MODIFIED" | "DELETED";

/** A queued live line: encoded already (bookmark, error), or an event encoded when taken. */
type Queued = Buffer | { readonly event: CacheEvent; readonly as: EventType };

/**
 * One client's watch on a watch cache: the cache pushes live events into it; the HTTP layer
 * iterates it and writes each batch to the response (waiting while the socket is full). A batch
 * is a list of buffers, each holding one or more whole lines.
 *
 * Invariants:
 * - The iteration hands out the backlog (a snapshot taken at the start, see
 *   {@link WatchBacklog}) in chunks first, then the live lines in the order they were queued.
 *   The backlog is encoded as it is taken, so a large one costs the writer's pace, not memory
 *   for its lines, and never counts against `maxPending` (kube's cacheWatcher also sends its
 *   initial events from a snapshot before its bounded input channel).
 * - Live events are queued in resourceVersion order and only above `#lastRv`, which starts at
 *   `startRv` (the backlog covers everything at or below it), so no event is sent twice.
 * - `#pending` never holds more than `maxPending` lines: a live line that would exceed it while
 *   the writer is busy (with the backlog or a full socket) closes the watcher as "slow", which
 *   drops the backlog and the queued lines (its client resumes from the last resourceVersion it
 *   received). Any other close ends the iteration after the backlog and the queued lines.
 * - A periodic bookmark is queued behind everything already queued, backlog included, and
 *   reports the cache's resourceVersion (or the last queued event's, if later): every event the
 *   watcher sees at or below that rv is ahead of it in the stream, so a client resuming from a
 *   bookmark misses nothing — while the backlog drains, a due bookmark waits behind it.
 * - Lines are encoded when the writer takes them, in stream order, so an encoder with state (a
 *   Table watch's column definitions go with the first row) sees the rows as the client does.
 */
export class CacheWatcher implements AsyncIterable<Buffer[]> {
  readonly #o: CacheWatcherOptions;
  #backlog: Iterator<Buffer[], void, undefined> | undefined;
  #pending: Queued[] = [];
  #waiter: ((lines: Buffer[] | undefined) => void) | undefined;
  #lastRv: number;
  #closed: WatchCloseReason | undefined;
  #cancelBookmark: CancelTimer | undefined;
  #cancelDeadline: CancelTimer | undefined;
  #wakeScheduled = false;
  /** The turn of the event loop ({@link EventLoopTurns}) of the last handover by microtask. */
  #handedInTurn = -1;
  readonly #closedWaiters: ((reason: WatchCloseReason) => void)[] = [];

  readonly #turns: EventLoopTurns;

  constructor(options: CacheWatcherOptions) {
    this.#o = options;
    this.#turns = options.turns ?? new EventLoopTurns();
    this.#lastRv = options.startRv;
    const b = options.backlog;
    if (b?.kind === "initial") {
      const { encoder, counter } = options;
      const endRv = b.endBookmarkRv;
      const end =
        endRv === undefined || options.bookmarks === undefined
          ? undefined
          : () => this.#bookmarkLine(endRv, { [INITIAL_EVENTS_END_ANNOTATION]: "true" });
      this.#backlog = backlogChunks(b.entries, (e) => e.addedLine(encoder, counter), end);
    } else if (b?.kind === "replay") {
      this.#backlog = backlogChunks(b.events, (event) => {
        const as = this.#visibleAs(event);
        return as === undefined ? undefined : event.line(as, this.#o.encoder, this.#o.counter);
      });
    }
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

  /**
   * True while the batch last handed out came from the backlog (it stays true until the
   * iteration moves past the backlog's last chunk): the writer sends those through its reused
   * chunks, and live batches as they are.
   */
  get inBacklog(): boolean {
    return this.#backlog !== undefined;
  }

  /** Live lines queued and not yet taken by the writer (the backlog not counted). */
  get pending(): number {
    return this.#pending.length;
  }

  /** Resolves with the reason once the watcher closes. */
  closed(): Promise<WatchCloseReason> {
    if (this.#closed !== undefined) return Promise.resolve(this.#closed);
    return new Promise((resolve) => this.#closedWaiters.push(resolve));
  }

  /** Queues live `event` as this watcher sees it: filtered, with selector transitions applied. */
  deliver(event: CacheEvent): void {
    if (this.#closed !== undefined || event.rv <= this.#lastRv) return;
    this.#lastRv = event.rv;
    const as = this.#visibleAs(event);
    if (as !== undefined) this.#push({ event, as });
  }

  /** Queues a BOOKMARK at `rv`. */
  bookmark(rv: number): void {
    if (this.#o.bookmarks === undefined || this.#closed !== undefined) return;
    this.#push(this.#bookmarkLine(rv));
  }

  /** Queues one ERROR event carrying `status` and closes the watcher. */
  fail(status: object): void {
    if (this.#closed !== undefined) return;
    this.#pending.push(Buffer.from(`{"type":"ERROR","object":${JSON.stringify(status)}}\n`));
    this.close("error");
  }

  /**
   * Closes the watcher; the backlog and the lines already queued are still handed out, unless
   * it was too slow.
   */
  close(reason: WatchCloseReason): void {
    if (this.#closed !== undefined) return;
    this.#closed = reason;
    if (reason === "slow") {
      this.#pending = [];
      this.#backlog = undefined;
    }
    this.#cancelBookmark?.();
    this.#cancelDeadline?.();
    this.#o.onClose(this);
    this.#wake();
    for (const w of this.#closedWaiters.splice(0)) w(reason);
  }

  async *[Symbol.asyncIterator](): AsyncIterator<Buffer[]> {
    try {
      for (;;) {
        if (this.#backlog !== undefined) {
          const chunk = this.#backlog.next();
          if (chunk.done !== true) {
            yield chunk.value;
            continue;
          }
          this.#backlog = undefined;
        }
        if (this.#pending.length > 0) {
          yield this.#takePending();
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

  /** How this watcher sees `event` (a selector transition turns a MODIFIED into ADDED or DELETED). */
  #visibleAs(event: CacheEvent): EventType | undefined {
    const f = this.#o.filter;
    const now = filterMatches(f, event.entry.namespace, event.entry.attrs);
    if (event.type !== "MODIFIED") return now ? event.type : undefined;
    const before = filterMatches(f, event.prev!.namespace, event.prev!.attrs);
    return now ? (before ? "MODIFIED" : "ADDED") : before ? "DELETED" : undefined;
  }

  #bookmarkLine(rv: number, annotations?: Record<string, string>): Buffer {
    const b = this.#o.bookmarks!;
    const metadata = annotations
      ? { resourceVersion: String(rv), annotations }
      : { resourceVersion: String(rv) };
    const object = { kind: b.kind, apiVersion: b.apiVersion, metadata };
    return Buffer.from(`{"type":"BOOKMARK","object":${JSON.stringify(object)}}\n`);
  }

  #push(line: Queued): void {
    if (this.#closed !== undefined) return;
    // The bound applies while the writer is busy (with the backlog, or its socket full): not
    // while it waits for lines, nor in the turn of the event loop in which it was handed some
    // (it is writing them; what is queued meanwhile goes to it together on the next turn).
    if (
      this.#waiter === undefined &&
      this.#handedInTurn !== this.#turns.turn &&
      this.#pending.length >= this.#o.maxPending
    ) {
      this.close("slow");
      return;
    }
    this.#pending.push(line);
    this.#wake();
  }

  /** Takes the queued lines, encoding those that are events. */
  #takePending(): Buffer[] {
    const queued = this.#pending;
    this.#pending = [];
    const { encoder, counter } = this.#o;
    return queued.map((q) => (Buffer.isBuffer(q) ? q : q.event.line(q.as, encoder, counter)));
  }

  /**
   * Hands the queued lines to a waiting writer. The first handover of a turn of the event loop
   * happens as soon as the code that queued them is done (a microtask): a lone event reaches the
   * socket in the same turn as the write that caused it — with the write's response, so that
   * nothing the server does next (other requests, a collection) comes between the two. Lines
   * queued after that in the same turn wait for the next turn (`setImmediate`) and go together,
   * so that a burst of events reaches the socket in a few writes instead of one per event (kube's
   * watch server likewise writes an event at once and flushes only when no other one waits).
   * Closing hands over at once.
   */
  #wake(): void {
    if (this.#waiter === undefined || this.#wakeScheduled) return;
    if (this.#closed !== undefined) {
      this.#handOver();
      return;
    }
    this.#wakeScheduled = true;
    const handOver = () => {
      this.#wakeScheduled = false;
      this.#handOver();
    };
    const now = this.#turns.current();
    if (this.#handedInTurn === now) {
      setImmediate(handOver);
    } else {
      this.#handedInTurn = now;
      queueMicrotask(handOver);
    }
  }

  #handOver(): void {
    const waiter = this.#waiter;
    if (waiter === undefined) return;
    this.#waiter = undefined;
    waiter(this.#pending.length > 0 ? this.#takePending() : undefined);
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
