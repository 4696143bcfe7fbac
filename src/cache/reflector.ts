/**
 * The reflector's I/O shell: runs the commands of the pure {@link ReflectorMachine} (list, watch,
 * wait) against a `ListerWatcher`, feeds it what happened, pushes its effects into the
 * `DeltaFIFO`, detects silent watches on its clock, and reports failures.
 */
import {
  Backoff,
  type BackoffOptions,
  type Clock,
  checkMetrics,
  checkNumber,
  type InformerMetrics,
  type InformerMetricsProvider,
  type KubeObject,
  noopMetricsProvider,
  realClock,
  sleep,
} from "../core/index.ts";
import type { DeltaFIFO } from "./delta-fifo.ts";
import { failureReason } from "./failure-reason.ts";
import type { ListerWatcher } from "./lister-watcher.ts";
import { type Logger, stderrLogger } from "./logger.ts";
import type { ReflectorFailure } from "./reflector-errors.ts";
import { InitialEventsTimeoutError, WatchIdleError } from "./reflector-errors.ts";
import {
  type Command,
  type Effect,
  type ListRequest,
  ReflectorMachine,
  type WatchRequest,
} from "./reflector-machine.ts";

/** A streaming list silent this long before its end bookmark is logged (client-go: 10 s). */
const BOOKMARK_WAIT_WARN_MS = 10_000;

/** Options for {@link Reflector}. */
export interface ReflectorOptions<T extends KubeObject> {
  /** Lists and watches the collection. */
  listerWatcher: ListerWatcher<T>;
  /** Where lists and events go. The reflector is its only producer. */
  queue: DeltaFIFO<T>;
  /** Names the reflector in reports and logs. @default "reflector" */
  name?: string;
  /** @default realClock */
  clock?: Clock;
  /**
   * Items per LIST page. Left unset, relists at a known resourceVersion are unpaged (served from
   * the server's cache), as client-go does; set, every list is paged.
   * @default 500
   */
  pageSize?: number;
  /**
   * Sync with a streaming list (`sendInitialEvents`) when the server supports it; a server that
   * refuses it (400/422) is listed with pages from then on.
   * @default true
   */
  useWatchList?: boolean;
  /**
   * Watches ask the server to close them after a random time in [min, 2·min) seconds.
   * @default 300
   */
  minWatchTimeoutSeconds?: number;
  /**
   * A watch that delivers no event and no bookmark for this long is presumed dead: it is closed
   * and replaced by a new watch from the last resourceVersion. Servers send bookmarks about
   * every minute to watches that ask for them (all of the reflector's do).
   * @default 90000
   */
  watchIdleTimeoutMs?: number;
  /**
   * A streaming list that delivers nothing for this long without its initial-events-end
   * bookmark is given up: the reflector lists instead (and, if the list had sent events, pages
   * from then on: that server ignores `sendInitialEvents`). kube sends the bookmark about a
   * second after the initial events; the stream warns every 10 s of silence before this.
   * @default 30000
   */
  initialEventsTimeoutMs?: number;
  /**
   * A watch that closes sooner than this without any event counts as a failure (backoff, then
   * relist), so a proxy that closes every stream at once causes no hot loop.
   * @default 1000
   */
  shortWatchMs?: number;
  /** Backoff between failed attempts. @default 800 ms ×2 up to 30 s, full jitter, reset after 2 min */
  backoff?: BackoffOptions;
  /** Random source for watch timeouts. @default Math.random */
  random?: () => number;
  /**
   * Called for every failure, with what the reflector does about it. The reflector never gives
   * up; this is for information. @default log it (410 Expired and idle reconnects at info level)
   */
  onWatchError?: (failure: ReflectorFailure) => void;
  /**
   * Makes the reflector's instruments, under its `name`.
   * @default noopMetricsProvider
   */
  metrics?: InformerMetricsProvider;
  /** @default stderrLogger */
  logger?: Logger;
}

/**
 * Keeps a `DeltaFIFO` in step with a collection on the server: lists, then watches, and starts
 * over as the rules of the reflector machine say. Never gives up while running.
 *
 * Inert until {@link run}; one run at a time.
 */
