import { RingBuffer } from "../../core/internal.ts";
import { AsyncChannel } from "./async-channel.ts";
import { type EtcdKeys, toStorageEvents } from "./etcd-codec.ts";
import type { EtcdWatchStream, WatchSubscriber, WatchSubscription } from "./etcd-watch-stream.ts";
import {
  eventRevision,
  type StorageEvent,
  type StorageWatchOptions,
  type WatchBatch,
} from "./storage.ts";
import type { StorageError } from "./storage-error.ts";

/** Options of {@link EtcdWatchHub}. */
export interface EtcdWatchHubOptions {
  readonly stream: EtcdWatchStream;
  readonly keys: EtcdKeys;
  /** Events kept to replay watches that start a little in the past. */
  readonly logCapacity: number;
  /** The store's current revision (a watch with no `fromRevision` starts after it). */
  readonly currentRevision: () => Promise<number>;
  /** The error of a watch whose start was compacted away. */
  readonly compactedError: (from: number, compactRevision: number) => StorageError;
  /** The error of a watch on a closed store. */
  readonly closedError: () => StorageError;
}

interface HubWatcher {
  readonly prefix: string;
  /** First revision to deliver (0 until known). */
  from: number;
  readonly channel: AsyncChannel<WatchBatch>;
  /** Its own etcd subscription, when it starts before the feed's log. */
  own: WatchSubscription | undefined;
  /** The revision of progress not yet handed over (0: none); see `#quiet`. */
  quietTo: number;
}

interface LoggedBatch {
  readonly revision: number;
  readonly events: readonly StorageEvent[];
}

/**
 * The storage watches of an {@link EtcdStorage}, fed by one etcd watch over the whole
 * keyspace (the feed). Because every etcd revision is a change to some key, the feed hears of
 * every revision, so each watcher learns the store's revision with a progress batch even when
 * nothing under its prefix changed — whoever wrote, under whatever prefix — without etcd's
 * progress requests (which etcd 3.4 may answer ahead of events still in flight).
 *
 * Invariants:
 * - While the feed runs, `#log` holds every feed batch with events under the store's prefix
 *   and revision ≥ `#logStart`, in order (at most about `logCapacity` events), and
 *   `#position` is the revision of the last feed batch: the feed has delivered every change
 *   with a revision ≤ `#position`.
 * - A watcher from revision F ≥ `#logStart` replays the log, then hears the feed live; one
 *   from before `#logStart` gets an etcd watcher of its own. Either way it sees every change
 *   ≥ F under its prefix once, in revision order.
 * - `#all` holds every open watcher; `#fed` those on the feed.
 * - Progress is handed over once per event-loop turn: `#quiet` holds the watchers with news of
 *   progress only (`quietTo`), flushed on the next turn — not once per etcd event for each of
 *   a server's dozen watch caches. A watcher's batch of changes supersedes its pending progress.
 */
export class EtcdWatchHub {
  readonly #o: EtcdWatchHubOptions;
  readonly #all = new Set<HubWatcher>();
  readonly #fed = new Set<HubWatcher>();
  readonly #log = new RingBuffer<LoggedBatch>({ initialCapacity: 64 });
  #logEvents = 0;
  #logStart = 0;
  #position = 0;
  #feed: WatchSubscription | undefined;
  readonly #quiet = new Set<HubWatcher>();
  #flushing = false;
  #closed = false;

  constructor(options: EtcdWatchHubOptions) {
    this.#o = options;
  }

