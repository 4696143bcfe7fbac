/**
 * The queue between a reflector (the producer) and an informer's processing loop (the
 * consumer). It has client-go's RealFIFO semantics with atomic replace (`InOrderInformers` +
 * `AtomicFIFO`, the defaults of client-go 1.36), under the name users know, DeltaFIFO.
 */
import { checkFunction, type KubeObject, type WatchEvent } from "../core/index.ts";
import { RingBuffer } from "../core/internal.ts";

/**
 * One queued change: a watch event as it arrived (ADDED, MODIFIED, DELETED, BOOKMARK), or a
 * whole relist as one `REPLACED` entry.
 */
export type Delta<T extends KubeObject> =
  | WatchEvent<T>
  | { readonly type: "REPLACED"; readonly objects: readonly T[]; readonly resourceVersion: string };

/** Options for {@link DeltaFIFO}. */
export interface DeltaFIFOOptions<T extends KubeObject> {
  /**
   * Applied once to every object as it is queued (never to bookmarks), e.g. to drop
   * `metadata.managedFields`. It may return the object it was given, changed, or a new one, with
   * the same `metadata.name`, `namespace` and `resourceVersion`.
   */
  transform?: (obj: T) => T;
  /**
   * Called when `transform` throws, or returns something else than the same object (not an
   * object, or another name, namespace or resourceVersion: a {@link TransformOutputError}); the
   * object is then queued untransformed, so the cache still mirrors the server.
   */
  onTransformError?: (obj: T, error: unknown) => void;
}

/**
 * What a transform returned is not the object it was given: not an object, or one with another
 * `metadata.name`, `namespace` or `resourceVersion` (a transform that forgot its `return`, or
 * built a new object without the metadata). The cache could not file it, or would treat each of
 * its changes as unchanged.
 */
export class TransformOutputError extends TypeError {
  constructor(what: string) {
    super(
      `the transform returned ${what}; return the object (changed or copied) with its metadata.name, namespace and resourceVersion`,
    );
    this.name = "TransformOutputError";
  }
}

/** Thrown by {@link DeltaFIFO.pop} once the queue is closed and drained. */
export class FifoClosedError extends Error {
  constructor() {
    super("the DeltaFIFO is closed");
    this.name = "FifoClosedError";
  }
}

/**
 * A FIFO of deltas.
 *
 * Guarantees: one entry per event, in arrival order, nothing coalesced; a relist is one
 * `REPLACED` entry, so the consumer can swap the cache at once and never shows a half-applied
 * relist. One consumer at a time.
 *
 * Invariant: `#waiting` is set only while the queue is empty and a `pop` is waiting.
 */
export class DeltaFIFO<T extends KubeObject> {
  #queue = new RingBuffer<Delta<T>>();
  readonly #transform: ((obj: T) => T) | undefined;
  /** The waiting `pop`: how to wake or reject it, and the signal it was given. */
  #waiting:
    | { resolve: () => void; reject: (reason: unknown) => void; signal: AbortSignal | undefined }
    | undefined;
  /**
   * The abort listener on the signal `pop` was last given: one for as long as `pop` keeps being
   * given that signal (the informer passes the same one every time), not one per wait — adding
   * and removing an event listener cost more than the rest of a wait.
   */
  #abortWatch: { signal: AbortSignal; listener: () => void } | undefined;
  #closed = false;

  constructor(options: DeltaFIFOOptions<T> = {}) {
    const transform = checkFunction("DeltaFIFO", "transform", options.transform);
    const onTransformError =
      checkFunction("DeltaFIFO", "onTransformError", options.onTransformError) ?? (() => {});
    this.#transform =
      transform === undefined
        ? undefined
        : (obj) => {
            let out: T;
            try {
              out = transform(obj);
            } catch (err) {
              onTransformError(obj, err);
              return obj;
            }
            const wrong = transformMismatch(obj, out);
            if (wrong === undefined) return out;
            onTransformError(obj, new TransformOutputError(wrong));
            return obj;
          };
  }

