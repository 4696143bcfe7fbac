import {
  type Clock,
  checkNumber,
  errors,
  type KubeObject,
  realClock,
  sleep,
} from "../../core/index.ts";
import { RingBuffer } from "../../core/internal.ts";
import { SortedMap } from "../storage/sorted-map.ts";
import type { KeyValue, Storage, StorageEvent } from "../storage/storage.ts";
import { isStorageError } from "../storage/storage-error.ts";
import {
  CacheEntry,
  CacheEvent,
  jsonEncoder,
  type ObjectAttrs,
  type SerializationCounter,
  type WatchEncoder,
  withResourceVersion,
} from "./cache-event.ts";
import { type CacheFilter, CacheWatcher, filterMatches } from "./cache-watcher.ts";
import { EventLoopTurns } from "./event-loop-turns.ts";
import type { WatchBacklog } from "./watch-backlog.ts";

/** Delay between attempts to relist after losing the storage watch, while storage fails. */
const RELIST_RETRY_MS = 500;

/** Options for {@link WatchCache}. */
export interface WatchCacheOptions {
  readonly storage: Storage;
  /** The storage prefix of the resource (`/registry/configmaps/`). */
  readonly prefix: string;
  /** Turns a stored value into the object, with `metadata.resourceVersion` set. */
  readonly decode: (kv: KeyValue) => KubeObject;
  /** The labels and selectable fields of an object. */
  readonly attrs: (object: KubeObject) => ObjectAttrs;
  /** Kind and apiVersion of bookmark objects. */
  readonly kind: string;
  readonly apiVersion: string;
  /** @default realClock */
  readonly clock?: Clock;
  /** Events kept in history at least (kube: 100). @default 100 */
  readonly historyMinCapacity?: number;
  /** History never grows beyond this many events (kube: 102 400). @default 102400 */
  readonly historyMaxCapacity?: number;
  /**
   * History doubles instead of evicting while its oldest event is younger than this (kube:
   * 75 s), so watchers that reconnect within it do not get 410. @default 75000
   */
  readonly eventFreshMs?: number;
  /** Lines a watcher may have waiting before it is closed as too slow. @default 1000 */
  readonly watcherBufferSize?: number;
  /** How long a read for a future resourceVersion waits before 504. @default 3000 */
  readonly freshnessTimeoutMs?: number;
  /** Period of bookmarks for watchers that asked for them. @default 60000 */
  readonly bookmarkIntervalMs?: number;
  /** The turns of the event loop, shared by the caches of a server. @default its own */
  readonly turns?: EventLoopTurns;
}

/** What a watch asks for. */
export interface CacheWatchRequest {
  readonly filter: CacheFilter;
  /** @default the JSON encoder */
  readonly encoder?: WatchEncoder;
  /**
   * Deliver changes after this resourceVersion; absent: start now, first sending the current
   * state as ADDED events.
   */
  readonly startRv?: number;
  /** With `startRv` absent, send the current state first (otherwise start empty). @default true */
  readonly initialEvents?: boolean;
  /** Periodic BOOKMARK events. @default false */
  readonly allowBookmarks?: boolean;
  /** End the initial events with the `k8s.io/initial-events-end` bookmark. @default false */
  readonly initialEventsEndBookmark?: boolean;
  /** When the watch ends (ms since epoch on the cache clock). @default Infinity */
  readonly deadline?: number;
}

/** Counters of one cache. */
export interface WatchCacheStats {
  readonly resourceVersion: number;
  readonly objects: number;
  readonly events: number;
  readonly serializations: number;
  readonly watchers: number;
  readonly historySize: number;
  readonly historyCapacity: number;
  readonly slowWatchersClosed: number;
}

/**
 * The watch cache of one resource: its current state plus a history of recent events, fed by
 * one storage watch, serving lists and any number of watches (kube's Cacher + watchCache).
 *
 * Invariants:
 * - `#entries` is the state at `#rv`; `#history` holds the events with rv in
 *   (`#oldestRv - 1`, `#rv`], in rv order, at most `#capacity` of them.
 * - Each event is encoded at most once per encoder, whatever the number of watchers.
 * - A watch from resourceVersion N is served iff N ≥ `#oldestRv - 1`; otherwise it gets one
 *   ERROR event with 410 Expired.
 * - A watcher is registered, and its backlog (initial events, or the recorded events after its
 *   start) snapshotted, in one synchronous step, so it sees each event after its start exactly
 *   once, in order: those up to `#rv` from the backlog, the later ones live.
 */
