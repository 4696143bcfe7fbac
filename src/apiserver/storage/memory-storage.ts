import { RingBuffer } from "../../core/internal.ts";
import { AsyncChannel } from "./async-channel.ts";
import { SortedMap } from "./sorted-map.ts";
import type {
  DeleteResult,
  KeyValue,
  Storage,
  StorageEvent,
  StorageListOptions,
  StorageListResult,
  StorageWatchOptions,
  WatchBatch,
} from "./storage.ts";
import { StorageError, type StorageErrorCode } from "./storage-error.ts";

/** One state of one key: its entry from `revision` on, or a deletion (`kv` undefined). */
interface Version {
  readonly revision: number;
  readonly kv: KeyValue | undefined;
}

interface MemoryWatcher {
  readonly prefix: string;
  readonly channel: AsyncChannel<WatchBatch>;
  /** The revision the watcher has been told of: by its last event, or by progress. */
  toldTo: number;
}

/** The events of a progress batch (one array for all of them: batches are never changed). */
const NO_EVENTS: readonly StorageEvent[] = [];

/**
 * The embedded, in-memory {@link Storage}: multi-version, with an event log for watches.
 *
 * Invariants:
 * - `#history` maps each key, in key order, to its versions in ascending revision order; the
 *   newest version is the key's current state.
 * - Versions older than the newest one at or below `#compacted` are gone; a key whose only
 *   remaining version is a deletion at or below `#compacted` is gone entirely.
 * - `#log` holds every event with revision ≥ `#compacted`, in revision order.
 * - Every write is applied and delivered to every watcher of its key before the call's promise
 *   settles, so watchers see writes in revision order.
 * - Watchers whose prefix a write does not touch learn the revision from a progress batch,
 *   handed over once per event-loop turn (`#flushing` while one is due): each watcher told of
 *   less than the current revision (`toldTo`) then gets one — not once per write for each of a
 *   server's ~60 watch caches, each of which wakes for it (as the etcd storage's watch hub
 *   does). A write does no work for the watchers it does not touch.
 *
 * Not guaranteed: bounded memory. History grows until `compact` is called (the API server's
 * compactor calls it periodically).
 */
export class MemoryStorage implements Storage {
  #revision = 1;
  #compacted = 1;
  readonly #history = new SortedMap<Version[]>();
  readonly #log = new RingBuffer<StorageEvent>({ initialCapacity: 1024 });
  readonly #watchers = new Set<MemoryWatcher>();
  #flushing = false;
  #closed = false;

  async currentRevision(): Promise<number> {
    this.#checkOpen();
    return this.#revision;
  }

  async compactedRevision(): Promise<number> {
    this.#checkOpen();
    return this.#compacted;
  }

  async get(key: string, options: { revision?: number } = {}): Promise<KeyValue | undefined> {
    this.#checkOpen();
    const revision = this.#readRevision(options.revision);
    const versions = this.#history.get(key);
    return versions === undefined ? undefined : versionAt(versions, revision)?.kv;
  }

  async list(prefix: string, options: StorageListOptions = {}): Promise<StorageListResult> {
    this.#checkOpen();
    const revision = this.#readRevision(options.revision);
    const limit = options.limit !== undefined && options.limit > 0 ? options.limit : Infinity;
    const start =
      options.startKey !== undefined && options.startKey > prefix ? options.startKey : prefix;
    const kvs: KeyValue[] = [];
    let more = false;
    let remaining = 0;
    const current = revision === this.#revision;
    for (const key of this.#history.keysFrom(start)) {
      if (!key.startsWith(prefix)) break;
      const versions = this.#history.get(key)!;
      const kv = current ? versions[versions.length - 1]!.kv : versionAt(versions, revision)?.kv;
      if (kv === undefined) continue;
      if (kvs.length < limit) {
        kvs.push(kv);
        continue;
      }
      more = true;
      if (!options.countRemaining) break;
      remaining++;
    }
    return options.countRemaining ? { kvs, revision, more, remaining } : { kvs, revision, more };
  }

  async create(key: string, value: string): Promise<KeyValue> {
    this.#checkOpen();
    const current = this.#current(key);
    if (current !== undefined) this.#fail("KeyExists", `key ${key} already exists`, key);
    const revision = this.#revision + 1;
    const kv: KeyValue = {
      key,
      value,
      createRevision: revision,
      modRevision: revision,
      version: 1,
    };
    this.#apply(key, kv, { type: "put", kv });
    return kv;
  }

