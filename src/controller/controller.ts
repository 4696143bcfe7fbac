import { randomUUID } from "node:crypto";
import type { HandlerRegistration, InformerFactory, Logger } from "../cache/index.ts";
import {
  type Clock,
  type ControllerMetrics,
  type ControllerMetricsProvider,
  checkMetrics,
  checkNumber,
  errorMessage,
  InvalidOptionError,
  isTerminal,
  type KubeObject,
  noopMetricsProvider,
  type QueueMetricsProvider,
  type ReconcileOutcome,
  realClock,
  splitKey,
} from "../core/index.ts";
import type { QueueSnapshot } from "../workqueue/index.ts";
import type { ControllerSpec } from "./builder.ts";
import { type ControllerQueue, makeControllerQueue } from "./controller-queue.ts";
import type { EventRecorder } from "./event-recorder.ts";
import { connectSources } from "./event-sources.ts";
import { bindLogger } from "./log.ts";
import { describeReason, ReasonBook } from "./reasons.ts";
import type { ReconcileReason, ReconcileResult, Request } from "./reconciler.ts";

/** Options for {@link Controller}: what it runs and what it runs with (the Manager fills these in). */
export interface ControllerDeps<T extends KubeObject = KubeObject> {
  /** What to run, as `controller({...})` made it. */
  spec: ControllerSpec<T>;
  /** The informers the controller's sources read. */
  factory: InformerFactory;
  logger: Logger;
  /** @default realClock */
  clock?: Clock;
  /**
   * Makes the controller's instruments and its queue's, under the controller's name.
   * @default noopMetricsProvider
   */
  metrics?: ControllerMetricsProvider & QueueMetricsProvider;
  /**
   * Terminal errors are recorded as Warning events on the reconciled object, when given.
   * @default undefined (not recorded)
   */
  recorder?: EventRecorder;
}

/** How long in-flight reconciles get to finish on stop, unless told otherwise: 30 s. */
export const DEFAULT_GRACE_MS = 30_000;

/** Options of {@link Controller.stop}. */
export interface StopOptions {
  /** Also reconcile what is still queued before stopping. @default false (in-flight only) */
  drainQueued?: boolean;
  /**
   * In-flight reconciles get this long; then their `ctx.signal` aborts.
   * @default DEFAULT_GRACE_MS (30000)
   */
  graceMs?: number;
}

/** A reconcile that outlived its timeout. */
export class ReconcileTimeoutError extends Error {
  constructor(key: string, ms: number) {
    super(`reconcile of ${key} took longer than ${ms} ms`);
    this.name = "TimeoutError";
  }
}

type Outcome =
  | { kind: "ok"; result: ReconcileResult | undefined }
  | { kind: "error"; error: unknown }
  | { kind: "timeout" }
  /** Still running when the grace period of `stop` ended: left behind, so that stop returns. */
  | { kind: "abandoned"; error: unknown };

/**
 * A running controller: event sources feed its queue; `concurrency` workers take keys and call
 * the reconciler.
 *
 * Guarantees: one key is never reconciled by two workers at once — not even after a reconcile
 * timed out and its promise still runs (the key waits for it); workers start only once every
 * informer this controller reads has synced and every handler has seen its initial list; a key's
 * backoff resets after a success; a reconciler that throws anything, rejects, never settles or
 * throws synchronously is a failure like any other, never a crash; `stop` returns within its grace
 * period even if a reconcile ignores its aborted signal (that reconcile is abandoned, not awaited).
 */
