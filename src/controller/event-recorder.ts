import type { ResourceClient } from "../client/index.ts";
import {
  type CancelTimer,
  type Clock,
  checkNumber,
  type KubeObject,
  realClock,
  toMicroTime,
} from "../core/index.ts";
import type { EventsV1Event } from "../resources/index.ts";

/** One event about an object. */
export interface EventInit {
  /** `Normal` for what went as planned, `Warning` for what needs a look. */
  type: "Normal" | "Warning";
  /** A short CamelCase machine-readable reason: `Created`, `FailedProbe`. */
  reason: string;
  /** What was done or failed: `Reconcile`, `Probe`. */
  action: string;
  /** A human-readable note, at most 1 kB (longer notes are cut). */
  note?: string;
  /** A second object the event is about. */
  related?: KubeObject;
}

/** Options for {@link EventRecorder}. */
export interface EventRecorderOptions {
  /** An events.k8s.io/v1 Event client: `client.resource(eventsV1)`. */
  events: ResourceClient<EventsV1Event>;
  /** Who reports: `example.com/user-controller`. */
  reportingController: string;
  /** Which instance reports: `user-controller-<hostname>`. */
  reportingInstance: string;
  /**
   * Repeats of the same event within this window are folded into one Event with a `series`
   * count, instead of one Event each.
   * @default 360000 (6 min, as client-go)
   */
  seriesWindowMs?: number;
  /**
   * A series' count is written at most this often; repeats in between are counted and written
   * with the next update, or at `flush()`/`close()`.
   * @default 30000
   */
  seriesUpdateMs?: number;
  /** @default realClock */
  clock?: Clock;
  /** Called when writing an event fails; events are best effort and never fail a reconcile. */
  onError?(err: unknown): void;
}

interface Series {
  /** The stored Event, once created. */
  stored?: EventsV1Event;
  count: number;
  /** Count already written. */
  written: number;
  lastObservedMs: number;
  /** A pending series update. */
  timer?: CancelTimer;
}

const MAX_NOTE = 1024;

/**
 * Writes events.k8s.io/v1 Events about objects, folding repeats: the first occurrence creates
 * an Event; repeats within `seriesWindowMs` update that Event's `series` (count and last
 * observed time), at most once per `seriesUpdateMs`. Recording never throws and never waits:
 * writes run in the background; `flush()` waits for them.
 */
export class EventRecorder {
  readonly #o: Required<Omit<EventRecorderOptions, "onError">> &
    Pick<EventRecorderOptions, "onError">;
  readonly #series = new Map<string, Series>();
  readonly #pending = new Set<Promise<void>>();
  #closed = false;
  /** Forget series that ended once the map grows past this size (so it never grows without bound). */
  #sweepAt = 1024;