export class WatchCache {
  readonly #o: Required<Omit<WatchCacheOptions, "clock" | "turns">>;
  readonly #turns: EventLoopTurns;
  readonly #clock: Clock;
  readonly #entries = new SortedMap<CacheEntry>();
  readonly #history = new RingBuffer<CacheEvent>({ initialCapacity: 128 });
  #capacity: number;
  #rv = 0;
  /** Oldest rv a watch can start after (+1): the list rv + 1 until an eviction. */
  #oldestRv = 1;
  readonly #watchers = new Set<CacheWatcher>();
  #freshWaiters: { rv: number; resolve: () => void }[] = [];
  readonly #counter: SerializationCounter = { serializations: 0 };
  #events = 0;
  #slowClosed = 0;
  #abort: AbortController | undefined;
  #loop: Promise<void> | undefined;

  constructor(options: WatchCacheOptions) {
    const owner = "WatchCache";
    this.#clock = options.clock ?? realClock;
    this.#turns = options.turns ?? new EventLoopTurns();
    this.#o = {
      ...options,
      historyMinCapacity: checkNumber(
        owner,
        "historyMinCapacity",
        options.historyMinCapacity ?? 100,
        { min: 1, integer: true },
      ),
      historyMaxCapacity: checkNumber(
        owner,
        "historyMaxCapacity",
        options.historyMaxCapacity ?? 102400,
        { min: 1, integer: true },
      ),
      eventFreshMs: checkNumber(owner, "eventFreshMs", options.eventFreshMs ?? 75000, { min: 0 }),
      watcherBufferSize: checkNumber(
        owner,
        "watcherBufferSize",
        options.watcherBufferSize ?? 1000,
        { min: 1, integer: true },
      ),
      freshnessTimeoutMs: checkNumber(
        owner,
        "freshnessTimeoutMs",
        options.freshnessTimeoutMs ?? 3000,
        { min: 0 },
      ),
      bookmarkIntervalMs: checkNumber(
        owner,
        "bookmarkIntervalMs",
        options.bookmarkIntervalMs ?? 60000,
        { above: 0 },
      ),
    };
    if (this.#o.historyMaxCapacity < this.#o.historyMinCapacity) {
      throw new RangeError(
        `WatchCache: option historyMaxCapacity (${this.#o.historyMaxCapacity}) must be >= historyMinCapacity (${this.#o.historyMinCapacity})`,
      );
    }
    this.#capacity = this.#o.historyMinCapacity;
  }

  /** Lists the resource from storage and starts following its changes. Resolves when ready. */
  async start(): Promise<void> {
    if (this.#abort !== undefined) return;
    this.#abort = new AbortController();
    await this.#relist();
    this.#loop = this.#follow(this.#abort.signal);
  }

  /** The resourceVersion the cache has reached. */
  get resourceVersion(): number {
    return this.#rv;
  }

  stats(): WatchCacheStats {
    return {
      resourceVersion: this.#rv,
      objects: this.#entries.size,
      events: this.#events,
      serializations: this.#counter.serializations,
      watchers: this.#watchers.size,
      historySize: this.#history.size,
      historyCapacity: this.#capacity,
      slowWatchersClosed: this.#slowClosed,
    };
  }

  /**
   * Resolves once the cache has reached `rv`; rejects with 504 Timeout (`Too large resource
   * version`) after `freshnessTimeoutMs`, or with `signal.reason`.
   */
  waitUntilFresh(rv: number, signal?: AbortSignal): Promise<void> {
    if (this.#rv >= rv) return Promise.resolve();
    if (signal?.aborted) return Promise.reject(signal.reason);
    return new Promise<void>((resolve, reject) => {
      const waiter = {
        rv,
        resolve: () => {
          cancel();
          signal?.removeEventListener("abort", onAbort);
          resolve();
        },
      };
      const drop = () => {
        this.#freshWaiters = this.#freshWaiters.filter((w) => w !== waiter);
      };
      const onAbort = () => {
        cancel();
        drop();
        reject(signal!.reason);
      };
      const cancel = this.#clock.setTimer(this.#o.freshnessTimeoutMs, () => {
        drop();
        signal?.removeEventListener("abort", onAbort);
        reject(
          errors.timeout(
            `Too large resource version: ${rv}, current: ${this.#rv}`,
            1,
            "ResourceVersionTooLarge",
          ),
        );
      });
      signal?.addEventListener("abort", onAbort, { once: true });
      this.#freshWaiters.push(waiter);
    });
  }

  /** An entry's JSON for `encoder` (UTF-8), memoized on the entry and counted. */
  entryJson(entry: CacheEntry, encoder: WatchEncoder): Buffer {
    return entry.json(encoder, this.#counter);
  }

  /** The current object under a storage key. */
  get(key: string): CacheEntry | undefined {
    return this.#entries.get(key);
  }

  /** The current objects passing `filter`, in key order, and the cache's resourceVersion. */
  list(filter: CacheFilter): { entries: CacheEntry[]; rv: number } {
    const prefix = filter.namespace ? `${this.#o.prefix}${filter.namespace}/` : this.#o.prefix;
    const inPrefix = this.#entries.valuesWithPrefix(prefix);
    // The prefix holds the namespace: only selectors are left to check.
    const entries =
      filter.label.empty && filter.field.empty
        ? inPrefix
        : inPrefix.filter((e) => filterMatches(filter, e.namespace, e.attrs));
    return { entries, rv: this.#rv };
  }

  /**
   * Starts a watch (see {@link CacheWatchRequest}); a too-old start gets an ERROR event. The
   * initial events, or the recorded events after the start, are taken now as the watcher's
   * backlog and handed out as the client reads them.
   */
  watch(request: CacheWatchRequest): CacheWatcher {
    let backlog: WatchBacklog | undefined;
    if (request.startRv === undefined) {
      backlog = {
        kind: "initial",
        entries: (request.initialEvents ?? true) ? this.list(request.filter).entries : [],
        ...(request.initialEventsEndBookmark ? { endBookmarkRv: this.#rv } : {}),
      };
    } else if (request.startRv >= this.#oldestRv - 1) {
      const from = this.#firstEventAfter(request.startRv);
      const events: CacheEvent[] = [];
      for (let i = from; i < this.#history.size; i++) events.push(this.#history.at(i)!);
      backlog = { kind: "replay", events };
    }
    const w = new CacheWatcher({
      filter: request.filter,
      encoder: request.encoder ?? jsonEncoder,
      counter: this.#counter,
      clock: this.#clock,
      startRv: Math.max(request.startRv ?? this.#rv, this.#rv),
      ...(backlog ? { backlog } : {}),
      maxPending: this.#o.watcherBufferSize,
      bookmarks: request.allowBookmarks
        ? {
            kind: this.#o.kind,
            apiVersion: this.#o.apiVersion,
            intervalMs: this.#o.bookmarkIntervalMs,
          }
        : undefined,
      deadline: request.deadline ?? Number.POSITIVE_INFINITY,
      currentRv: () => this.#rv,
      turns: this.#turns,
      onClose: (closed) => {
        this.#watchers.delete(closed);
        if (closed.closeReason === "slow") this.#slowClosed++;
      },
    });
    if (backlog === undefined) {
      const oldest = this.#oldestRv - 1;
      w.fail(errors.expired(`too old resource version: ${request.startRv} (${oldest})`).status);
      return w;
    }
    this.#watchers.add(w);
    w.start();
    return w;
  }

  /**
   * Forgets the recorded events, as if they had all been evicted: a watch from any
   * resourceVersion older than the current one gets 410 Expired (fault injection for tests of
   * clients' relists).
   */
  dropHistory(): void {
    this.#history.clear();
    this.#oldestRv = this.#rv + 1;
  }

  /** Closes every watcher (clients reconnect from their last resourceVersion). */
  terminateAllWatchers(): void {
    for (const w of [...this.#watchers]) w.close("terminated");
  }

  /** Stops following storage and closes every watcher. Idempotent. */
  async close(): Promise<void> {
    this.#abort?.abort();
    for (const w of [...this.#watchers]) w.close("cache-closed");
    await this.#loop;
  }

  async #relist(): Promise<void> {
    const { kvs, revision } = await this.#o.storage.list(this.#o.prefix);
    this.#entries.clear();
    for (const kv of kvs) {
      const object = this.#o.decode(kv);
      this.#entries.set(
        kv.key,
        new CacheEntry(kv.key, object, kv.modRevision, this.#o.attrs(object)),
      );
    }
    this.#history.clear();
    this.#rv = revision;
    this.#oldestRv = revision + 1;
    this.#resolveFresh();
  }

  async #follow(signal: AbortSignal): Promise<void> {
    while (!signal.aborted) {
      try {
        const batches = this.#o.storage.watch(this.#o.prefix, {
          fromRevision: this.#rv + 1,
          signal,
        });
        for await (const batch of batches) {
          for (const event of batch.events) this.#apply(event);
          if (batch.revision > this.#rv) this.#rv = batch.revision;
          this.#resolveFresh();
        }
        return; // storage closed or aborted
      } catch (err) {
        if (signal.aborted || isStorageError(err, "Closed")) return;
        // Lost the storage watch (compacted past us): start over, then close every watcher —
        // also those that started during the relist, from the old state — so that each
        // reconnects from its resourceVersion and gets the new state or 410.
        for (;;) {
          try {
            await this.#relist();
            break;
          } catch (relistErr) {
            if (signal.aborted || isStorageError(relistErr, "Closed")) return;
            // Storage unreachable (etcd down): try again shortly.
            await sleep(RELIST_RETRY_MS, { clock: this.#clock, signal }).catch(() => {});
          }
        }
        this.terminateAllWatchers();
      }
    }
  }

  #apply(event: StorageEvent): void {
    const now = this.#clock.now();
    let ce: CacheEvent;
    if (event.type === "put") {
      const object = this.#o.decode(event.kv);
      const entry = new CacheEntry(
        event.kv.key,
        object,
        event.kv.modRevision,
        this.#o.attrs(object),
      );
      const prev = this.#entries.get(event.kv.key);
      this.#entries.set(event.kv.key, entry);
      ce = new CacheEvent(prev ? "MODIFIED" : "ADDED", entry.rv, entry, prev, now);
    } else {
      const prev = this.#entries.get(event.key);
      if (prev === undefined) return;
      this.#entries.delete(event.key);
      const last = new CacheEntry(
        event.key,
        withResourceVersion(prev.object, event.revision),
        event.revision,
        prev.attrs,
      );
      ce = new CacheEvent("DELETED", event.revision, last, prev, now);
    }
    this.#rv = ce.rv;
    this.#events++;
    this.#record(ce);
    for (const w of this.#watchers) w.deliver(ce);
  }

  #record(event: CacheEvent): void {
    if (this.#history.size >= this.#capacity) {
      const oldest = this.#history.peek()!;
      const fresh = event.recordedAt - oldest.recordedAt < this.#o.eventFreshMs;
      if (fresh && this.#capacity < this.#o.historyMaxCapacity) {
        this.#capacity = Math.min(this.#capacity * 2, this.#o.historyMaxCapacity);
      } else {
        while (this.#history.size >= this.#capacity) this.#history.shift();
        this.#oldestRv = this.#history.peek()?.rv ?? event.rv;
      }
    }
    this.#history.push(event);
  }

  #firstEventAfter(rv: number): number {
    let lo = 0;
    let hi = this.#history.size;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (this.#history.at(mid)!.rv <= rv) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  #resolveFresh(): void {
    if (this.#freshWaiters.length === 0) return;
    const ready = this.#freshWaiters.filter((w) => w.rv <= this.#rv);
    if (ready.length === 0) return;
    this.#freshWaiters = this.#freshWaiters.filter((w) => w.rv > this.#rv);
    for (const w of ready) w.resolve();
  }
}
