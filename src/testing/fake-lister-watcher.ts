/**
 * An in-memory `ListerWatcher` that behaves like an API server's collection (client-go's
 * `FakeControllerSource`, with faults): writes get increasing resourceVersions and reach open
 * watches; lists page with continue tokens; watches replay history from a resourceVersion, or
 * stream the state first (`sendInitialEvents`) and end it with the initial-events-end bookmark;
 * compaction makes old resourceVersions expire (410). Tests script failures of the next list or
 * watch, end or break open watches, and count calls.
 */
import type { ListCall, ListerWatcher, WatchCall } from "../cache/index.ts";
import type { ListResult } from "../client/index.ts";
import {
  ApiError,
  errors,
  INITIAL_EVENTS_END_ANNOTATION,
  InvalidOptionError,
  type KubeObject,
  objectKey,
  type WatchEvent,
} from "../core/index.ts";
import { RingBuffer } from "../core/internal.ts";

/** Options for {@link FakeListerWatcher}. */
export interface FakeListerWatcherOptions {
  /** Kind and apiVersion stamped on bookmarks. @default "ConfigMap", "v1" */
  kind?: string;
  apiVersion?: string;
  /**
   * Serve streaming lists; when false, a watch with `sendInitialEvents` fails with 422, as a
   * server without the WatchList feature does.
   * @default true
   */
  supportsWatchList?: boolean;
}

/** A call the fake received. */
export type FakeCall = { type: "list"; call: ListCall } | { type: "watch"; call: WatchCall };

/** One open watch stream: a queue of batches, ended cleanly or with an error. */
class FakeStream<T extends KubeObject> {
  readonly #batches = new RingBuffer<readonly WatchEvent<T>[]>();
  #end: { error: unknown } | undefined;
  #wake: (() => void) | undefined;
  readonly startRv: number;

  constructor(startRv: number) {
    this.startRv = startRv;
  }

  get ended(): boolean {
    return this.#end !== undefined;
  }