  /** See {@link Storage.watch}. */
  watch(prefix: string, options: StorageWatchOptions = {}): AsyncIterable<WatchBatch> {
    const { signal } = options;
    const w: HubWatcher = {
      prefix,
      from: 0,
      own: undefined,
      quietTo: 0,
      channel: new AsyncChannel<WatchBatch>(() => this.#remove(w)),
    };
    const onAbort = () => {
      this.#remove(w);
      w.channel.end();
    };
    if (this.#closed) {
      w.channel.fail(this.#o.closedError());
      return w.channel;
    }
    if (signal?.aborted) {
      w.channel.end();
      return w.channel;
    }
    this.#all.add(w);
    signal?.addEventListener("abort", onAbort, { once: true });
    const start = async () => {
      const from = options.fromRevision ?? (await this.#o.currentRevision()) + 1;
      if (!this.#all.has(w)) return;
      w.from = Math.max(from, 1);
      this.#register(w, options.fromRevision === undefined);
    };
    start().catch((err: unknown) => {
      this.#remove(w);
      w.channel.fail(err);
    });
    return w.channel;
  }

  /** Forgets the log before `revision` (the store compacted to it). */
  compacted(revision: number): void {
    if (this.#feed === undefined || revision <= this.#logStart) return;
    this.#logStart = revision;
    while (this.#log.size > 0 && this.#log.peek()!.revision < revision) {
      this.#logEvents -= this.#log.shift()!.events.length;
    }
  }

  /** Ends every watch. Idempotent. */
  close(): void {
    this.#closed = true;
    this.#feed?.cancel();
    this.#feed = undefined;
    for (const w of [...this.#all]) {
      this.#remove(w);
      w.channel.end();
    }
  }

  #register(w: HubWatcher, fromNow: boolean): void {
    if (this.#feed === undefined) this.#startFeed(w.from);
    if (w.from < this.#logStart) {
      w.own = this.#o.stream.subscribe(w.from, {
        batch: (revision, raw) => this.#deliver(w, revision, toStorageEvents(this.#o.keys, raw)),
        compacted: (c) => {
          this.#remove(w);
          w.channel.fail(this.#o.compactedError(w.from, c));
        },
      });
      return;
    }
    for (let i = 0; i < this.#log.size; i++) {
      const batch = this.#log.at(i)!;
      this.#deliver(w, batch.revision, batch.events);
    }
    // Say where the store is: the feed's position, or `from - 1` for a watch from now (etcd
    // has just told us so), as a watch on a quiet prefix would hear with its next write.
    if (fromNow) progress(w, Math.max(this.#position, w.from - 1));
    else if (this.#position >= w.from) progress(w, this.#position);
    this.#fed.add(w);
  }

  #startFeed(from: number): void {
    this.#logStart = from;
    this.#position = from - 1;
    const subscriber: WatchSubscriber = {
      batch: (revision, raw) => {
        const events = toStorageEvents(this.#o.keys, raw);
        this.#position = revision;
        if (events.length > 0) this.#append({ revision, events });
        for (const w of this.#fed) this.#deliver(w, revision, events);
      },
      compacted: (c) => {
        // Our resume point was compacted while we were cut off: every watcher on the feed has
        // lost changes. They fail (their owners relist); the next watch starts a new feed.
        const lost = [...this.#fed];
        this.#feed = undefined;
        this.#log.clear();
        this.#logEvents = 0;
        for (const w of lost) {
          this.#remove(w);
          w.channel.fail(this.#o.compactedError(w.from, c));
        }
      },
    };
    this.#feed = this.#o.stream.subscribe(from, subscriber);
  }

  #append(batch: LoggedBatch): void {
    this.#log.push(batch);
    this.#logEvents += batch.events.length;
    while (this.#logEvents > this.#o.logCapacity && this.#log.size > 1) {
      const oldest = this.#log.shift()!;
      this.#logEvents -= oldest.events.length;
      this.#logStart = oldest.revision + 1;
    }
  }

  /**
   * Hands a watcher the changes of one batch that are under its prefix and at or after its
   * start; with none, notes the progress for the next flush.
   */
  #deliver(w: HubWatcher, revision: number, events: readonly StorageEvent[]): void {
    if (revision < w.from) return;
    let mine: StorageEvent[] | undefined;
    for (const e of events) {
      if (eventRevision(e) < w.from) continue;
      if (!(e.type === "put" ? e.kv.key : e.key).startsWith(w.prefix)) continue;
      mine ??= [];
      mine.push(e);
    }
    if (mine !== undefined) {
      w.quietTo = 0;
      this.#quiet.delete(w);
      w.channel.push({ revision, events: mine });
      return;
    }
    if (revision > w.quietTo) w.quietTo = revision;
    this.#quiet.add(w);
    if (this.#flushing) return;
    this.#flushing = true;
    setImmediate(() => {
      this.#flushing = false;
      for (const q of this.#quiet) {
        progress(q, q.quietTo);
        q.quietTo = 0;
      }
      this.#quiet.clear();
    });
  }

  #remove(w: HubWatcher): void {
    this.#all.delete(w);
    this.#fed.delete(w);
    this.#quiet.delete(w);
    w.own?.cancel();
    w.own = undefined;
  }
}

/** Tells a watcher the store reached `revision`, merged into an unread progress batch. */
function progress(w: HubWatcher, revision: number): void {
  const last = w.channel.peekLast();
  if (last !== undefined && last.events.length === 0) {
    if (revision > last.revision) w.channel.replaceLast({ revision, events: [] });
  } else w.channel.push({ revision, events: [] });
}
