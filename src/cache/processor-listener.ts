/**
 * One event handler of a shared informer with its own buffer of notifications, delivered in
 * order, one at a time (an async handler is awaited before the next call). A slow handler only
 * grows its own buffer: it holds up no other handler and not the cache.
 */
import type { DeletedFinalStateUnknown, KubeObject } from "../core/index.ts";
import { RingBuffer } from "../core/internal.ts";
import { SyncWaiters } from "./sync-waiters.ts";

/** What a handler is told. */
export type Notification<T extends KubeObject> =
  | { readonly kind: "add"; readonly obj: T; readonly initial: boolean }
  | { readonly kind: "update"; readonly old: T; readonly obj: T }
  | { readonly kind: "delete"; readonly obj: T | DeletedFinalStateUnknown<T> };

/**
 * Callbacks for an informer's changes (client-go's `ResourceEventHandler`). Each may be async;
 * calls to one handler never overlap and follow the order of the changes.
 */
export interface EventHandler<T extends KubeObject> {
  /** `obj` entered the cache; `isInInitialList` during the first list (or a late handler's replay). */
  onAdd?(obj: T, isInInitialList: boolean): void | Promise<void>;
  /**
   * `oldObj` was replaced by `newObj`. Equal resourceVersions mean a resync, or an object a
   * relist found unchanged; those go only to handlers registered with a resync period. A
   * different `metadata.uid` means the object was deleted and recreated while the watch was
   * down.
   */
  onUpdate?(oldObj: T, newObj: T): void | Promise<void>;
  /**
   * `obj` left the cache: its last state, or a `DeletedFinalStateUnknown` tombstone when the
   * deletion was inferred from a relist (the watch missed it).
   */
  onDelete?(obj: T | DeletedFinalStateUnknown<T>): void | Promise<void>;
}

/** A handler's registration, as `addEventHandler` returns it. */
export interface HandlerRegistration {
  /**
   * True once the informer has synced and this handler has returned from every call of the
   * initial list (its own replay, for a handler added late).
   */
  hasSynced(): boolean;
  /**
   * Resolves when {@link hasSynced} becomes true; rejects with `signal.reason` on abort, and with
   * an error if the handler is removed or its informer stops before it synced.
   */
  waitForSync(signal?: AbortSignal): Promise<void>;
  /** Notifications waiting in this handler's buffer. */
  readonly pending: number;
}

function stoppedUnsynced(): Error {
  return new Error("the handler's informer stopped (or the handler was removed) before it synced");
}

/** Slots a handler's buffer starts with (client-go: 1024); it grows as needed. */
const INITIAL_CAPACITY = 1024;

/** Yield to the event loop after this many consecutive synchronous calls. */
const CALLS_PER_TURN = 1000;

/**
 * A handler with its buffer and its delivery loop.
 *
 * Invariants: `#running` is true exactly while a delivery loop is scheduled or running, so at
 * most one loop runs and calls never overlap; `#initialPending` counts initial-list adds in the
 * buffer or being delivered.
 */
export class ProcessorListener<T extends KubeObject> implements HandlerRegistration {
  readonly handler: EventHandler<T>;
  /** 0: this handler gets no resync (nor unchanged objects from relists). */
  readonly resyncPeriodMs: number;
  /** When the next resync is due (clock time); meaningful when `resyncPeriodMs > 0`. */
  nextResyncAt = 0;
  #buffer = new RingBuffer<Notification<T>>({ initialCapacity: INITIAL_CAPACITY });
  readonly #informerSynced: () => boolean;
  readonly #onError: (error: unknown, n: Notification<T>) => void;
  #initialPending = 0;
  #running = false;
  #stopped = false;
  readonly #waiters = new SyncWaiters();

  constructor(
    handler: EventHandler<T>,
    options: {
      resyncPeriodMs: number;
      informerSynced: () => boolean;
      onError: (error: unknown, n: Notification<T>) => void;
    },
  ) {
    this.handler = handler;
    this.resyncPeriodMs = options.resyncPeriodMs;
    this.#informerSynced = options.informerSynced;
    this.#onError = options.onError;
  }

  get pending(): number {
    return this.#buffer.size;
  }

  hasSynced(): boolean {
    return this.#informerSynced() && this.#initialPending === 0;
  }

  waitForSync(signal?: AbortSignal): Promise<void> {
    if (this.hasSynced()) return Promise.resolve();
    if (this.#stopped) return Promise.reject(stoppedUnsynced());
    return this.#waiters.wait(signal);
  }

  /** Queues a notification; delivery starts on the next microtask. */
  add(n: Notification<T>): void {
    if (this.#stopped) return;
    if (n.kind === "add" && n.initial) this.#initialPending++;
    this.#buffer.push(n);
    if (!this.#running) {
      this.#running = true;
      queueMicrotask(() => void this.#deliver());
    }
  }

  /** Re-checks the sync condition (the informer calls this when it syncs). */
  checkSynced(): void {
    if (this.#waiters.size === 0 || !this.hasSynced()) return;
    this.#waiters.resolveAll();
  }

  /**
   * Drops the buffer and delivers nothing more; a call in progress finishes; a caller still
   * waiting for the sync gets an error. Idempotent.
   */
  stop(): void {
    this.#stopped = true;
    this.#buffer.clear();
    if (!this.hasSynced()) this.#waiters.rejectAll(stoppedUnsynced());
  }

  async #deliver(): Promise<void> {
    let calls = 0;
    while (this.#buffer.size > 0 && !this.#stopped) {
      const n = this.#buffer.shift()!;
      try {
        const r: unknown = this.#call(n);
        if (r != null && typeof (r as PromiseLike<void>).then === "function") await r;
      } catch (err) {
        this.#onError(err, n);
      }
      if (n.kind === "add" && n.initial && --this.#initialPending === 0) this.checkSynced();
      if (++calls >= CALLS_PER_TURN) {
        calls = 0;
        await new Promise((r) => setImmediate(r));
      }
    }
    this.#running = false;
    // A burst (an initial list) grew the buffer: do not keep its slots for the informer's life.
    if (this.#buffer.size === 0 && this.#buffer.capacity > INITIAL_CAPACITY) {
      this.#buffer = new RingBuffer({ initialCapacity: INITIAL_CAPACITY });
    }
  }

  #call(n: Notification<T>): void | Promise<void> {
    const h = this.handler;
    switch (n.kind) {
      case "add":
        return h.onAdd?.(n.obj, n.initial);
      case "update":
        return h.onUpdate?.(n.old, n.obj);
      case "delete":
        return h.onDelete?.(n.obj);
    }
  }
}