  /** Entries waiting. */
  get size(): number {
    return this.#queue.size;
  }

  get closed(): boolean {
    return this.#closed;
  }

  /** Queues watch events in order (bookmarks included). */
  pushEvents(events: readonly WatchEvent<T>[]): void {
    if (this.#closed) return;
    const t = this.#transform;
    if (t === undefined) {
      for (const e of events) this.#queue.push(e);
    } else {
      const mapped = events.map(
        (e): WatchEvent<T> => (e.type === "BOOKMARK" ? e : { type: e.type, object: t(e.object) }),
      );
      for (const e of mapped) this.#queue.push(e);
    }
    this.#wake();
  }

  /** Queues a relist: the complete state at `resourceVersion`, as one entry. */
  replace(objects: readonly T[], resourceVersion: string): void {
    if (this.#closed) return;
    const t = this.#transform;
    this.#queue.push({
      type: "REPLACED",
      objects: t === undefined ? objects : objects.map(t),
      resourceVersion,
    });
    this.#wake();
  }

  /**
   * Takes up to `max` entries, waiting while the queue is empty. Rejects with `signal.reason`
   * if the signal aborts while waiting, and with {@link FifoClosedError} once closed and empty.
   */
  async pop(max: number, signal?: AbortSignal): Promise<Delta<T>[]> {
    while (this.#queue.size === 0) {
      if (this.#closed) throw new FifoClosedError();
      signal?.throwIfAborted();
      if (signal !== undefined && this.#abortWatch?.signal !== signal) this.#watchAbort(signal);
      await new Promise<void>((resolve, reject) => {
        this.#waiting = { resolve, reject, signal };
      });
    }
    const n = Math.min(max, this.#queue.size);
    const out = new Array<Delta<T>>(n);
    for (let i = 0; i < n; i++) out[i] = this.#queue.shift()!;
    // After a burst, drop the grown storage rather than keep it for the informer's life.
    if (this.#queue.size === 0 && this.#queue.capacity > 1024) this.#queue = new RingBuffer();
    return out;
  }

  /** Stops accepting entries; a waiting `pop` wakes and, once the queue is empty, fails. Idempotent. */
  close(): void {
    this.#closed = true;
    this.#unwatchAbort();
    this.#wake();
  }

  #wake(): void {
    const w = this.#waiting;
    if (w !== undefined) {
      this.#waiting = undefined;
      w.resolve();
    }
  }

  /** Listens to `signal` (instead of the previous one): its abort rejects a `pop` waiting with it. */
  #watchAbort(signal: AbortSignal): void {
    this.#unwatchAbort();
    const listener = () => {
      const w = this.#waiting;
      if (w?.signal !== signal) return;
      this.#waiting = undefined;
      w.reject(signal.reason);
    };
    signal.addEventListener("abort", listener, { once: true });
    this.#abortWatch = { signal, listener };
  }

  #unwatchAbort(): void {
    const w = this.#abortWatch;
    if (w === undefined) return;
    w.signal.removeEventListener("abort", w.listener);
    this.#abortWatch = undefined;
  }
}

/** Why `out` cannot stand for `obj` in the cache, or `undefined` if it can. */
function transformMismatch<T extends KubeObject>(obj: T, out: T): string | undefined {
  if (typeof out !== "object" || out === null || Array.isArray(out)) {
    return out === undefined ? "undefined" : `a ${out === null ? "null" : typeof out}`;
  }
  const a = obj.metadata;
  const b = out.metadata;
  if (b?.name !== a?.name) return `an object named ${JSON.stringify(b?.name)}`;
  if (b?.namespace !== a?.namespace)
    return `an object in namespace ${JSON.stringify(b?.namespace)}`;
  if (b?.resourceVersion !== a?.resourceVersion) {
    return `an object at resourceVersion ${JSON.stringify(b?.resourceVersion)}`;
  }
  return undefined;
}