export class Controller {
  readonly name: string;
  readonly #spec: ControllerSpec;
  readonly #deps: {
    factory: InformerFactory;
    logger: Logger;
    clock: Clock;
    metrics: ControllerMetrics;
    recorder: EventRecorder | undefined;
  };
  readonly #queue: ControllerQueue;
  readonly #book = new ReasonBook();
  /** Reconciles that timed out but whose promise has not settled: their key must wait. */
  readonly #zombies = new Map<string, Promise<unknown>>();
  readonly #abortAll = new AbortController();
  #registrations: HandlerRegistration[] = [];
  #connected = false;
  #stopping = false;
  #drainQueued = false;
  #active = 0;
  #workers: Promise<void>[] = [];

  constructor(options: ControllerDeps) {
    const { spec, factory, logger } = options;
    if (typeof spec?.name !== "string" || typeof spec.reconcile !== "function") {
      throw new InvalidOptionError("Controller", "spec", spec, "must be made by controller()");
    }
    if (typeof factory?.informer !== "function") {
      throw new InvalidOptionError("Controller", "factory", factory, "must be an InformerFactory");
    }
    const metrics =
      checkMetrics("Controller", options.metrics, ["newControllerMetrics", "newQueueMetrics"]) ??
      noopMetricsProvider;
    this.name = spec.name;
    this.#spec = spec;
    this.#deps = {
      factory,
      logger,
      clock: options.clock ?? realClock,
      metrics: metrics.newControllerMetrics(spec.name),
      recorder: options.recorder,
    };
    this.#queue = makeControllerQueue(spec.queue, {
      name: spec.name,
      clock: this.#deps.clock,
      metrics,
      ...(spec.rateLimiter === undefined ? {} : { rateLimiter: spec.rateLimiter }),
    });
    this.#deps.metrics.maxConcurrentReconciles(spec.concurrency);
    this.#deps.metrics.activeWorkers(0);
  }

  /** Registers the event handlers on the factory's informers. Call before the factory starts. */
  connect(): void {
    if (this.#connected) return;
    this.#connected = true;
    const { registrations } = connectSources(this.#spec, this.#deps.factory, {
      enqueue: (key, reason, priority) => this.enqueue(key, reason, priority),
      handlerError: (err, where) => {
        this.#deps.metrics.handlerError();
        this.#deps.logger.error(
          { controller: this.name, err, source: where },
          "event handler failed; event skipped",
        );
      },
    });
    this.#registrations = registrations;
  }

  /** True once every source has synced and its handler has seen the initial list. */
  hasSynced(): boolean {
    return this.#connected && this.#registrations.every((r) => r.hasSynced());
  }

  /** Queues `key` with a reason (event sources call this; tests and users may too). */
  enqueue(key: string, reason: ReconcileReason, priority = 0): void {
    if (this.#stopping) return;
    this.#book.note(key, reason, this.#deps.clock.now());
    this.#queue.add(key, { priority });
  }

  /** Waits for the sources to sync, then runs the workers until {@link stop}. */
  async start(signal?: AbortSignal): Promise<void> {
    this.connect();
    await Promise.all(this.#registrations.map((r) => r.waitForSync(signal)));
    if (this.#stopping) return;
    this.#workers = Array.from({ length: this.#spec.concurrency }, () => this.#work());
  }

  /** Stops taking work; in-flight reconciles finish within the grace period. Idempotent. */
  async stop(options: StopOptions = {}): Promise<void> {
    const graceMs = checkNumber("Controller.stop", "graceMs", options.graceMs ?? DEFAULT_GRACE_MS, {
      min: 0,
    });
    if (!this.#stopping) {
      this.#stopping = true;
      this.#drainQueued = options.drainQueued ?? false;
      // Adds are refused from now on; delayed keys are dropped. Workers hand out what is
      // queued only when draining.
      this.#queue.shutDown();
    }
    const cancel = this.#deps.clock.setTimer(graceMs, () =>
      this.#abortAll.abort(new Error(`${this.name}: the grace period of ${graceMs} ms is over`)),
    );
    try {
      await Promise.all(this.#workers);
    } finally {
      cancel();
    }
  }

  /** The queue's contents, for "why is my key not processed?". */
  snapshot(): QueueSnapshot<string> {
    return this.#queue.snapshot();
  }

  /** Keys ready to be reconciled. */
  get queueSize(): number {
    return this.#queue.size;
  }

  async #work(): Promise<void> {
    for (;;) {
      if (this.#stopping && !this.#drainQueued) return;
      const got = await this.#queue.get();
      if (got === undefined) return;
      // Stopping without draining, or the grace period is over: what is queued is dropped.
      if (this.#stopping && (!this.#drainQueued || this.#abortAll.signal.aborted)) {
        this.#book.forget(got.key);
        this.#queue.done(got.key);
        return;
      }
      await this.#process(got.key, got.priority);
    }
  }

  async #process(key: string, priority: number): Promise<void> {
    const { clock, metrics } = this.#deps;
    const start = clock.now();
    const { reasons, waitedMs } = this.#book.take(key, start);
    const reason = reasons[0]!;
    const zombie = this.#zombies.get(key);
    if (zombie !== undefined) {
      // The last reconcile of this key timed out and still runs: never start a second one.
      // The key comes back once that promise settles.
      this.#queue.done(key);
      for (const r of reasons) this.#book.note(key, r, start);
      void zombie.finally(() => this.#queue.add(key, { priority }));
      return;
    }
    this.#active++;
    metrics.activeWorkers(this.#active);
    const reconcileId = randomUUID();
    const log = bindLogger(this.#deps.logger, {
      controller: this.name,
      key,
      reconcileId,
      reason: describeReason(reason),
    });
    const outcome = await this.#run(key, { reasons, waitedMs, reconcileId, log, reason });
    const durationMs = clock.now() - start;
    metrics.reconcileTime(durationMs / 1000);
    this.#active--;
    metrics.activeWorkers(this.#active);
    // Every reconcile ends with one log line carrying its reason (bound above), how long the
    // key waited in the queue and how long the reconcile took.
    const timing = { waitedMs, durationMs };
    const label = this.#settle(key, priority, outcome, log, timing);
    metrics.reconciled(label);
    if (outcome.kind === "ok") log.info({ ...timing, result: label }, "reconciled");
    this.#queue.done(key);
  }

  /** Runs the reconciler with its timeout; catches whatever it throws. */
  async #run(
    key: string,
    ctx: {
      reasons: ReconcileReason[];
      waitedMs: number;
      reconcileId: string;
      log: Logger;
      reason: ReconcileReason;
    },
  ): Promise<Outcome> {
    let request: Request;
    try {
      request = splitKey(key);
    } catch (error) {
      return { kind: "error", error };
    }
    // The outcome is whichever comes first: the reconcile settles, its timeout, or the end of
    // stop's grace period (then it is abandoned: its signal aborts and nobody waits for it).
    let finish!: (o: Outcome) => void;
    const outcome = new Promise<Outcome>((resolve) => {
      finish = resolve;
    });
    const ac = new AbortController();
    const onAbortAll = () => {
      const reason: unknown = this.#abortAll.signal.reason;
      ac.abort(reason);
      finish({ kind: "abandoned", error: reason });
    };
    this.#abortAll.signal.addEventListener("abort", onAbortAll, { once: true });
    if (this.#abortAll.signal.aborted) onAbortAll();
    const timeoutMs = this.#spec.reconcileTimeoutMs;
    const cancelTimer =
      timeoutMs === undefined
        ? undefined
        : this.#deps.clock.setTimer(timeoutMs, () => {
            ac.abort(new ReconcileTimeoutError(key, timeoutMs));
            finish({ kind: "timeout" });
          });
    const running = (async () => this.#spec.reconcile(request, { ...ctx, signal: ac.signal }))();
    running.then(
      (result) => finish({ kind: "ok", result: result ?? undefined }),
      (error: unknown) => finish({ kind: "error", error }),
    );
    try {
      const o = await outcome;
      if (o.kind === "timeout") {
        const z = running.then(noop, noop).finally(() => this.#zombies.delete(key));
        this.#zombies.set(key, z);
      }
      return o;
    } finally {
      cancelTimer?.();
      this.#abortAll.signal.removeEventListener("abort", onAbortAll);
    }
  }

  /** Requeues or forgets the key as the outcome says; returns the metrics label. */
  #settle(
    key: string,
    priority: number,
    outcome: Outcome,
    log: Logger,
    timing: { waitedMs: number; durationMs: number },
  ): ReconcileOutcome {
    const { metrics, clock } = this.#deps;
    const now = clock.now();
    if (outcome.kind === "ok") {
      const r = outcome.result;
      if (r?.requeueAfterMs !== undefined && r.requeueAfterMs > 0) {
        this.#queue.forget(key);
        const afterMs = r.requeueAfterMs;
        const delay = this.#queue.add(key, { afterMs, priority: r.priority ?? priority });
        this.#book.note(key, { type: "requeue-after", afterMs }, now, now + delay);
        return "requeue_after";
      }
      if (r?.requeue === true) {
        const delay = this.#queue.add(key, { rateLimited: true, priority: r.priority ?? priority });
        this.#book.note(key, { type: "requeue" }, now, now + delay);
        return "requeue";
      }
      this.#queue.forget(key);
      return "success";
    }
    metrics.reconcileError();
    if (outcome.kind === "abandoned") {
      log.warn(
        { ...timing, err: outcome.error },
        "reconcile still running when the grace period ended; abandoned, not awaited",
      );
      return "error";
    }
    const error =
      outcome.kind === "timeout"
        ? new Error(`timed out after ${this.#spec.reconcileTimeoutMs} ms`)
        : outcome.error;
    if (outcome.kind === "timeout") metrics.reconcileTimeout();
    if (isTerminal(error)) {
      metrics.terminalError();
      this.#queue.forget(key);
      log.error({ ...timing, err: error }, "reconcile failed with a terminal error; not retrying");
      this.#recordTerminal(key, error);
      return "error";
    }
    const attempt = this.#queue.numRequeues(key) + 1;
    log.warn({ ...timing, err: error, attempt }, "reconcile failed; retrying with backoff");
    const delay = this.#queue.add(key, { rateLimited: true, priority });
    this.#book.note(key, { type: "retry", attempt, error: errorMessage(error) }, now, now + delay);
    return "error";
  }

  #recordTerminal(key: string, error: unknown): void {
    const recorder = this.#deps.recorder;
    if (recorder === undefined) return;
    const { namespace, name } = splitKey(key);
    const def = this.#spec.for?.resource;
    if (def === undefined) return; // keys of something that is not one kind: nothing to event
    const regarding: KubeObject = {
      apiVersion: def.group === "" ? def.version : `${def.group}/${def.version}`,
      kind: def.kind,
      metadata: { name, ...(namespace ? { namespace } : {}) },
    };
    recorder.record(regarding, {
      type: "Warning",
      reason: "ReconcileFailed",
      action: "Reconcile",
      note: errorMessage(error),
    });
  }
}

function noop(): void {}
