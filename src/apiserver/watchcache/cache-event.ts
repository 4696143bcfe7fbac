import type { KubeObject } from "../../core/index.ts";

/** Label and field values of one object, as its kind's selectors see them. */
export interface ObjectAttrs {
  readonly labels: Readonly<Record<string, string>>;
  readonly fields: Readonly<Record<string, string | undefined>>;
}

/** What comes before an object's JSON in a watch line of each type, and after it. */
const LINE_HEAD = {
  ADDED: Buffer.from(`{"type":"ADDED","object":`),
  MODIFIED: Buffer.from(`{"type":"MODIFIED","object":`),
  DELETED: Buffer.from(`{"type":"DELETED","object":`),
} as const;
const LINE_TAIL = Buffer.from("}\n");

/**
 * One object in the watch cache's current state. `object` is shared by every reader and must
 * never be mutated. Its encoding is computed at most once per encoder and kept as the bytes of
 * its ADDED watch line (`{"type":"ADDED","object":…}\n`), UTF-8: a streaming list sends those
 * bytes as they are, a list or another event type takes the object's JSON as a view into them —
 * so serving the object again encodes and allocates nothing.
 */
export class CacheEntry {
  readonly key: string;
  readonly namespace: string;
  readonly object: KubeObject;
  readonly rv: number;
  readonly attrs: ObjectAttrs;
  /** The first encoder's id and line (an entry almost always has one encoder), then others'. */
  #firstId: string | undefined;
  #firstLine: Buffer | undefined;
  #otherLines: Map<string, Buffer> | undefined;

  constructor(key: string, object: KubeObject, rv: number, attrs: ObjectAttrs) {
    this.key = key;
    this.namespace = object.metadata?.namespace ?? "";
    this.object = object;
    this.rv = rv;
    this.attrs = attrs;
  }

  /** The object's ADDED watch line as `encoder` writes it, memoized. */
  addedLine(encoder: WatchEncoder, counter: SerializationCounter): Buffer {
    if (this.#firstId === encoder.id) return this.#firstLine!;
    let line = this.#otherLines?.get(encoder.id);
    if (line === undefined) {
      line = Buffer.from(`{"type":"ADDED","object":${encoder.encode(this.object)}}\n`);
      counter.serializations++;
      if (this.#firstId === undefined) {
        this.#firstId = encoder.id;
        this.#firstLine = line;
      } else {
        this.#otherLines ??= new Map();
        this.#otherLines.set(encoder.id, line);
      }
    }
    return line;
  }

  /** The object's JSON as `encoder` writes it (UTF-8, a view into the memoized line). */
  json(encoder: WatchEncoder, counter: SerializationCounter): Buffer {
    const line = this.addedLine(encoder, counter);
    return line.subarray(LINE_HEAD.ADDED.length, line.length - LINE_TAIL.length);
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
      line =
        as === "ADDED"
          ? entry.addedLine(encoder, counter)
          : Buffer.concat([LINE_HEAD[as], entry.json(encoder, counter), LINE_TAIL]);
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
