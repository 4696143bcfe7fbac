import type { KubeObject } from "../../core/index.ts";

/** Label and field values of one object, as its kind's selectors see them. */
export interface ObjectAttrs {
  readonly labels: Readonly<Record<string, string>>;
  readonly fields: Readonly<Record<string, string | undefined>>;
}

/**
 * One object in the watch cache's current state. `object` is shared by every reader and must
 * never be mutated; its JSON is computed at most once per encoder.
 */
export class CacheEntry {
  readonly key: string;
  readonly namespace: string;
  readonly object: KubeObject;
  readonly rv: number;
  readonly attrs: ObjectAttrs;
  readonly #json = new Map<string, string>();

  constructor(key: string, object: KubeObject, rv: number, attrs: ObjectAttrs) {
    this.key = key;
    this.namespace = object.metadata?.namespace ?? "";
    this.object = object;
    this.rv = rv;
    this.attrs = attrs;
  }

  /** The object's JSON as `encoder` writes it, memoized. */
  json(encoder: WatchEncoder, counter: SerializationCounter): string {
    let s = this.#json.get(encoder.id);
    if (s === undefined) {
      s = encoder.encode(this.object);
      counter.serializations++;
      this.#json.set(encoder.id, s);
    }
    return s;
  }
}

/** Counts object serializations, to prove one per event whatever the number of watchers. */
export interface SerializationCounter {
  serializations: number;
}

/**
 * How a watch writes objects: `id` names the output (the same id must always produce the same
 * bytes for the same object, so outputs are shared between watchers); an encoder that keeps
 * per-watch state (a Table watch sends column definitions once) has an id of its own.
 */
export interface WatchEncoder {
  readonly id: string;
  encode(object: KubeObject): string;
}

/** The default encoder: the object as stored, as JSON. */
export const jsonEncoder: WatchEncoder = Object.freeze({
  id: "json",
  encode: (object: KubeObject) => JSON.stringify(object),
});

/**
 * One change in the watch cache's history. `entry` is the new state (for DELETED, the last
 * state with its resourceVersion set to the deletion's); `prev` the state before (absent for
 * ADDED). Encoded lines are memoized per encoder and event type, so an event is serialized once
 * for all the watchers that share an encoder.
 */
export class CacheEvent {
  readonly type: "ADDED" | "MODIFIED" | "DELETED";
  readonly rv: number;
  readonly entry: CacheEntry;
  readonly prev: CacheEntry | undefined;
  /** When the cache recorded it (ms, cache clock): drives history sizing. */
  readonly recordedAt: number;
  readonly #lines = new Map<string, Buffer>();
  #prevAtRv: CacheEntry | undefined;

  constructor(
    type: "ADDED" | "MODIFIED" | "DELETED",
    rv: number,
    entry: CacheEntry,
    prev: CacheEntry | undefined,
    recordedAt: number,
  ) {
    this.type = type;
    this.rv = rv;
    this.entry = entry;
    this.prev = prev;
    this.recordedAt = recordedAt;
  }

  /**
   * The line for a watcher: `as` is the type the watcher sees (a selector transition turns a
   * MODIFIED into ADDED or DELETED); a DELETED for a MODIFIED carries the previous object with
   * this event's resourceVersion.
   */
  line(
    as: "ADDED" | "MODIFIED" | "DELETED",
    encoder: WatchEncoder,
    counter: SerializationCounter,
  ): Buffer {
    const memo = `${as}\u0000${encoder.id}`;
    let line = this.#lines.get(memo);
    if (line === undefined) {
      const entry = as === "DELETED" && this.type === "MODIFIED" ? this.#prevWithRv() : this.entry;
      line = Buffer.from(`{"type":"${as}","object":${entry.json(encoder, counter)}}\n`);
      this.#lines.set(memo, line);
    }
    return line;
  }

  #prevWithRv(): CacheEntry {
    if (this.#prevAtRv === undefined) {
      const prev = this.prev!;
      const object = withResourceVersion(prev.object, this.rv);
      this.#prevAtRv = new CacheEntry(prev.key, object, this.rv, prev.attrs);
    }
    return this.#prevAtRv;
  }
}

/** A shallow copy of `object` whose metadata.resourceVersion is `rv`. */
export function withResourceVersion(object: KubeObject, rv: number): KubeObject {
  return { ...object, metadata: { ...object.metadata, resourceVersion: String(rv) } };
}
