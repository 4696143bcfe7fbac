/**
 * The reflector's decisions, as a pure state machine: it never does I/O, never reads a clock
 * and never waits. The shell (`reflector.ts`) feeds it what happened (a list page, a batch of
 * watch events, a failure, the end of a wait), with the time, and does what it returns: effects
 * on the queue, and the next command (list, watch, or wait).
 *
 * The rules are client-go's reflector's (list, then watch from the list's resourceVersion; relist
 * on 410; back off with jitter; bookmarks; streaming lists), with the choices of kontroller where client-go has knobs: streaming list first, relist with a
 * consistent read after 410, never give up.
 */

import { DecodeError, isConnectionRefused, isTransportError } from "../client/index.ts";
import {
  ApiError,
  type Backoff,
  checkFunction,
  checkNumber,
  INITIAL_EVENTS_END_ANNOTATION,
  isGone,
  isTooManyRequests,
  type KubeObject,
  objectKey,
  type WatchEvent,
} from "../core/index.ts";
import {
  InitialEventsTimeoutError,
  isResourceVersionTooLarge,
  type ReflectorPhase,
  type ReflectorRecovery,
  ShortWatchError,
  WatchIdleError,
} from "./reflector-errors.ts";

/** A LIST to send. `resourceVersion` is omitted on continuation pages. */
export interface ListRequest {
  readonly resourceVersion?: string;
  readonly limit?: number;
  readonly continue?: string;
}

/** A WATCH to send. */
export interface WatchRequest {
  readonly resourceVersion: string;
  readonly timeoutSeconds: number;
  readonly allowWatchBookmarks: true;
  /** Set for a streaming list (with `resourceVersionMatch: "NotOlderThan"`). */
  readonly sendInitialEvents?: true;
  readonly resourceVersionMatch?: "NotOlderThan";
}

/** What the shell does next. */
export type Command =
  | { readonly type: "list"; readonly request: ListRequest }
  | { readonly type: "watch"; readonly request: WatchRequest }
  | { readonly type: "wait"; readonly ms: number };

/** What the shell applies to the queue, or reports. */
export type Effect<T extends KubeObject> =
  | { readonly type: "replace"; readonly objects: readonly T[]; readonly resourceVersion: string }
  | { readonly type: "events"; readonly events: readonly WatchEvent<T>[] }
  | {
      readonly type: "failure";
      readonly phase: ReflectorPhase;
      readonly error: unknown;
      readonly recovery: ReflectorRecovery;
      readonly delayMs: number;
    };

/** A transition's output. */
export interface Step<T extends KubeObject> {
  readonly effects: readonly Effect<T>[];
  readonly command: Command;
}

/** The machine's configuration, resolved and validated by the shell. */
export interface MachineConfig {
  /** Items per LIST page. */
  readonly pageSize: number;
  /** True if the user chose the page size: then every list is paged. */
  readonly pageSizeExplicit: boolean;
  /** Try the streaming list (`sendInitialEvents`) for initial syncs and relists. */
  readonly useWatchList: boolean;
  /** Watches ask for `timeoutSeconds` in [min, 2·min). */
  readonly minWatchTimeoutSeconds: number;
  /** A watch that closes sooner than this without events counts as failed. */
  readonly shortWatchMs: number;
  readonly backoff: Backoff;
  /** A number in [0, 1). */
  readonly random: () => number;
}

type Phase = "idle" | "listing" | "watch-listing" | "watching" | "waiting";
type AfterWait = "sync" | "watch";

