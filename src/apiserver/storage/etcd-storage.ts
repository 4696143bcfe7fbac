import {
  Backoff,
  type BackoffOptions,
  type Clock,
  checkNumber,
  InvalidOptionError,
  realClock,
  sleep,
} from "../../core/index.ts";
import { createEtcdClient, type EtcdClient, type EtcdKv } from "./etcd-client.ts";
import {
  classifyEtcdError,
  type ErrorContext,
  EtcdKeys,
  storageError,
  toKeyValue,
} from "./etcd-codec.ts";
import type { RawKeyValue, ResponseHeader } from "./etcd-proto.ts";
import { EtcdWatchHub } from "./etcd-watch-hub.ts";
import { EtcdWatchStream } from "./etcd-watch-stream.ts";
import type {
  DeleteResult,
  KeyValue,
  Storage,
  StorageListOptions,
  StorageListResult,
  StorageWatchOptions,
  WatchBatch,
} from "./storage.ts";
import { isStorageError, type StorageError, type StorageErrorCode } from "./storage-error.ts";

/** Options of {@link EtcdStorage}. */
export interface EtcdStorageOptions {
  /** etcd client URLs. @default ["http://127.0.0.1:2379"] */
  endpoints?: readonly string[];
  /**
   * Prepended to every storage key. The registry's keys already start with `/registry/`, as
   * kube's do, so with the default the layout in etcd is kube's; give each API server
   * deployment (or test) sharing one etcd its own prefix. @default ""
   */
  prefix?: string;
  /** Deadline of each etcd request; one that passes it fails as `Unavailable`. @default 10000 */
  requestTimeoutMs?: number;
  /** Changes kept in memory to start watches a little in the past without etcd. @default 1000 */
  watchLogCapacity?: number;
  /** Delays between attempts to reopen the watch stream. @default 100 ms doubling to 2 s */
  reconnectBackoff?: BackoffOptions;
  /** Runs reconnection delays. @default realClock */
  clock?: Clock;
}

/** Options of {@link EtcdStorage.ready}. */
export interface EtcdReadyOptions {
  signal?: AbortSignal;
  /** Called after each failed attempt, before waiting `delayMs`. */
  onRetry?: (err: StorageError, attempt: number, delayMs: number) => void;
}

/** The key of no object: reading it costs etcd nothing and answers with its revision. */
const PROBE_KEY = Buffer.from([0]);

/**
 * A {@link Storage} on etcd v3: the etcd revision is the resourceVersion, creates and
 * compare-and-swap writes are etcd transactions, lists are range reads (at a past revision for
 * consistent pages), watches come from one etcd watch, and compaction is etcd's. Several API
 * servers on one etcd (and prefix) serve the same data: a write through one is seen by the
 * watches of all, with the same resourceVersions.
 *
 * The constructor connects to nothing; the first call does. When etcd is unreachable, calls
 * fail with `StorageError` `Unavailable` (503 from the server) and watches wait: they resume
 * where they were once etcd is back — or fail with `Compacted` if etcd compacted past them.
 *
 * Invariants: `#revision` and `#compacted` only grow; they are the newest revision and the
 * highest compaction this client has seen, for error details (etcd's are authoritative).
 */
export class EtcdStorage implements Storage {
  readonly endpoints: readonly string[];
  readonly prefix: string;
  readonly #timeoutMs: number;
  readonly #keys: EtcdKeys;
  readonly #clock: Clock;
  readonly #stream: EtcdWatchStream;
  readonly #hub: EtcdWatchHub;
  #client: Promise<EtcdClient> | undefined;
  #revision = 1;
  #compacted = 1;
  /** Set by close() and destroy(): from then on every call fails `Closed`. */
  #closed = false;
  /** etcd calls under way; `#drained` runs when the count falls to 0. */
  #inFlight = 0;
  #drained: (() => void) | undefined;
  #closing: Promise<void> | undefined;
  /** Rejects (`Closed`) when destroy() is called: every call under way races it. */
  readonly #destroyed = Promise.withResolvers<never>();

