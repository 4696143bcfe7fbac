import { type Clock, checkNumber, InvalidOptionError, realClock, sleep } from "../core/index.ts";
import { decide, type Observation, sameRecord } from "./decide.ts";
import type { LeaderLock, LeaderRecord } from "./leader-record.ts";

/** Options for {@link LeaderElector}. Defaults are client-go's and controller-runtime's. */
export interface LeaderElectorOptions {
  /** Where leadership is recorded (a Lease: `new LeaseLock({ leases, name })`). */
  lock: LeaderLock;
  /** This candidate's identity, unique among candidates (hostname plus a random suffix). */
  identity: string;
  /**
   * How long a lease lasts: others take over once they have seen the same record for this long.
   * @default 15000
   */
  leaseDurationMs?: number;
  /**
   * The leader gives up leadership when it has not renewed for this long.
   * Must be less than `leaseDurationMs` minus `retryPeriodMs`.
   * @default 10000
   */
  renewDeadlineMs?: number;
  /**
   * How often to try to acquire (with up to 120 % jitter) and to renew.
   * @default 2000
   */
  retryPeriodMs?: number;
  /**
   * Hand the lease back when the run is cancelled, so another candidate takes over at once.
   * @default true
   */
  releaseOnCancel?: boolean;
  /** @default realClock */
  clock?: Clock;
  /** Random source for the acquire jitter, in [0, 1). @default Math.random */
  random?: () => number;
  /** Called once leadership is acquired; `signal` aborts when it is lost or the run ends. */
  onStartedLeading(signal: AbortSignal): void | Promise<void>;
  /** Called once leadership ends (lost, released or cancelled), if it had started. */
  onStoppedLeading?(): void;
  /** Called whenever the observed leader changes, with its identity (`""` when released). */
  onNewLeader?(identity: string): void;
  /** Called with every failed lock operation and every error thrown by a callback. */
  onError?(err: unknown): void;
}

const JITTER = 1.2;

/**
 * Lease-based leader election (client-go's `LeaderElector`). `run(signal)` tries to acquire the
 * lock every `retryPeriodMs` (jittered) until it succeeds, then renews it every `retryPeriodMs`
 * and returns once leadership is lost, or once `signal` aborts (releasing the lease by default).
 *
 * Guarantee: two electors whose clocks run at the same rate never both believe they lead, as
 * long as their processes are not stalled: a leader stops believing `renewDeadlineMs` after its
 * last successful renewal, and others take over only after observing that renewal unchanged
 * for `leaseDurationMs`, which is longer by at least `retryPeriodMs`. Not guaranteed: fencing of
 * a leader whose process stalled (see `decide`).
 */
export class LeaderElector {
  readonly #o: Required<
    Omit<LeaderElectorOptions, "onNewLeader" | "onStoppedLeading" | "onError">
  > &
    Pick<LeaderElectorOptions, "onNewLeader" | "onStoppedLeading" | "onError">;
  #observed: Observation | undefined;
  #leading = false;
  #running = false;