  constructor(options: EventRecorderOptions) {
    this.#o = {
      ...options,
      seriesWindowMs: checkNumber(
        "EventRecorder",
        "seriesWindowMs",
        options.seriesWindowMs ?? 360_000,
        { above: 0 },
      ),
      seriesUpdateMs: checkNumber(
        "EventRecorder",
        "seriesUpdateMs",
        options.seriesUpdateMs ?? 30_000,
        { min: 0 },
      ),
      clock: options.clock ?? realClock,
    };
  }

  /** Records an event about `regarding`. */
  record(regarding: KubeObject, event: EventInit): void {
    if (this.#closed) return;
    const now = this.#o.clock.now();
    const key = seriesKey(regarding, event);
    const s = this.#series.get(key);
    if (s !== undefined && now - s.lastObservedMs <= this.#o.seriesWindowMs) {
      s.count++;
      s.lastObservedMs = now;
      if (s.stored !== undefined && s.timer === undefined) {
        s.timer = this.#o.clock.setTimer(this.#o.seriesUpdateMs, () => {
          s.timer = undefined;
          this.#track(this.#writeSeries(s));
        });
      }
      return;
    }
    s?.timer?.();
    const fresh: Series = { count: 1, written: 1, lastObservedMs: now };
    this.#series.set(key, fresh);
    if (this.#series.size > this.#sweepAt) this.#sweep(now);
    this.#track(this.#create(fresh, regarding, event, now));
  }

  /** Writes pending series counts and waits for every write in flight. */
  async flush(): Promise<void> {
    // A create that completes may schedule a series update: repeat until nothing is left.
    for (;;) {
      for (const s of this.#series.values()) {
        if (s.timer !== undefined) {
          s.timer();
          s.timer = undefined;
          this.#track(this.#writeSeries(s));
        }
      }
      if (this.#pending.size === 0) return;
      await Promise.all([...this.#pending]);
    }
  }

  /** Flushes, then records nothing more. Idempotent. */
  async close(): Promise<void> {
    await this.flush();
    this.#closed = true;
  }

  /** Drops series silent for longer than the window (their last count is already written). */
  #sweep(now: number): void {
    for (const [key, s] of this.#series) {
      if (now - s.lastObservedMs > this.#o.seriesWindowMs && s.timer === undefined)
        this.#series.delete(key);
    }
    this.#sweepAt = Math.max(1024, this.#series.size * 2);
  }

  #track(p: Promise<void>): void {
    const tracked = p
      .catch((err: unknown) => this.#o.onError?.(err))
      .finally(() => this.#pending.delete(tracked));
    this.#pending.add(tracked);
  }

  async #create(s: Series, regarding: KubeObject, e: EventInit, now: number): Promise<void> {
    const namespace = regarding.metadata?.namespace || "default";
    const name = `${regarding.metadata?.name ?? "object"}.${now.toString(16)}${Math.floor(Math.random() * 0xffff).toString(16)}`;
    s.stored = await this.#o.events.inNamespace(namespace).create({
      apiVersion: "events.k8s.io/v1",
      kind: "Event",
      metadata: { name, namespace },
      eventTime: toMicroTime(now),
      reportingController: this.#o.reportingController,
      reportingInstance: this.#o.reportingInstance,
      action: e.action,
      reason: e.reason,
      type: e.type,
      ...(e.note === undefined ? {} : { note: e.note.slice(0, MAX_NOTE) }),
      regarding: reference(regarding),
      ...(e.related === undefined ? {} : { related: reference(e.related) }),
    });
    // Repeats that arrived while the create was in flight go out as a series update.
    if (s.count > s.written && s.timer === undefined) {
      s.timer = this.#o.clock.setTimer(this.#o.seriesUpdateMs, () => {
        s.timer = undefined;
        this.#track(this.#writeSeries(s));
      });
    }
  }

  async #writeSeries(s: Series): Promise<void> {
    const stored = s.stored;
    if (stored === undefined || s.count === s.written) return;
    const count = s.count;
    const namespace = stored.metadata?.namespace ?? "default";
    s.stored = await this.#o.events
      .inNamespace(namespace)
      .patch(stored.metadata?.name ?? "", "merge", {
        series: { count, lastObservedTime: toMicroTime(s.lastObservedMs) },
      });
    s.written = count;
  }
}

function reference(o: KubeObject): NonNullable<EventsV1Event["regarding"]> {
  return {
    apiVersion: o.apiVersion,
    kind: o.kind,
    name: o.metadata?.name,
    ...(o.metadata?.namespace ? { namespace: o.metadata.namespace } : {}),
    ...(o.metadata?.uid ? { uid: o.metadata.uid } : {}),
    ...(o.metadata?.resourceVersion ? { resourceVersion: o.metadata.resourceVersion } : {}),
  };
}

function seriesKey(o: KubeObject, e: EventInit): string {
  const r = (x: KubeObject | undefined) =>
    x === undefined
      ? ""
      : `${x.apiVersion}/${x.kind}/${x.metadata?.namespace ?? ""}/${x.metadata?.name}/${x.metadata?.uid ?? ""}`;
  return [r(o), r(e.related), e.type, e.reason, e.action, e.note ?? ""].join("\u0000");
}
