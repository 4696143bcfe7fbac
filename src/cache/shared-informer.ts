/**
 * The shared informer: one reflector and one cache for any number of event handlers. It pops
 * deltas from its DeltaFIFO, applies each to the Indexer first, then hands the change to every
 * handler's own buffer.
 */
import {
  type Clock,
  checkMetrics,
  checkNumber,
  DeletedFinalStateUnknown,
  type InformerMetrics,
  type InformerMetricsProvider,
  type KubeObject,
  keyOf,
  noopMetricsProvider,
  objectKey,
  realClock,
} from "../core/index.ts";
import { type Delta, DeltaFIFO } from "./delta-fifo.ts";
import { Indexer } from "./indexer.ts";
import { type Logger, stderrLogger } from "./logger.ts";
import {
  type EventHandler,
  type HandlerRegistration,
  type Notification,
  ProcessorListener,
} from "./processor-listener.ts";
import { Reflector, type ReflectorOptions } from "./reflector.ts";
import type { Indexers, Store } from "./store.ts";
import { SyncWaiters } from "./sync-waiters.ts";

/** Options for {@link SharedInformer}. */
export interface SharedInformerOptions<T extends KubeObject>
  extends Omit<ReflectorOptions<T>, "queue" | "metrics" | "logger" | "clock"> {
  /** Extra indexes besides `namespace`. @default {} */
  indexers?: Indexers<T>;
  /**
   * Applied once to each object before it reaches the cache and the handlers (for example to
   * drop `metadata.managedFields`). Must be fast, and return the object (changed or copied) with
   * the same `metadata.name`, `namespace` and `resourceVersion`; if it throws or returns
   * anything else, the error is logged and the object is cached as it came.
   */
  transform?: (obj: T) => T;
  /**
   * The resync period of handlers registered without one: every period, each such handler gets
   * `onUpdate(obj, obj)` for every cached object. 0 for none.
   * @default 0
   */
  defaultResyncPeriodMs?: number;
  /** @default realClock */
  clock?: Clock;
  /** @default stderrLogger */
  logger?: Logger;
  /**
   * Makes the informer's instruments, under its `name`, once.
   * @default noopMetricsProvider
   */
  metrics?: InformerMetricsProvider;
}

/** Options of {@link SharedInformer.addEventHandler}. */
export interface HandlerOptions {
  /**
   * Every period, `onUpdate(obj, obj)` for every cached object; values under 1 s are raised to
   * 1 s; 0 for none. Such handlers also get `onUpdate` for objects a relist found unchanged.
   * @default the informer's defaultResyncPeriodMs
   */
  resyncPeriodMs?: number;
}

/** Deltas taken from the queue at once; the loop yields to the event loop between batches. */
const BATCH = 4096;
const MIN_RESYNC_MS = 1000;

/**
 * A shared informer (client-go's `SharedIndexInformer`): a read-only cache of one collection,
 * kept in step by a reflector, with event handlers.
 *
 * Guarantees: the cache is updated before any handler hears of a change; each handler sees the
 * changes of each object in order; a relist is applied at once (the cache never shows half of
 * it), then handlers get deletions (as tombstones), then adds and updates; a handler that throws
 * is logged and counted, and delivery goes on.
 *
 * Inert until {@link run}. One run per informer; after it ends the informer is done.
 *
 * @example
 * ```ts
 * const informer = new SharedInformer({ listerWatcher: listerWatcherFor(client.resource(configMaps)) });
 * informer.addEventHandler({ onAdd: (cm) => queue.add(objectKey(cm)) });
 * void informer.run(signal);
 * await informer.waitForSync(signal);
 * ```
 */