export class Reflector<T extends KubeObject> {
  readonly name: string;
  readonly #lw: ListerWatcher<T>;
  readonly #queue: DeltaFIFO<T>;
  readonly #clock: Clock;
  readonly #idleMs: number;
  readonly #initialEventsMs: number;
  readonly #machine: ReflectorMachine<T>;
  readonly #onWatchError: ((f: ReflectorFailure) => void) | undefined;
  readonly #metrics: InformerMetrics;
  readonly #logger: Logger;
  #running = false;

  constructor(options: ReflectorOptions<T>) {
    const owner = "Reflector";
    this.name = options.name ?? "reflector";
    this.#lw = options.listerWatcher;
    this.#queue = options.queue;
    this.#clock = options.clock ?? realClock;
    this.#idleMs = checkNumber(owner, "watchIdleTimeoutMs", options.watchIdleTimeoutMs ?? 90_000, {
      above: 0,
    });
    this.#initialEventsMs = checkNumber(
      owner,
      "initialEventsTimeoutMs",
      options.initialEventsTimeoutMs ?? 30_000,
      { above: 0 },
    );
    this.#onWatchError = options.onWatchError;
    this.#metrics = (
      checkMetrics(owner, options.metrics, ["newInformerMetrics"]) ?? noopMetricsProvider
    ).newInformerMetrics(this.name);
    this.#logger = options.logger ?? stderrLogger;
    this.#machine = new ReflectorMachine<T>({
      pageSize: checkNumber(owner, "pageSize", options.pageSize ?? 500, { min: 1, integer: true }),
      pageSizeExplicit: options.pageSize !== undefined,
      useWatchList: options.useWatchList ?? true,
      minWatchTimeoutSeconds: checkNumber(
        owner,
        "minWatchTimeoutSeconds",
        options.minWatchTimeoutSeconds ?? 300,
        {
          min: 1,
          integer: true,
        },
      ),
      shortWatchMs: checkNumber(owner, "shortWatchMs", options.shortWatchMs ?? 1000, { min: 0 }),
      backoff: new Backoff(options.backoff),
      random: options.random ?? Math.random,
    });
  }

  /** The resourceVersion of the last list or event queued; `""` before the first list. */
  get lastSyncResourceVersion(): string {
    return this.#machine.lastSyncResourceVersion;
  }

  /** Lists and watches until `signal` aborts; resolves then. Throws if already running. */
  async run(signal: AbortSignal): Promise<void> {
    if (this.#running) throw new Error(`reflector ${this.name} is already running`);
    this.#running = true;
    try {
      let command: Command | undefined = this.#machine.start(this.#clock.now());
      while (command !== undefined && !signal.aborted) {
        switch (command.type) {
          case "wait":
            command = await this.#wait(command.ms, signal);
            break;
          case "list":
            command = await this.#list(command.request, signal);
            break;
          case "watch":
            command = await this.#watch(command.request, signal);
            break;
        }
      }
    } finally {
      this.#running = false;
    }
  }

  async #wait(ms: number, signal: AbortSignal): Promise<Command | undefined> {
    try {
      await sleep(ms, { clock: this.#clock, signal });
    } catch {
      return undefined;
    }
    return this.#machine.waited(this.#clock.now());
  }

  async #list(request: ListRequest, signal: AbortSignal): Promise<Command | undefined> {
    const started = this.#clock.now();
    try {
      const page = await this.#lw.list({ ...request, signal });
      this.#metrics.lists.inc();
      this.#metrics.listDuration.observe((this.#clock.now() - started) / 1000);
      const step = this.#machine.listed(page, this.#clock.now());
      this.#apply(step.effects);
      return step.command;
    } catch (err) {
      if (signal.aborted) return undefined;
      const step = this.#machine.listFailed(err, this.#clock.now());
      this.#apply(step.effects);
      return step.command;
    }
  }

  async #watch(request: WatchRequest, signal: AbortSignal): Promise<Command | undefined> {
    const stop = new AbortController();
    const watchSignal = AbortSignal.any([signal, stop.signal]);
    // Why the shell stopped the watch itself, if it did.
    let stopped: WatchIdleError | InitialEventsTimeoutError | undefined;
    const stopWith = (error: WatchIdleError | InitialEventsTimeoutError) => {
      stopped = error;
      stop.abort(error);
    };
    // One timer per watch, not one per batch: each batch only records when it came; the timer,
    // when due, declares the watch idle or re-arms itself for the rest of the window.
    let lastActivity = this.#clock.now();
    let cancelIdle: () => void = () => {};
    const check = () => {
      const left = lastActivity + this.#idleMs - this.#clock.now();
      if (left > 0) {
        cancelIdle = this.#clock.setTimer(left, check);
        return;
      }
      stopWith(new WatchIdleError(this.#idleMs));
    };
    cancelIdle = this.#clock.setTimer(this.#idleMs, check);
    const cancelWait = request.sendInitialEvents
      ? this.#awaitEndBookmark(
          () => lastActivity,
          (silentMs) => stopWith(new InitialEventsTimeoutError(silentMs)),
        )
      : () => {};
    let opened = false;
    let ended: { error: unknown } | undefined;
    try {
      const stream = await this.#lw.watch({ ...request, signal: watchSignal });
      opened = true;
      this.#metrics.watches.inc();
      lastActivity = this.#clock.now();
      for await (const batch of stream) {
        lastActivity = this.#clock.now();
        this.#metrics.events.inc(batch.length);
        this.#apply(this.#machine.watchEvents(batch));
      }
      ended = { error: undefined };
    } catch (err) {
      ended = { error: stopped ?? err };
    } finally {
      cancelIdle();
      cancelWait();
      stop.abort();
    }
    if (signal.aborted) return undefined;
    const step = this.#machine.watchEnded(ended.error, opened, this.#clock.now());
    this.#apply(step.effects);
    return step.command;
  }

  /**
   * While a streaming list waits for its initial-events-end bookmark: warns every
   * {@link BOOKMARK_WAIT_WARN_MS} in which nothing arrived (client-go's ticker), so that a server
   * that never ends the initial events is visible, and calls `giveUp` once nothing has arrived
   * for `initialEventsTimeoutMs`. Stops when the bookmark came (the machine left
   * `watch-listing`). Returns the cancel.
   */
  #awaitEndBookmark(lastActivity: () => number, giveUp: (silentMs: number) => void): () => void {
    const started = this.#clock.now();
    let nextWarn = started + BOOKMARK_WAIT_WARN_MS;
    let cancel: () => void;
    const arm = () => {
      const due = Math.min(nextWarn, lastActivity() + this.#initialEventsMs);
      cancel = this.#clock.setTimer(Math.max(0, due - this.#clock.now()), tick);
    };
    const tick = () => {
      if (this.#machine.phase !== "watch-listing") return;
      const now = this.#clock.now();
      const silentMs = now - lastActivity();
      if (silentMs >= this.#initialEventsMs) {
        giveUp(silentMs);
        return;
      }
      if (now >= nextWarn) {
        if (silentMs >= BOOKMARK_WAIT_WARN_MS) {
          this.#logger.warn(
            { reflector: this.name, waitingMs: now - started, silentMs },
            "the streaming list has not sent its initial-events-end bookmark yet",
          );
        }
        nextWarn = now + BOOKMARK_WAIT_WARN_MS;
      }
      arm();
    };
    arm();
    return () => cancel();
  }

  #apply(effects: readonly Effect<T>[]): void {
    for (const e of effects) {
      switch (e.type) {
        case "replace":
          this.#queue.replace(e.objects, e.resourceVersion);
          break;
        case "events":
          this.#queue.pushEvents(e.events);
          break;
        case "failure":
          this.#report({
            reflector: this.name,
            phase: e.phase,
            error: e.error,
            recovery: e.recovery,
            delayMs: e.delayMs,
          });
          break;
      }
    }
  }

  #report(failure: ReflectorFailure): void {
    const reason = failureReason(failure.error);
    this.#metrics.failures.inc(failure.phase, reason);
    if (this.#onWatchError !== undefined) {
      try {
        this.#onWatchError(failure);
      } catch (err) {
        this.#logger.error({ reflector: this.name, err }, "the watch-error handler threw");
      }
      return;
    }
    const quiet = reason === "Expired" || reason === "Gone" || reason === "Idle";
    const fields = {
      reflector: this.name,
      phase: failure.phase,
      reason,
      recovery: failure.recovery,
      delayMs: Math.round(failure.delayMs),
      err: failure.error,
    };
    if (quiet) this.#logger.info(fields, "watch restarted");
    else this.#logger.warn(fields, "list/watch failed");
  }
}