  constructor(options: LeaderElectorOptions) {
    const owner = "LeaderElector";
    if (options.lock === undefined)
      throw new InvalidOptionError(owner, "lock", undefined, "is required");
    if (typeof options.identity !== "string" || options.identity === "") {
      throw new InvalidOptionError(
        owner,
        "identity",
        options.identity,
        "must be a non-empty string",
      );
    }
    if (typeof options.onStartedLeading !== "function") {
      throw new InvalidOptionError(
        owner,
        "onStartedLeading",
        options.onStartedLeading,
        "must be a function",
      );
    }
    const retryPeriodMs = checkNumber(owner, "retryPeriodMs", options.retryPeriodMs ?? 2000, {
      above: 0,
    });
    const renewDeadlineMs = checkNumber(
      owner,
      "renewDeadlineMs",
      options.renewDeadlineMs ?? 10_000,
      {
        above: retryPeriodMs * JITTER,
      },
    );
    const leaseDurationMs = checkNumber(
      owner,
      "leaseDurationMs",
      options.leaseDurationMs ?? 15_000,
      {
        above: renewDeadlineMs + retryPeriodMs,
      },
    );
    if (leaseDurationMs % 1000 !== 0) {
      throw new InvalidOptionError(
        owner,
        "leaseDurationMs",
        leaseDurationMs,
        "must be whole seconds (a Lease stores seconds)",
      );
    }
    this.#o = {
      ...options,
      retryPeriodMs,
      renewDeadlineMs,
      leaseDurationMs,
      releaseOnCancel: options.releaseOnCancel ?? true,
      clock: options.clock ?? realClock,
      random: options.random ?? Math.random,
    };
  }

  /** True while this elector holds the lease (and believes it). */
  get isLeader(): boolean {
    return this.#leading;
  }

  /** The identity last seen holding the lock, if any. */
  get leader(): string | undefined {
    return this.#observed?.record.holderIdentity;
  }

  /**
   * Acquires, leads, and returns when leadership is lost or `signal` aborts. A run can be
   * started once at a time; starting a second concurrent run throws.
   */
  async run(signal: AbortSignal): Promise<void> {
    if (this.#running) throw new Error(`LeaderElector(${this.#o.identity}): already running`);
    this.#running = true;
    try {
      if (!(await this.#acquire(signal))) return;
      await this.#lead(signal);
    } finally {
      this.#running = false;
    }
  }

  async #acquire(signal: AbortSignal): Promise<boolean> {
    const { clock, retryPeriodMs, random } = this.#o;
    while (!signal.aborted) {
      if (await this.#tryAcquireOrRenew(signal)) return true;
      try {
        await sleep(retryPeriodMs * (1 + random() * JITTER), { clock, signal });
      } catch {
        return false;
      }
    }
    return false;
  }

  async #lead(signal: AbortSignal): Promise<void> {
    const { clock, retryPeriodMs, renewDeadlineMs } = this.#o;
    const leadership = new AbortController();
    const stop = () => leadership.abort(new Error("leadership ended"));
    signal.addEventListener("abort", stop, { once: true });
    this.#leading = true;
    let lastRenewMs = clock.now();
    const started = this.#callback(() => this.#o.onStartedLeading(leadership.signal));
    try {
      while (!signal.aborted) {
        try {
          await sleep(retryPeriodMs, { clock, signal });
        } catch {
          break;
        }
        if (await this.#tryAcquireOrRenew(signal)) {
          lastRenewMs = clock.now();
        } else if (
          clock.now() - lastRenewMs >= renewDeadlineMs ||
          (this.#observed && this.#observed.record.holderIdentity !== this.#o.identity)
        ) {
          break; // lost: the deadline passed, or someone else holds the lock
        }
      }
    } finally {
      this.#leading = false;
      signal.removeEventListener("abort", stop);
      stop();
      // Let the leader's work wind down before handing the lease over, so that the next leader
      // does not start while this one still acts.
      await started;
      if (signal.aborted && this.#o.releaseOnCancel) await this.#release();
      this.#callback(() => this.#o.onStoppedLeading?.());
    }
  }

  /** One acquire-or-renew step against the lock. Never throws; reports errors. */
  async #tryAcquireOrRenew(signal: AbortSignal): Promise<boolean> {
    const { lock, identity, clock, leaseDurationMs } = this.#o;
    try {
      const current = await lock.get(signal);
      const now = clock.now();
      if (current !== undefined) this.#observe(current.record, now);
      const d = decide(identity, current?.record, this.#observed, now, leaseDurationMs / 1000);
      if (d.action === "wait") return false;
      if (d.action === "create") await lock.create(d.record, signal);
      else await lock.update(d.record, current!.version, signal);
      this.#observe(d.record, clock.now());
      return true;
    } catch (err) {
      if (!signal.aborted) this.#o.onError?.(err);
      return false;
    }
  }

  #observe(record: LeaderRecord, nowMs: number): void {
    const previous = this.#observed?.record.holderIdentity;
    if (this.#observed === undefined || !sameRecord(this.#observed.record, record)) {
      this.#observed = { record, observedAtMs: nowMs };
    }
    if (previous !== record.holderIdentity)
      this.#callback(() => this.#o.onNewLeader?.(record.holderIdentity));
  }

  /**
   * Hands the lease back: no holder, a 1 s duration, so the next candidate acquires at once. The
   * lock is read first, as client-go does: a renewal whose answer was lost (cut by the stop, or
   * by the network) moved its version past the one this elector knows.
   */
  async #release(): Promise<void> {
    const { lock, identity, clock } = this.#o;
    if (this.#observed?.record.holderIdentity !== identity) return;
    try {
      const current = await lock.get();
      if (current === undefined || current.record.holderIdentity !== identity) return;
      const now = clock.now();
      const record: LeaderRecord = {
        holderIdentity: "",
        leaseDurationSeconds: 1,
        acquireTimeMs: now,
        renewTimeMs: now,
        leaderTransitions: current.record.leaderTransitions,
      };
      await lock.update(record, current.version);
      this.#observe(record, now);
    } catch (err) {
      this.#o.onError?.(err);
    }
  }

  /** Runs a user callback; a throw or rejection is reported, never propagated. */
  #callback(fn: () => void | Promise<void>): Promise<void> {
    try {
      return Promise.resolve(fn()).catch((err: unknown) => this.#o.onError?.(err));
    } catch (err) {
      this.#o.onError?.(err);
      return Promise.resolve();
    }
  }
}
