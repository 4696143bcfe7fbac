import type { IEvent } from "etcd3";
import type { KeyValue, StorageEvent } from "./storage.ts";
import { StorageError, type StorageErrorCode } from "./storage-error.ts";

/**
 * How storage keys map to etcd keys: `prefix + key`, as UTF-8 bytes. etcd orders keys by
 * bytes and JavaScript by UTF-16 code units; the two agree on the ASCII keys the registry
 * writes.
 */
export class EtcdKeys {
  readonly prefix: string;
  readonly #prefixBytes: Buffer;

  constructor(prefix: string) {
    this.prefix = prefix;
    this.#prefixBytes = Buffer.from(prefix);
  }

  /** The etcd key of a storage key. */
  toEtcd(key: string): Buffer {
    return Buffer.from(this.prefix + key);
  }

  /** The storage key of an etcd key, or undefined for a key outside the prefix. */
  fromEtcd(key: Buffer): string | undefined {
    const p = this.#prefixBytes;
    if (key.length < p.length || key.compare(p, 0, p.length, 0, p.length) !== 0) return undefined;
    return key.toString("utf8", p.length);
  }

  /** The etcd `range_end` that, with `toEtcd(prefix)` as the key, covers every key under it. */
  rangeEnd(prefix: string): Buffer {
    return prefixEnd(this.toEtcd(prefix));
  }
}

/**
 * The first byte string after every string that starts with `prefix` (etcd's range end for a
 * prefix): the prefix with its last non-0xff byte incremented; `\0` (to the end of the
 * keyspace) when there is none.
 */
export function prefixEnd(prefix: Buffer): Buffer {
  for (let i = prefix.length - 1; i >= 0; i--) {
    if (prefix[i]! < 0xff) {
      const end = Buffer.from(prefix.subarray(0, i + 1));
      end[i]! += 1;
      return end;
    }
  }
  return Buffer.from([0]);
}

/** An etcd key-value as etcd3 (longs as strings) or etcd-proto.ts (numbers) decodes it. */
export interface EtcdKeyValue {
  readonly value: Buffer;
  readonly create_revision: string | number;
  readonly mod_revision: string | number;
  readonly version: string | number;
}

/** An etcd key-value as a storage {@link KeyValue} under the storage key `key`. */
export function toKeyValue(kv: EtcdKeyValue, key: string): KeyValue {
  return {
    key,
    value: kv.value.toString("utf8"),
    createRevision: Number(kv.create_revision),
    modRevision: Number(kv.mod_revision),
    version: Number(kv.version),
  };
}

/**
 * The storage events of an etcd watch response's events, keeping those under `keys`. A
 * deletion whose previous value etcd could not send (compacted at once) gets an empty one.
 */
export function toStorageEvents(keys: EtcdKeys, events: readonly IEvent[]): StorageEvent[] {
  const out: StorageEvent[] = [];
  for (const e of events) {
    const key = keys.fromEtcd(e.kv.key);
    if (key === undefined) continue;
    const prev = e.prev_kv ? toKeyValue(e.prev_kv, key) : undefined;
    if (e.type === "Delete") {
      out.push({
        type: "delete",
        key,
        revision: Number(e.kv.mod_revision),
        prev: prev ?? { key, value: "", createRevision: 0, modRevision: 0, version: 0 },
      });
    } else {
      const kv = toKeyValue(e.kv, key);
      out.push(prev === undefined ? { type: "put", kv } : { type: "put", kv, prev });
    }
  }
  return out;
}

const COMPACTED = /required revision has been compacted/;
const FUTURE = /required revision is a future revision/;
/**
 * gRPC CANCELLED, DEADLINE_EXCEEDED and UNAVAILABLE, etcd's transient server errors, and the
 * client's own connection failures: what a later retry may not meet again.
 */
const TRANSIENT =
  /^(?:1 CANCELLED|4 DEADLINE_EXCEEDED|14 UNAVAILABLE)\b|etcdserver: (?:request timed out|leader changed|no leader|too many requests|server stopped)|ECONNREFUSED|ECONNRESET|Deadline exceeded|No connection established|Channel has been shut down/;

/**
 * The storage error code of an error the etcd client threw: `Compacted`, `FutureRevision`,
 * `Unavailable` for anything transient, undefined for anything else (a bug or a refused
 * request, which the server reports as an internal error).
 */
export function classifyEtcdError(err: unknown): StorageErrorCode | undefined {
  const message = err instanceof Error ? err.message : String(err);
  if (COMPACTED.test(message)) return "Compacted";
  if (FUTURE.test(message)) return "FutureRevision";
  if (TRANSIENT.test(message)) return "Unavailable";
  if (
    err instanceof Error &&
    /^(?:GRPCUnavailable|GRPCDeadlineExceeded|GRPCCancelled)/.test(err.constructor.name)
  )
    return "Unavailable";
  return undefined;
}

/** Details every {@link StorageError} carries. */
export interface ErrorContext {
  readonly currentRevision: number;
  readonly compactedRevision: number;
}

/** A {@link StorageError}. */
export function storageError(
  code: StorageErrorCode,
  message: string,
  context: ErrorContext,
  key?: string,
): StorageError {
  return new StorageError(code, message, { ...context, ...(key === undefined ? {} : { key }) });
}