  constructor(options: EtcdStorageOptions = {}) {
    this.#destroyed.promise.catch(() => {}); // raced by every call; rejecting it alone is no error
    const owner = "EtcdStorage";
    const endpoints = options.endpoints ?? ["http://127.0.0.1:2379"];
    if (endpoints.length === 0 || endpoints.some((e) => !/^https?:\/\/[^/\s]+\/?$/.test(e))) {
      throw new InvalidOptionError(
        owner,
        "endpoints",
        endpoints.join(","),
        "must be one or more URLs like http://127.0.0.1:2379",
      );
    }
    this.endpoints = endpoints;
    this.prefix = options.prefix ?? "";
    if (/\0/.test(this.prefix)) {
      throw new InvalidOptionError(owner, "prefix", this.prefix, "must not contain NUL");
    }
    this.#timeoutMs = checkNumber(owner, "requestTimeoutMs", options.requestTimeoutMs ?? 10_000, {
      above: 0,
    });
    const logCapacity = checkNumber(owner, "watchLogCapacity", options.watchLogCapacity ?? 1000, {
      min: 0,
      integer: true,
    });
    this.#keys = new EtcdKeys(this.prefix);
    this.#clock = options.clock ?? realClock;
    this.#stream = new EtcdWatchStream({
      open: async () => (await this.#etcd()).etcd3.watchClient.watch(),
      key: PROBE_KEY,
      rangeEnd: PROBE_KEY, // with key "\0": every key
      clock: this.#clock,
      backoff: new Backoff({ initialMs: 100, maxMs: 2000, ...options.reconnectBackoff }),
    });
    this.#hub = new EtcdWatchHub({
      stream: this.#stream,
      keys: this.#keys,
      logCapacity,
      currentRevision: () => this.currentRevision(),
      compactedError: (from, c) =>
        this.#error(
          "Compacted",
          `revision ${from} has been compacted (oldest available: ${c})`,
          undefined,
          c,
        ),
      closedError: () => this.#error("Closed", "storage is closed"),
    });
  }

  /**
   * Resolves once etcd answers, retrying with backoff while it does not (`Unavailable`);
   * rejects with `signal.reason`, or with any other error at once.
   */
  async ready(options: EtcdReadyOptions = {}): Promise<number> {
    const backoff = new Backoff({ initialMs: 200, maxMs: 5000 });
    for (let attempt = 1; ; attempt++) {
      options.signal?.throwIfAborted();
      try {
        return await this.currentRevision();
      } catch (err) {
        if (!isStorageError(err, "Unavailable")) throw err;
        const delayMs = backoff.next(this.#clock.now());
        options.onRetry?.(err, attempt, delayMs);
        await sleep(delayMs, {
          clock: this.#clock,
          ...(options.signal ? { signal: options.signal } : {}),
        });
      }
    }
  }

  async currentRevision(): Promise<number> {
    const res = await this.#call((c) =>
      c.range({ key: PROBE_KEY, count_only: true, serializable: false }),
    );
    return this.#seen(res.header);
  }

  async compactedRevision(): Promise<number> {
    // etcd does not tell; the oldest readable revision is found by bisection, starting from
    // the highest compaction seen (compactions only move forward).
    const readable = async (revision: number) => {
      try {
        await this.#call((c) => c.range({ key: PROBE_KEY, count_only: true, revision }));
        return true;
      } catch (err) {
        if (isStorageError(err, "Compacted")) return false;
        throw err;
      }
    };
    let lo = this.#compacted;
    if (await readable(lo)) return lo;
    let hi = await this.currentRevision();
    while (hi - lo > 1) {
      const mid = Math.floor((lo + hi) / 2);
      if (await readable(mid)) hi = mid;
      else lo = mid;
    }
    this.#compacted = Math.max(this.#compacted, hi);
    return hi;
  }

  async get(key: string, options: { revision?: number } = {}): Promise<KeyValue | undefined> {
    const revision = options.revision || undefined;
    const res = await this.#call(
      (c) => c.range({ key: this.#keys.toEtcd(key), ...(revision ? { revision } : {}) }),
      key,
      revision,
    );
    this.#seen(res.header);
    const kv = res.kvs[0];
    return kv === undefined ? undefined : toKeyValue(kv, key);
  }

  async list(prefix: string, options: StorageListOptions = {}): Promise<StorageListResult> {
    const revision = options.revision || undefined;
    const start =
      options.startKey !== undefined && options.startKey > prefix ? options.startKey : prefix;
    const startBytes = this.#keys.toEtcd(start);
    const limit = options.limit !== undefined && options.limit > 0 ? options.limit : 0;
    const res = await this.#call(
      (c) =>
        c.range({
          key: startBytes.length === 0 ? PROBE_KEY : startBytes,
          range_end: this.#keys.rangeEnd(prefix),
          limit,
          ...(revision ? { revision } : {}),
        }),
      undefined,
      revision,
    );
    const current = this.#seen(res.header);
    const kvs = res.kvs.map((kv) => toKeyValue(kv, this.#keys.fromEtcd(kv.key)!));
    const result = { kvs, revision: revision ?? current, more: res.more };
    return options.countRemaining
      ? { ...result, remaining: Number(res.count) - kvs.length }
      : result;
  }

  async create(key: string, value: string): Promise<KeyValue> {
    const k = this.#keys.toEtcd(key);
    const res = await this.#call(
      (c) =>
        c.txn({
          compare: [{ key: k, target: "Create", result: "Equal", create_revision: 0 }],
          success: [{ request_put: { key: k, value: Buffer.from(value) } }],
          failure: [],
        }),
      key,
    );
    const revision = this.#seen(res.header);
    if (!res.succeeded) throw this.#error("KeyExists", `key ${key} already exists`, key);
    return { key, value, createRevision: revision, modRevision: revision, version: 1 };
  }

  async update(key: string, value: string, expectedModRevision: number): Promise<KeyValue> {
    const k = this.#keys.toEtcd(key);
    const res = await this.#call(
      (c) =>
        c.txn({
          compare: [{ key: k, target: "Mod", result: "Equal", mod_revision: expectedModRevision }],
          success: [{ request_put: { key: k, value: Buffer.from(value), prev_kv: true } }],
          failure: [{ request_range: { key: k } }],
        }),
      key,
    );
    const revision = this.#seen(res.header);
    if (!res.succeeded)
      this.#refused(key, res.responses[0]?.response_range?.kvs[0], expectedModRevision);
    const prev = res.responses[0]!.response_put!.prev_kv!;
    return {
      key,
      value,
      createRevision: Number(prev.create_revision),
      modRevision: revision,
      version: Number(prev.version) + 1,
    };
  }

  async delete(key: string, expectedModRevision?: number): Promise<DeleteResult> {
    const k = this.#keys.toEtcd(key);
    if (expectedModRevision === undefined) {
      const res = await this.#call((c) => c.deleteRange({ key: k, prev_kv: true }), key);
      const revision = this.#seen(res.header);
      const prev = res.prev_kvs[0];
      if (prev === undefined) throw this.#error("NotFound", `key ${key} not found`, key);
      return { revision, prev: toKeyValue(prev, key) };
    }
    const res = await this.#call(
      (c) =>
        c.txn({
          compare: [{ key: k, target: "Mod", result: "Equal", mod_revision: expectedModRevision }],
          success: [{ request_delete_range: { key: k, prev_kv: true } }],
          failure: [{ request_range: { key: k } }],
        }),
      key,
    );
    const revision = this.#seen(res.header);
    if (!res.succeeded)
      this.#refused(key, res.responses[0]?.response_range?.kvs[0], expectedModRevision);
    const prev = res.responses[0]!.response_delete_range!.prev_kvs[0]!;
    return { revision, prev: toKeyValue(prev, key) };
  }

  watch(prefix: string, options: StorageWatchOptions = {}): AsyncIterable<WatchBatch> {
    return this.#hub.watch(prefix, options);
  }

  async compact(revision: number): Promise<void> {
    try {
      await this.#call((c) => c.compact({ revision }), undefined, revision);
    } catch (err) {
      if (isStorageError(err, "Compacted")) return; // at or below the current compaction
      if (isStorageError(err, "FutureRevision")) {
        throw this.#error(
          "FutureRevision",
          `cannot compact to ${revision}: the store is at ${err.currentRevision}`,
        );
      }
      throw err;
    }
    this.#compacted = Math.max(this.#compacted, revision);
    this.#hub.compacted(revision);
  }

  /**
   * Closes gracefully: refuses new calls (`Closed`), ends every watch, waits for the calls under
   * way to be answered, then disconnects. Idempotent.
   */
  close(): Promise<void> {
    this.#closed = true;
    this.#closing ??= (async () => {
      this.#hub.close();
      this.#stream.close();
      if (this.#inFlight > 0) {
        await new Promise<void>((resolve) => {
          this.#drained = resolve;
        });
      }
      const client = this.#client;
      this.#client = undefined;
      if (client !== undefined) (await client.catch(() => undefined))?.close();
    })();
    return this.#closing;
  }

  /**
   * Closes at once: as {@link close}, but the calls under way fail `Closed` instead of being
   * waited for. Also ends a `close()` that is still waiting. Idempotent.
   */
  async destroy(): Promise<void> {
    this.#closed = true;
    this.#destroyed.reject(this.#error("Closed", "storage is closed"));
    await this.close();
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }

  #etcd(): Promise<EtcdClient> {
    this.#client ??= createEtcdClient(this.endpoints, this.#timeoutMs);
    return this.#client;
  }

  /** Runs one etcd call, turning its failures into {@link StorageError}s. */
  async #call<T>(fn: (kv: EtcdKv) => Promise<T>, key?: string, revision?: number): Promise<T> {
    if (this.#closed) throw this.#error("Closed", "storage is closed", key);
    this.#inFlight++;
    try {
      return await Promise.race([fn((await this.#etcd()).kv), this.#destroyed.promise]);
    } catch (err) {
      if (this.#closed) throw this.#error("Closed", "storage is closed", key);
      const code = classifyEtcdError(err);
      const cause = err instanceof Error ? err.message : String(err);
      switch (code) {
        case "Compacted":
          throw this.#error(
            code,
            `revision ${revision} has been compacted (oldest available: ${this.#compacted} or later)`,
            key,
          );
        case "FutureRevision":
          throw this.#error(
            code,
            `revision ${revision} is ahead of the store (${this.#revision})`,
            key,
          );
        case "Unavailable":
          throw this.#error(
            code,
            `etcd at ${this.endpoints.join(",")} is unavailable (${cause}); retry later`,
            key,
          );
        default:
          throw err;
      }
    } finally {
      if (--this.#inFlight === 0) this.#drained?.();
    }
  }

  /** A refused compare-and-swap: NotFound or Conflict, from what etcd read instead. */
  #refused(key: string, current: RawKeyValue | undefined, expected: number): never {
    if (current === undefined) throw this.#error("NotFound", `key ${key} not found`, key);
    throw this.#error(
      "Conflict",
      `key ${key} is at revision ${current.mod_revision}, not ${expected}`,
      key,
    );
  }

  #seen(header: ResponseHeader): number {
    const revision = header.revision;
    if (revision > this.#revision) this.#revision = revision;
    return revision;
  }

  #error(code: StorageErrorCode, message: string, key?: string, compacted?: number): StorageError {
    if (compacted !== undefined && compacted > this.#compacted) this.#compacted = compacted;
    const context: ErrorContext = {
      currentRevision: this.#revision,
      compactedRevision: this.#compacted,
    };
    return storageError(code, message, context, key);
  }
}