  push(batch: readonly WatchEvent<T>[]): void {
    if (this.#end !== undefined || batch.length === 0) return;
    this.#batches.push(batch);
    this.#poke();
  }

  end(error?: unknown): void {
    if (this.#end !== undefined) return;
    this.#end = { error };
    this.#poke();
  }

  async *iterate(signal: AbortSignal): AsyncGenerator<readonly WatchEvent<T>[], void, undefined> {
    const onAbort = () => this.end(signal.reason);
    signal.addEventListener("abort", onAbort, { once: true });
    try {
      for (;;) {
        const batch = this.#batches.shift();
        if (batch !== undefined) {
          yield batch;
          continue;
        }
        if (this.#end !== undefined) {
          if (this.#end.error !== undefined) throw this.#end.error;
          return;
        }
        await new Promise<void>((resolve) => {
          this.#wake = resolve;
        });
      }
    } finally {
      signal.removeEventListener("abort", onAbort);
      this.end();
    }
  }

  #poke(): void {
    const w = this.#wake;
    this.#wake = undefined;
    w?.();
  }
}

/**
 * A scripted collection. Objects are stored as given (with `metadata.resourceVersion` set);
 * resourceVersions are decimal strings of one counter.
 */
export class FakeListerWatcher<T extends KubeObject> implements ListerWatcher<T> {
  readonly calls: FakeCall[] = [];
  /** When false, streaming lists are refused with 422. */
  supportsWatchList: boolean;
  readonly #kind: string;
  readonly #apiVersion: string;
  readonly #objects = new Map<string, T>();
  #history: { rv: number; event: WatchEvent<T> }[] = [];
  #rv = 1;
  #oldestRv = 1;
  readonly #streams = new Set<FakeStream<T>>();
  readonly #listFaults: unknown[] = [];
  readonly #watchFaults: unknown[] = [];
  #callWaiters: { n: number; resolve: () => void }[] = [];

  constructor(options: FakeListerWatcherOptions = {}) {
    for (const name of ["kind", "apiVersion"] as const) {
      const v = options[name];
      if (v !== undefined && (typeof v !== "string" || v === "")) {
        throw new InvalidOptionError("FakeListerWatcher", name, v, "must be a non-empty string");
      }
    }
    this.#kind = options.kind ?? "ConfigMap";
    this.#apiVersion = options.apiVersion ?? "v1";
    this.supportsWatchList = options.supportsWatchList ?? true;
  }

  /** The current resourceVersion. */
  get resourceVersion(): string {
    return String(this.#rv);
  }

  /** The objects as the "server" has them now. */
  objects(): T[] {
    return [...this.#objects.values()];
  }

  /** Watches currently open. */
  get openWatches(): number {
    return [...this.#streams].filter((s) => !s.ended).length;
  }

  /** Creates or replaces an object (ADDED or MODIFIED); returns the stored copy. */
  upsert(obj: T): T {
    const key = objectKey(obj);
    const type = this.#objects.has(key) ? "MODIFIED" : "ADDED";
    const stored = this.#stamp(obj);
    this.#objects.set(key, stored);
    this.#record({ type, object: stored });
    return stored;
  }

  /** Deletes the object with `key`; returns its last state (with the deletion's RV). */
  delete(key: string): T {
    const old = this.#objects.get(key);
    if (old === undefined) throw new Error(`FakeListerWatcher: no object ${key}`);
    this.#objects.delete(key);
    const last = this.#stamp(old);
    this.#record({ type: "DELETED", object: last });
    return last;
  }

  /** Sends a bookmark at the current resourceVersion to every open watch. */
  bookmark(): void {
    const event = this.#bookmark(false);
    for (const s of this.#streams) s.push([event]);
  }

  /** Forgets the history: watches and continuations from older resourceVersions get 410. */
  compact(): void {
    this.#history = [];
    this.#oldestRv = this.#rv;
  }

  /** The next list fails with `error`. */
  failNextList(error: unknown): void {
    this.#listFaults.push(error);
  }

  /** The next watch fails to open with `error`. */
  failNextWatch(error: unknown): void {
    this.#watchFaults.push(error);
  }

  /** Ends every open watch: cleanly, or with `error` (an ERROR event, a broken stream). */
  endWatches(error?: unknown): void {
    for (const s of this.#streams) s.end(error);
    this.#streams.clear();
  }

  /** Sends raw events to every open watch (for example of another kind). */
  inject(events: readonly WatchEvent<T>[]): void {
    for (const s of this.#streams) s.push(events);
  }

  /** Resolves once `n` calls (lists and watches) have been made in total. */
  waitForCalls(n: number): Promise<void> {
    if (this.calls.length >= n) return Promise.resolve();
    return new Promise((resolve) => this.#callWaiters.push({ n, resolve }));
  }

  async list(call: ListCall): Promise<ListResult<T>> {
    this.#called({ type: "list", call });
    const fault = this.#listFaults.shift();
    if (fault !== undefined) throw fault;
    const all = [...this.#objects.values()].sort((a, b) => (objectKey(a) < objectKey(b) ? -1 : 1));
    let start = 0;
    let rv = this.#rv;
    if (call.continue !== undefined) {
      const [tokenRv, index] = call.continue.split(":").map(Number) as [number, number];
      if (tokenRv < this.#oldestRv)
        throw errors.expired(
          "The provided continue parameter is too old to display a consistent list result.",
        );
      start = index;
      rv = tokenRv;
    } else if (
      call.resourceVersion !== undefined &&
      call.resourceVersion !== "" &&
      call.resourceVersion !== "0"
    ) {
      if (call.limit !== undefined && Number(call.resourceVersion) < this.#oldestRv) {
        throw errors.expired("The resourceVersion for the provided list is too old.");
      }
    }
    const end = call.limit === undefined ? all.length : Math.min(all.length, start + call.limit);
    const items = all.slice(start, end);
    return {
      items,
      resourceVersion: String(rv),
      ...(end < all.length ? { continue: `${rv}:${end}` } : {}),
    };
  }

  async watch(call: WatchCall): Promise<AsyncIterable<readonly WatchEvent<T>[]>> {
    this.#called({ type: "watch", call });
    call.signal.throwIfAborted();
    const fault = this.#watchFaults.shift();
    if (fault !== undefined) throw fault;
    const stream = new FakeStream<T>(this.#rv);
    if (call.sendInitialEvents) {
      if (!this.supportsWatchList) {
        throw new ApiError({
          kind: "Status",
          apiVersion: "v1",
          metadata: {},
          status: "Failure",
          reason: "Invalid",
          message:
            "sendInitialEvents: Forbidden: sendInitialEvents is forbidden for watch unless the WatchList feature gate is enabled",
          code: 422,
        });
      }
      const initial: WatchEvent<T>[] = [...this.#objects.values()].map((object) => ({
        type: "ADDED",
        object,
      }));
      initial.push(this.#bookmark(true));
      stream.push(initial);
    } else {
      const from = Number(call.resourceVersion);
      if (!Number.isFinite(from) || call.resourceVersion === "" || call.resourceVersion === "0") {
        stream.push([...this.#objects.values()].map((object) => ({ type: "ADDED", object })));
      } else if (from < this.#oldestRv) {
        stream.end(errors.expired(`too old resource version: ${from} (${this.#oldestRv})`));
      } else {
        stream.push(this.#history.filter((h) => h.rv > from).map((h) => h.event));
      }
    }
    this.#streams.add(stream);
    return stream.iterate(call.signal);
  }

  #stamp(obj: T): T {
    this.#rv++;
    return { ...obj, metadata: { ...obj.metadata, resourceVersion: String(this.#rv) } };
  }

  #record(event: WatchEvent<T>): void {
    this.#history.push({ rv: this.#rv, event });
    for (const s of this.#streams) s.push([event]);
  }

  #bookmark(end: boolean): WatchEvent<T> {
    return {
      type: "BOOKMARK",
      object: {
        kind: this.#kind,
        apiVersion: this.#apiVersion,
        metadata: {
          resourceVersion: String(this.#rv),
          ...(end ? { annotations: { [INITIAL_EVENTS_END_ANNOTATION]: "true" } } : {}),
        },
      },
    };
  }

  #called(call: FakeCall): void {
    this.calls.push(call);
    const ready = this.#callWaiters.filter((w) => this.calls.length >= w.n);
    this.#callWaiters = this.#callWaiters.filter((w) => this.calls.length < w.n);
    for (const w of ready) w.resolve();
  }
}