export class SharedInformer<T extends KubeObject> {
  readonly name: string;
  readonly #indexer: Indexer<T>;
  readonly #fifo: DeltaFIFO<T>;
  readonly #reflector: Reflector<T>;
  readonly #clock: Clock;
  readonly #logger: Logger;
  readonly #metrics: InformerMetrics;
  readonly #defaultResyncMs: number;
  readonly #listeners = new Set<ProcessorListener<T>>();
  readonly #stop = new AbortController();
  #synced = false;
  readonly #syncWaiters = new SyncWaiters();
  #state: "new" | "running" | "stopped" = "new";
  #done: Promise<void> = Promise.resolve();
  #cancelResync: () => void = () => {};

  constructor(options: SharedInformerOptions<T>) {
    this.name = options.name ?? "informer";
    this.#clock = options.clock ?? realClock;
    this.#logger = options.logger ?? stderrLogger;
    const metrics = checkMetrics("SharedInformer", options.metrics, ["newInformerMetrics"]);
    this.#metrics = (metrics ?? noopMetricsProvider).newInformerMetrics(this.name);
    this.#defaultResyncMs = resyncMs(options.defaultResyncPeriodMs ?? 0, "defaultResyncPeriodMs");
    this.#indexer = new Indexer<T>({
      indexers: options.indexers ?? {},
      onIndexError: (index, obj, err) =>
        this.#logger.error(
          { informer: this.name, index, key: safeKey(obj), err },
          "an index function threw",
        ),
    });
    this.#fifo = new DeltaFIFO<T>({
      ...(options.transform === undefined ? {} : { transform: options.transform }),
      onTransformError: (obj, err) =>
        this.#logger.error(
          { informer: this.name, key: safeKey(obj), err },
          "the transform threw; caching the object as it came",
        ),
    });
    this.#reflector = new Reflector<T>({
      ...options,
      name: this.name,
      queue: this.#fifo,
      clock: this.#clock,
      logger: this.#logger,
      metrics: { newInformerMetrics: () => this.#metrics },
    });
  }

  /** The cache, read-only. */
  get store(): Store<T> {
    return this.#indexer.readOnly();
  }

  /** The resourceVersion of the last list or event the reflector queued. */
  get lastSyncResourceVersion(): string {
    return this.#reflector.lastSyncResourceVersion;
  }

  /** True once the first full list is in the cache. */
  hasSynced(): boolean {
    return this.#synced;
  }

  /**
   * Resolves when {@link hasSynced} becomes true; rejects with `signal.reason` on abort, and with
   * an error if the informer stops (or has stopped) without having synced.
   */
  waitForSync(signal?: AbortSignal): Promise<void> {
    if (this.#synced) return Promise.resolve();
    if (this.#state === "stopped") return Promise.reject(this.#stoppedUnsynced());
    return this.#syncWaiters.wait(signal);
  }

  /** True if the cache has an index of this name. */
  hasIndex(name: string): boolean {
    return this.#indexer.hasIndex(name);
  }

  /** Adds indexes; objects already cached are indexed at once. Throws on a name clash. */
  addIndexers(indexers: Indexers<T>): void {
    this.#indexer.addIndexers(indexers);
  }

  /**
   * Registers a handler. Added while the informer has objects, it first gets every cached
   * object as an initial-list add, before any later change. Throws once the informer stopped.
   */
  addEventHandler(handler: EventHandler<T>, options: HandlerOptions = {}): HandlerRegistration {
    if (this.#state === "stopped")
      throw new Error(`informer ${this.name} has stopped; it takes no handlers`);
    const period = resyncMs(options.resyncPeriodMs ?? this.#defaultResyncMs, "resyncPeriodMs");
    const listener: ProcessorListener<T> = new ProcessorListener<T>(handler, {
      resyncPeriodMs: period,
      informerSynced: () => this.#synced,
      onError: (err, n) => this.#handlerFailed(err, n),
    });
    listener.nextResyncAt = this.#clock.now() + period;
    for (const obj of this.#indexer.list()) listener.add({ kind: "add", obj, initial: true });
    this.#listeners.add(listener);
    if (this.#state === "running") this.#armResync();
    return listener;
  }

  /** Unregisters a handler: it gets nothing more (a call in progress finishes). Idempotent. */
  removeEventHandler(registration: HandlerRegistration): void {
    const listener = registration as ProcessorListener<T>;
    if (!this.#listeners.delete(listener)) return;
    listener.stop();
  }

  /**
   * Runs the informer until `signal` aborts (or {@link stop}); resolves once the reflector and
   * the processing loop have ended. No handler is called after that (calls in progress finish).
   */
  run(signal?: AbortSignal): Promise<void> {
    if (this.#state !== "new") throw new Error(`informer ${this.name} was already started`);
    this.#state = "running";
    const stop =
      signal === undefined ? this.#stop.signal : AbortSignal.any([signal, this.#stop.signal]);
    this.#armResync();
    this.#done = (async () => {
      const processing = this.#process(stop);
      await this.#reflector.run(stop);
      this.#fifo.close();
      await processing;
      this.#cancelResync();
      this.#ended();
    })();
    return this.#done;
  }

  /** Stops the informer and waits for it to end. Idempotent. */
  stop(): Promise<void> {
    this.#stop.abort(new Error(`informer ${this.name} stopped`));
    if (this.#state === "new") this.#ended();
    return this.#done;
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.stop();
  }

  /** The informer is stopped: its handlers get nothing more, and no one waits for a sync. */
  #ended(): void {
    this.#state = "stopped";
    for (const l of this.#listeners) l.stop();
    this.#syncWaiters.rejectAll(this.#stoppedUnsynced());
  }

  #stoppedUnsynced(): Error {
    return new Error(`informer ${this.name} stopped before it synced`);
  }

  async #process(signal: AbortSignal): Promise<void> {
    for (;;) {
      let batch: Delta<T>[];
      try {
        batch = await this.#fifo.pop(BATCH, signal);
      } catch {
        return;
      }
      for (const d of batch) {
        try {
          this.#apply(d);
        } catch (err) {
          this.#applyFailed(d, err);
        }
      }
      // A full batch means more is waiting: let I/O and timers run before the next one.
      if (batch.length === BATCH) await new Promise((r) => setImmediate(r));
    }
  }

  /** Applies one delta to the cache, then tells the handlers. */
  #apply(d: Delta<T>): void {
    switch (d.type) {
      case "ADDED":
      case "MODIFIED": {
        const obj = d.object;
        const old = this.#indexer.upsert(obj);
        this.#indexer.setResourceVersion(obj.metadata!.resourceVersion!);
        this.#notify(
          old === undefined
            ? { kind: "add", obj, initial: !this.#synced }
            : { kind: "update", old, obj },
        );
        return;
      }
      case "DELETED": {
        this.#indexer.deleteIn(d.object.metadata?.namespace ?? "", d.object.metadata?.name ?? "");
        this.#indexer.setResourceVersion(d.object.metadata!.resourceVersion!);
        this.#notify({ kind: "delete", obj: d.object });
        return;
      }
      case "BOOKMARK":
        this.#indexer.setResourceVersion(d.object.metadata.resourceVersion);
        return;
      case "REPLACED":
        this.#replace(d.objects, d.resourceVersion);
        return;
    }
  }

  /**
   * A relist: swap the cache, then tombstones for what vanished, then adds and updates. An object
   * the relist finds at the resourceVersion the cache has is the same object: the cached instance
   * stays (so the `old` of its next update is the instance every handler was given, and the
   * list's copy is garbage at once); it reaches only handlers that asked for resyncs.
   */
  #replace(listed: readonly T[], rv: string): void {
    // What the cache held for each listed object (undefined: new), looked up once: it decides
    // whether the cached instance stays and, after the swap, between add and update.
    const prevs: (T | undefined)[] = [];
    const objects =
      this.#indexer.size === 0
        ? listed
        : listed.map((obj) => {
            const meta = obj.metadata;
            const prev = this.#indexer.getIn(meta?.namespace ?? "", meta?.name ?? "");
            prevs.push(prev);
            return prev !== undefined && sameVersion(prev, obj) ? prev : obj;
          });
    const old = this.#indexer.replace(objects, rv);
    old.forEach((obj, ns, name) => {
      if (this.#indexer.getIn(ns, name) === undefined) {
        this.#notify({
          kind: "delete",
          obj: new DeletedFinalStateUnknown({ key: keyOf(ns, name), obj }),
        });
      }
    });
    const initial = !this.#synced;
    for (let i = 0; i < objects.length; i++) {
      const obj = objects[i]!;
      const prev = prevs[i];
      this.#notify(
        prev === undefined ? { kind: "add", obj, initial } : { kind: "update", old: prev, obj },
      );
    }
    if (!this.#synced) {
      this.#synced = true;
      this.#syncWaiters.resolveAll();
      for (const l of this.#listeners) l.checkSynced();
    }
  }

  /**
   * A delta the cache could not take (an object without a name from a custom ListerWatcher: the
   * client's decoder lets none through). It is dropped and reported; the loop goes on, so one
   * bad object never stops the cache.
   */
  #applyFailed(d: Delta<T>, err: unknown): void {
    const obj = d.type === "REPLACED" ? undefined : d.object;
    this.#logger.error(
      { informer: this.name, delta: d.type, key: obj === undefined ? "" : safeKey(obj), err },
      "a change could not be applied to the cache; dropped",
    );
  }

  #notify(n: Notification<T>): void {
    const unchanged =
      n.kind === "update" && n.old.metadata?.resourceVersion === n.obj.metadata?.resourceVersion;
    for (const l of this.#listeners) {
      if (!unchanged || l.resyncPeriodMs > 0) l.add(n);
    }
  }

  #handlerFailed(error: unknown, n: Notification<T>): void {
    this.#metrics.handlerErrors.inc();
    const obj = n.obj instanceof DeletedFinalStateUnknown ? n.obj.obj : n.obj;
    this.#logger.error(
      { informer: this.name, event: n.kind, key: safeKey(obj), err: error },
      "an event handler threw",
    );
  }

  /** Arms the resync timer for the earliest handler due, if any handler asked for resyncs. */
  #armResync(): void {
    this.#cancelResync();
    let next = Number.POSITIVE_INFINITY;
    for (const l of this.#listeners)
      if (l.resyncPeriodMs > 0) next = Math.min(next, l.nextResyncAt);
    if (next === Number.POSITIVE_INFINITY) return;
    this.#cancelResync = this.#clock.setTimer(next - this.#clock.now(), () => this.#resync());
  }

  #resync(): void {
    if (this.#state !== "running") return;
    const now = this.#clock.now();
    const due = [...this.#listeners].filter((l) => l.resyncPeriodMs > 0 && l.nextResyncAt <= now);
    if (due.length > 0 && this.#synced) {
      for (const obj of this.#indexer.list()) {
        const n: Notification<T> = { kind: "update", old: obj, obj };
        for (const l of due) l.add(n);
      }
    }
    for (const l of due) l.nextResyncAt = now + l.resyncPeriodMs;
    this.#armResync();
  }
}

function resyncMs(value: number, option: string): number {
  checkNumber("SharedInformer", option, value, { min: 0 });
  return value === 0 ? 0 : Math.max(value, MIN_RESYNC_MS);
}

function safeKey(obj: KubeObject): string {
  try {
    return objectKey(obj);
  } catch {
    return "?";
  }
}

/** The same object: same uid, same resourceVersion (a relist that found it unchanged). */
function sameVersion(a: KubeObject, b: KubeObject): boolean {
  return (
    a.metadata?.resourceVersion === b.metadata?.resourceVersion &&
    a.metadata?.uid === b.metadata?.uid
  );
}