/**
 * The reflector's state machine.
 *
 * State, and what holds in each phase:
 * - `listing`: a LIST is out for `#listRv` (`#continue` set on continuation pages); `#items`
 *   holds the pages received so far. Nothing reaches the queue until the last page.
 * - `watch-listing`: a streaming list is open; `#initial` accumulates its ADDED objects, which
 *   reach the queue only with the initial-events-end bookmark (one `replace`), never partially.
 * - `watching`: a watch from `#lastSyncRv` is open; each event batch goes to the queue as is
 *   and advances `#lastSyncRv`.
 * - `waiting`: a backoff delay is running; `#afterWait` says what follows.
 *
 * Across phases: `#lastSyncRv` is the resourceVersion of the last list or event applied;
 * `#rvUnavailable` (after 410 or "too large") makes the next list a consistent read (RV "");
 * `#paginated` records that a list at RV "0" came back in pages, so relists keep paging;
 * `#watchListEnabled` turns off for good once the server refuses the streaming list, closes
 * one cleanly without sending anything (not even the end bookmark every such list ends with),
 * or sends events and then nothing until the shell gives up waiting for that bookmark.
 */
export class ReflectorMachine<T extends KubeObject> {
  readonly #config: MachineConfig;
  #phase: Phase = "idle";
  #lastSyncRv: string | undefined;
  #rvUnavailable = false;
  #paginated = false;
  #watchListEnabled: boolean;
  #afterWait: AfterWait = "sync";
  #listRv = "";
  #listLimit: number | undefined;
  #continue: string | undefined;
  #items: T[] = [];
  #initial = new InitialItems<T>();
  #watchStartedAt = 0;
  #watchEvents = 0;

  constructor(config: MachineConfig) {
    const owner = "ReflectorMachine";
    checkNumber(owner, "pageSize", config?.pageSize, { min: 1, integer: true });
    checkNumber(owner, "minWatchTimeoutSeconds", config.minWatchTimeoutSeconds, {
      min: 1,
      integer: true,
    });
    checkNumber(owner, "shortWatchMs", config.shortWatchMs, { min: 0 });
    checkFunction(owner, "random", config.random);
    this.#config = config;
    this.#watchListEnabled = config.useWatchList;
  }

  /** The resourceVersion of the last list or event applied; `""` before the first. */
  get lastSyncResourceVersion(): string {
    return this.#lastSyncRv ?? "";
  }

  /** The current phase (for tests and diagnostics). */
  get phase(): Phase {
    return this.#phase;
  }

  /** True while streaming lists are still tried. */
  get watchListEnabled(): boolean {
    return this.#watchListEnabled;
  }

  /** The first command. */
  start(now: number): Command {
    return this.#sync(now);
  }

