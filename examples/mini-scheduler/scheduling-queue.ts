/**
 * The scheduling queue (kube-scheduler's active queue, backoff and unschedulable pods) on
 * kontroller's `PriorityQueue`: pending pods by `spec.priority`, then arrival; a pod that fits
 * nowhere waits with exponential backoff, and returns to the active queue at once when the
 * cluster changes in a way that may make room (a node added or changed, a pod deleted).
 */
import type { Clock } from "kontroller/core";
import { ItemExponentialFailureRateLimiter, PriorityQueue } from "kontroller/workqueue";

/** Options of {@link SchedulingQueue}. */
export interface SchedulingQueueOptions {
  /** Backoff of a pod's first failed attempt; it doubles with each failure. @default 1000 */
  initialBackoffMs?: number;
  /** The backoff never exceeds this. @default 10000 */
  maxBackoffMs?: number;
  /** Times the backoff. @default the queue's precise clock */
  clock?: Clock;
}

/** A pod to schedule, as {@link SchedulingQueue.pop} hands it out. */
export interface QueuedPod {
  readonly key: string;
  readonly priority: number;
  /** The move cycle when it was handed out (see {@link SchedulingQueue.unschedulable}). */
  readonly cycle: number;
}

/**
 * Pending pods by key. Each key is handed to one attempt at a time (the work queue's rule);
 * the caller ends every attempt with exactly one of {@link done}, {@link unschedulable} or
 * {@link retry}.
 *
 * Invariants: `#unschedulable` holds the keys that failed to fit and wait for their backoff,
 * with their priority; `#cycle` counts moves: a pod whose attempt began before the latest move
 * may have been judged on a cluster that has since changed, so it is not left waiting.
 */
export class SchedulingQueue {
  readonly #queue: PriorityQueue<string>;
  readonly #unschedulable = new Map<string, number>();
  #cycle = 0;

  /** Starts nothing. */
  constructor(options: SchedulingQueueOptions = {}) {
    this.#queue = new PriorityQueue<string>({
      ...(options.clock === undefined ? {} : { clock: options.clock }),
      rateLimiter: new ItemExponentialFailureRateLimiter<string>({
        baseDelayMs: options.initialBackoffMs ?? 1000,
        maxDelayMs: options.maxBackoffMs ?? 10_000,
      }),
    });
  }

  /** Pods ready to be handed out now. */
  get readyCount(): number {
    return this.#queue.size;
  }

  /** Pods waiting for their backoff after they fit nowhere. */
  get unschedulableCount(): number {
    return this.#unschedulable.size;
  }

  /** Moves so far (each may have made room). */
  get cycle(): number {
    return this.#cycle;
  }

  /** True after {@link shutDown}. */
  get shuttingDown(): boolean {
    return this.#queue.shuttingDown;
  }

  /** Queues a pending pod now; a pod already queued keeps the higher priority. */
  add(key: string, priority: number): void {
    this.#unschedulable.delete(key);
    this.#queue.add(key, { priority });
  }

  /** The next pod (highest priority, then first queued); undefined after shutdown. */
  async pop(signal?: AbortSignal): Promise<QueuedPod | undefined> {
    const next = await this.#queue.getWithPriority(signal === undefined ? {} : { signal });
    if (next === undefined) return undefined;
    return { key: next.item, priority: next.priority, cycle: this.#cycle };
  }

  /** The attempt is over and the pod needs nothing more (bound, gone, not ours). */
  done(key: string): void {
    this.#unschedulable.delete(key);
    this.#queue.forget(key);
    this.#queue.done(key);
  }

  /**
   * The attempt found no node: the pod waits with backoff, or returns at once if a move
   * happened while it was being scheduled.
   */
  unschedulable(pod: QueuedPod): void {
    this.#queue.done(pod.key);
    if (pod.cycle !== this.#cycle) {
      this.#queue.add(pod.key, { priority: pod.priority });
      return;
    }
    this.#unschedulable.set(pod.key, pod.priority);
    this.#queue.add(pod.key, { priority: pod.priority, rateLimited: true });
  }

  /** The attempt failed for another reason (its binding): the pod comes back with backoff. */
  retry(pod: QueuedPod): void {
    this.#queue.done(pod.key);
    this.#queue.add(pod.key, { priority: pod.priority, rateLimited: true });
  }

  /** How many times the pod failed since it last succeeded. */
  failures(key: string): number {
    return this.#queue.numRequeues(key);
  }

  /**
   * Something changed that may make room: every unschedulable pod is queued now, at its
   * priority, without waiting for the rest of its backoff.
   */
  moveAllToActive(): void {
    this.#cycle++;
    for (const [key, priority] of this.#unschedulable) this.#queue.add(key, { priority });
    this.#unschedulable.clear();
  }

  /** The pod left (deleted, bound by someone else): it is no longer held as unschedulable. */
  remove(key: string): void {
    this.#unschedulable.delete(key);
    this.#queue.forget(key);
  }

  /** Hands out nothing more; `pop` resolves undefined. Idempotent. */
  shutDown(): void {
    this.#queue.shutDown();
  }
}