  async update(key: string, value: string, expectedModRevision: number): Promise<KeyValue> {
    this.#checkOpen();
    const prev = this.#current(key);
    if (prev === undefined) return this.#fail("NotFound", `key ${key} not found`, key);
    if (prev.modRevision !== expectedModRevision) {
      this.#fail(
        "Conflict",
        `key ${key} is at revision ${prev.modRevision}, not ${expectedModRevision}`,
        key,
      );
    }
    const revision = this.#revision + 1;
    const kv: KeyValue = {
      key,
      value,
      createRevision: prev.createRevision,
      modRevision: revision,
      version: prev.version + 1,
    };
    this.#apply(key, kv, { type: "put", kv, prev });
    return kv;
  }

  async delete(key: string, expectedModRevision?: number): Promise<DeleteResult> {
    this.#checkOpen();
    const prev = this.#current(key);
    if (prev === undefined) return this.#fail("NotFound", `key ${key} not found`, key);
    if (expectedModRevision !== undefined && prev.modRevision !== expectedModRevision) {
      this.#fail(
        "Conflict",
        `key ${key} is at revision ${prev.modRevision}, not ${expectedModRevision}`,
        key,
      );
    }
    const revision = this.#revision + 1;
    this.#apply(key, undefined, { type: "delete", key, revision, prev });
    return { revision, prev };
  }

  watch(prefix: string, options: StorageWatchOptions = {}): AsyncIterable<WatchBatch> {
    const { signal } = options;
    let watcher: MemoryWatcher | undefined;
    const onAbort = () => channel.end();
    const channel = new AsyncChannel<WatchBatch>(() => {
      if (watcher !== undefined) this.#watchers.delete(watcher);
      signal?.removeEventListener("abort", onAbort);
    });
    if (this.#closed) {
      channel.fail(this.#error("Closed", "storage is closed"));
      return channel;
    }
    const from = options.fromRevision ?? this.#revision + 1;
    if (from < this.#compacted) {
      channel.fail(
        this.#error(
          "Compacted",
          `revision ${from} has been compacted (oldest available: ${this.#compacted})`,
        ),
      );
      return channel;
    }
    if (signal?.aborted) {
      channel.end();
      return channel;
    }
    // Replay history at or after `from`, then go live.
    for (let i = this.#firstLogIndexAtOrAfter(from); i < this.#log.size; i++) {
      const event = this.#log.at(i)!;
      const key = event.type === "put" ? event.kv.key : event.key;
      if (key.startsWith(prefix)) channel.push({ revision: eventRev(event), events: [event] });
    }
    watcher = { prefix, channel, toldTo: this.#revision };
    this.#watchers.add(watcher);
    signal?.addEventListener("abort", onAbort, { once: true });
    return channel;
  }

  async compact(revision: number): Promise<void> {
    this.#checkOpen();
    if (revision > this.#revision) {
      this.#fail(
        "FutureRevision",
        `cannot compact to ${revision}: the store is at ${this.#revision}`,
      );
    }
    if (revision <= this.#compacted) return;
    while (this.#log.size > 0 && eventRev(this.#log.peek()!) < revision) {
      const event = this.#log.shift()!;
      this.#compactKey(event.type === "put" ? event.kv.key : event.key, revision);
    }
    this.#compacted = revision;
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    for (const w of this.#watchers) w.channel.end();
    this.#watchers.clear();
  }

  #compactKey(key: string, revision: number): void {
    const versions = this.#history.get(key);
    if (versions === undefined) return;
    // Keep the newest version at or below `revision` (what a read there sees) and all after.
    let keep = 0;
    for (let i = versions.length - 1; i >= 0; i--) {
      if (versions[i]!.revision <= revision) {
        keep = i;
        break;
      }
    }
    if (versions[keep]!.revision <= revision && versions[keep]!.kv === undefined) keep++;
    if (keep > 0) versions.splice(0, keep);
    if (versions.length === 0) {
      this.#history.delete(key);
    }
  }

  #apply(key: string, kv: KeyValue | undefined, event: StorageEvent): void {
    const revision = eventRev(event);
    this.#revision = revision;
    let versions = this.#history.get(key);
    if (versions === undefined) {
      versions = [];
      this.#history.set(key, versions);
    }
    versions.push({ revision, kv });
    this.#log.push(event);
    for (const w of this.#watchers) {
      if (!key.startsWith(w.prefix)) continue;
      w.channel.push({ revision, events: [event] });
      w.toldTo = revision;
    }
    if (this.#flushing) return;
    this.#flushing = true;
    setImmediate(() => this.#flushProgress());
  }

  /** Tells each watcher behind the current revision of it (see the class invariants). */
  #flushProgress(): void {
    this.#flushing = false;
    const revision = this.#revision;
    for (const w of this.#watchers) {
      if (w.toldTo >= revision) continue;
      // Merged into an unread progress batch, if the watcher has one.
      const batch = { revision, events: NO_EVENTS };
      const last = w.channel.peekLast();
      if (last !== undefined && last.events.length === 0) w.channel.replaceLast(batch);
      else w.channel.push(batch);
      w.toldTo = revision;
    }
  }

  #current(key: string): KeyValue | undefined {
    const versions = this.#history.get(key);
    return versions === undefined ? undefined : versions[versions.length - 1]!.kv;
  }

  #readRevision(revision: number | undefined): number {
    if (revision === undefined || revision === 0) return this.#revision;
    if (revision < this.#compacted) {
      this.#fail(
        "Compacted",
        `revision ${revision} has been compacted (oldest available: ${this.#compacted})`,
      );
    }
    if (revision > this.#revision) {
      this.#fail(
        "FutureRevision",
        `revision ${revision} is ahead of the store (${this.#revision})`,
      );
    }
    return revision;
  }

  #firstLogIndexAtOrAfter(revision: number): number {
    let lo = 0;
    let hi = this.#log.size;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (eventRev(this.#log.at(mid)!) < revision) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  #checkOpen(): void {
    if (this.#closed) this.#fail("Closed", "storage is closed");
  }

  #error(code: StorageErrorCode, message: string, key?: string): StorageError {
    return new StorageError(code, message, {
      ...(key === undefined ? {} : { key }),
      currentRevision: this.#revision,
      compactedRevision: this.#compacted,
    });
  }

  #fail(code: StorageErrorCode, message: string, key?: string): never {
    throw this.#error(code, message, key);
  }
}

function eventRev(event: StorageEvent): number {
  return event.type === "put" ? event.kv.modRevision : event.revision;
}

/** The newest version at or below `revision`. */
function versionAt(versions: readonly Version[], revision: number): Version | undefined {
  for (let i = versions.length - 1; i >= 0; i--) {
    if (versions[i]!.revision <= revision) return versions[i];
  }
  return undefined;
}