  /** A LIST page arrived. */
  listed(
    page: { items: readonly T[]; resourceVersion: string; continue?: string },
    now: number,
  ): Step<T> {
    for (const item of page.items) this.#items.push(item);
    if (page.continue !== undefined && page.continue !== "") {
      if (this.#listRv === "0") this.#paginated = true;
      this.#continue = page.continue;
      return {
        effects: [],
        command: {
          type: "list",
          request: { limit: this.#listLimit ?? this.#config.pageSize, continue: page.continue },
        },
      };
    }
    const objects = this.#items;
    this.#items = [];
    this.#continue = undefined;
    this.#lastSyncRv = page.resourceVersion;
    this.#rvUnavailable = false;
    return {
      effects: [{ type: "replace", objects, resourceVersion: page.resourceVersion }],
      command: this.#watch(now),
    };
  }

  /** A LIST failed. */
  listFailed(error: unknown, now: number): Step<T> {
    const continuing = this.#continue !== undefined;
    this.#items = [];
    this.#continue = undefined;
    if (continuing && isGone(error)) {
      // A continuation expired: one unpaged list at the same resourceVersion (client-go's pager).
      const effects = [failure<T>("list", error, "relist", 0)];
      return { effects, command: this.#list(this.#listRv, undefined) };
    }
    if ((isGone(error) || isResourceVersionTooLarge(error)) && this.#listRv !== "") {
      this.#rvUnavailable = true;
      return {
        effects: [failure<T>("list", error, "relist", 0)],
        command: this.#list("", this.#config.pageSize),
      };
    }
    return this.#backOff("list", error, "relist", "sync", now);
  }

  /** A batch of watch events arrived (in order, as read). */
  watchEvents(events: readonly WatchEvent<T>[]): Effect<T>[] {
    if (events.length === 0) return [];
    if (this.#phase === "watching") {
      this.#watchEvents += events.length;
      this.#lastSyncRv = events[events.length - 1]!.object.metadata!.resourceVersion!;
      return [{ type: "events", events }];
    }
    if (this.#phase !== "watch-listing") return [];
    this.#watchEvents += events.length;
    for (let i = 0; i < events.length; i++) {
      const e = events[i]!;
      if (e.type !== "BOOKMARK") {
        this.#initial.apply(e);
        continue;
      }
      if (e.object.metadata.annotations?.[INITIAL_EVENTS_END_ANNOTATION] !== "true") continue;
      const rv = e.object.metadata.resourceVersion;
      const objects = this.#initial.take();
      this.#phase = "watching";
      this.#lastSyncRv = rv;
      this.#rvUnavailable = false;
      const effects: Effect<T>[] = [{ type: "replace", objects, resourceVersion: rv }];
      this.#watchEvents = 1;
      const rest = events.slice(i + 1);
      if (rest.length > 0) effects.push(...this.watchEvents(rest));
      return effects;
    }
    return [];
  }

  /**
   * The watch ended: `error` undefined for a clean close by the server. `opened` says whether
   * the server had accepted it (sent its response headers) before it ended.
   */
  watchEnded(error: unknown, opened: boolean, now: number): Step<T> {
    const duration = now - this.#watchStartedAt;
    if (this.#phase === "watch-listing") {
      this.#initial.take();
      if (!opened && error instanceof ApiError && (error.code === 400 || error.code === 422)) {
        // The server does not do streaming lists: page from now on.
        this.#watchListEnabled = false;
        return {
          effects: [failure<T>("watch-list", error, "fallback-to-list", 0)],
          command: this.#listNow(),
        };
      }
      if (isRetryableStart(error, opened))
        return this.#backOff("watch-list", error, "relist", "sync", now);
      if (isGone(error) || isResourceVersionTooLarge(error)) {
        this.#rvUnavailable = true;
        return this.#backOff("watch-list", error, "relist", "sync", now);
      }
      if (error === undefined && this.#watchEvents === 0) {
        // Closed cleanly without a single event: a server that does streaming lists always
        // sends at least the end bookmark, so this one does not really; page from now on.
        this.#watchListEnabled = false;
      }
      if (error instanceof InitialEventsTimeoutError && this.#watchEvents > 0) {
        // Events, then silence without the end bookmark: a server that took the request for a
        // plain watch (its current state as ADDED events) and will never end the initial
        // events; page from now on. (Silent from the start, it may just be slow: list once.)
        this.#watchListEnabled = false;
      }
      const why =
        error ??
        new DecodeError(
          "Truncated",
          "the streaming list ended before its initial-events-end bookmark",
        );
      return {
        effects: [failure<T>("watch-list", why, "fallback-to-list", 0)],
        command: this.#listNow(),
      };
    }
    const quiet = this.#watchEvents === 0 && duration < this.#config.shortWatchMs;
    if (error === undefined) {
      if (!quiet) return { effects: [], command: this.#watch(now) };
      return this.#backOff("watch", new ShortWatchError(duration), "relist", "sync", now);
    }
    if (error instanceof WatchIdleError) {
      return { effects: [failure<T>("watch", error, "rewatch", 0)], command: this.#watch(now) };
    }
    if (isGone(error) || isResourceVersionTooLarge(error)) {
      this.#rvUnavailable = true;
      return this.#backOff("watch", error, "relist", "sync", now);
    }
    if (isRetryableStart(error, opened))
      return this.#backOff("watch", error, "rewatch", "watch", now);
    if (
      opened &&
      (isTransportError(error) || (error instanceof DecodeError && error.reason === "Truncated"))
    ) {
      if (quiet) return this.#backOff("watch", error, "relist", "sync", now);
      return { effects: [failure<T>("watch", error, "rewatch", 0)], command: this.#watch(now) };
    }
    return this.#backOff("watch", error, "relist", "sync", now);
  }

  /** A wait asked for by a `wait` command is over. */
  waited(now: number): Command {
    return this.#afterWait === "watch" ? this.#watch(now) : this.#sync(now);
  }

  #backOff(
    phase: ReflectorPhase,
    error: unknown,
    recovery: ReflectorRecovery,
    after: AfterWait,
    now: number,
  ): Step<T> {
    const ms = this.#config.backoff.next(now);
    this.#phase = "waiting";
    this.#afterWait = after;
    return { effects: [failure<T>(phase, error, recovery, ms)], command: { type: "wait", ms } };
  }

  /** An initial sync or relist: streaming list if enabled, else a (paged) list. */
  #sync(now: number): Command {
    if (!this.#watchListEnabled) return this.#listNow();
    this.#phase = "watch-listing";
    this.#watchStartedAt = now;
    this.#watchEvents = 0;
    return {
      type: "watch",
      request: {
        resourceVersion: this.#rvUnavailable ? "" : (this.#lastSyncRv ?? ""),
        resourceVersionMatch: "NotOlderThan",
        sendInitialEvents: true,
        allowWatchBookmarks: true,
        timeoutSeconds: this.#timeoutSeconds(),
      },
    };
  }

  /** A list at the resourceVersion client-go would choose, paged as client-go would. */
  #listNow(): Command {
    const rv = this.#rvUnavailable ? "" : (this.#lastSyncRv ?? "0");
    const paged = rv === "" || rv === "0" || this.#paginated || this.#config.pageSizeExplicit;
    return this.#list(rv, paged ? this.#config.pageSize : undefined);
  }

  #list(rv: string, limit: number | undefined): Command {
    this.#phase = "listing";
    this.#listRv = rv;
    this.#listLimit = limit;
    this.#items = [];
    this.#continue = undefined;
    return {
      type: "list",
      request: { resourceVersion: rv, ...(limit === undefined ? {} : { limit }) },
    };
  }

  #watch(now: number): Command {
    this.#phase = "watching";
    this.#watchStartedAt = now;
    this.#watchEvents = 0;
    return {
      type: "watch",
      request: {
        resourceVersion: this.#lastSyncRv ?? "",
        allowWatchBookmarks: true,
        timeoutSeconds: this.#timeoutSeconds(),
      },
    };
  }

  #timeoutSeconds(): number {
    const min = this.#config.minWatchTimeoutSeconds;
    return Math.floor(min * (1 + this.#config.random()));
  }
}

function failure<T extends KubeObject>(
  phase: ReflectorPhase,
  error: unknown,
  recovery: ReflectorRecovery,
  delayMs: number,
): Effect<T> {
  return { type: "failure", phase, error, recovery, delayMs };
}

/** The server was not reached, or said "too many requests": try the same thing again later. */
function isRetryableStart(error: unknown, opened: boolean): boolean {
  return isTooManyRequests(error) || (!opened && isConnectionRefused(error));
}

/**
 * The objects of a streaming list before its end bookmark. Only ADDED events are expected;
 * a MODIFIED or DELETED (which a server may send) switches to a map by key.
 */
class InitialItems<T extends KubeObject> {
  #list: T[] = [];
  #byKey: Map<string, T> | undefined;

  apply(e: WatchEvent<T>): void {
    if (e.type === "BOOKMARK") return;
    if (e.type === "ADDED" && this.#byKey === undefined) {
      this.#list.push(e.object);
      return;
    }
    if (this.#byKey === undefined) {
      this.#byKey = new Map();
      for (const o of this.#list) this.#byKey.set(objectKey(o), o);
      this.#list = [];
    }
    if (e.type === "DELETED") this.#byKey.delete(objectKey(e.object));
    else this.#byKey.set(objectKey(e.object), e.object);
  }

  /** Returns the objects and empties the accumulator. */
  take(): T[] {
    const out = this.#byKey === undefined ? this.#list : [...this.#byKey.values()];
    this.#list = [];
    this.#byKey = undefined;
    return out;
  }
}
