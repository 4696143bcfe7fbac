/**
 * The mini scheduler (the seed's "Mini Scheduler business logic"): informers over nodes and
 * pods, a scheduling queue of pending pods on kontroller's PriorityQueue, a cache of node usage
 * with assumed pods, and one scheduling loop. Each turn of the loop takes the next pod, filters
 * and scores the nodes (pure, from the cache), assumes the pod on the best node and sends the
 * binding without waiting for it, so that decisions never wait on the network while bindings
 * run in parallel.
 */
import { type HandlerRegistration, InformerFactory, type SharedInformer } from "kontroller/cache";
import { EventRecorder } from "kontroller/controller";
import { errorMessage, isConflict, isNotFound, toTime } from "kontroller/core";
import { eventsV1, type Node, nodes, type Pod, pods } from "kontroller/resources";
import { type Binder, bindingSubresource } from "./binder.ts";
import { failureMessage } from "./filters.ts";
import { isPendingOurs, nodeHandler, podHandler } from "./informer-handlers.ts";
import { cachedPodDemand, type PodDemand } from "./resources.ts";
import { NODE_NAME_INDEX, nodeNameIndexFunc, podKey, SchedulerCache } from "./scheduler-cache.ts";
import {
  type ResolvedOptions,
  resolveOptions,
  type SchedulerOptions,
} from "./scheduler-options.ts";
import { type QueuedPod, SchedulingQueue } from "./scheduling-queue.ts";
import { selectHost } from "./scoring.ts";

export type { SchedulerOptions } from "./scheduler-options.ts";

/** Counters of what the scheduler did. */
export interface SchedulerStats {
  /** Pods bound to a node. */
  bound: number;
  /** Attempts that found no node. */
  unschedulable: number;
  /** Bindings the server refused or that failed. */
  bindFailures: number;
}

/**
 * Schedules pending pods onto nodes. Inert until {@link start}; one run per instance.
 *
 * @example
 * ```ts
 * const scheduler = new Scheduler({ client, schedulerName: "default-scheduler" });
 * await scheduler.start(signal); // resolves once signal aborts and everything has stopped
 * ```
 */
export class Scheduler {
  readonly name: string;
  readonly stats: SchedulerStats = { bound: 0, unschedulable: 0, bindFailures: 0 };
  readonly #o: ResolvedOptions;
  readonly #factory: InformerFactory;
  readonly #podInformer: SharedInformer<Pod>;
  readonly #nodeInformer: SharedInformer<Node>;
  readonly #recorder: EventRecorder;
  readonly #binder: Binder;
  readonly #queue: SchedulingQueue;
  readonly #cache: SchedulerCache;
  /** Bindings in flight, so that stopping waits for them. */
  readonly #binds = new Set<Promise<void>>();
  /** Condition writes in flight (best effort; stopping waits for them too). */
  readonly #writes = new Set<Promise<void>>();
  /** Pods handed out by the queue and not yet ended (deciding, or binding). */
  #busy = 0;
  #synced = false;
  #state: "new" | "running" | "stopped" = "new";
  #idleWaiters: (() => void)[] = [];
  #slotWaiter: (() => void) | undefined;

  /** Checks the options and wires informers, queue and cache; starts nothing. */
  constructor(options: SchedulerOptions) {
    this.#o = resolveOptions(options);
    this.name = this.#o.schedulerName;
    const client = this.#o.client;
    this.#factory = this.#o.factory ?? new InformerFactory({ client, logger: this.#o.logger });
    this.#podInformer = this.#factory.informer(pods, {
      indexers: { [NODE_NAME_INDEX]: nodeNameIndexFunc },
    });
    this.#nodeInformer = this.#factory.informer(nodes);
    this.#recorder =
      this.#o.recorder ??
      new EventRecorder({
        events: client.resource(eventsV1),
        reportingController: this.name,
        reportingInstance: `${this.name}-${process.pid}`,
        clock: this.#o.clock,
        onError: (err) => this.#o.logger.warn({ err }, "could not record an event"),
      });
    this.#binder = this.#o.binder ?? bindingSubresource(client);
    this.#queue = new SchedulingQueue({
      clock: this.#o.clock,
      initialBackoffMs: this.#o.initialBackoffMs,
      maxBackoffMs: this.#o.maxBackoffMs,
    });
    this.#cache = new SchedulerCache(this.#podInformer.store, this.#nodeInformer.store);
  }

  /**
   * Runs until `signal` aborts: syncs the informers, then schedules. On abort it takes no new
   * pod, waits for the bindings in flight (so a scheduler started next sees them), flushes its
   * events and stops its informers. Resolves once all that is done.
   */
  async start(signal: AbortSignal): Promise<void> {
    if (this.#state !== "new") throw new Error(`Scheduler ${this.name}: start can be called once`);
    this.#state = "running";
    const deps = {
      cache: this.#cache,
      queue: this.#queue,
      schedulerName: this.name,
      changed: () => this.#checkIdle(),
    };
    const registrations: HandlerRegistration[] = [
      this.#nodeInformer.addEventHandler(nodeHandler(deps)),
      this.#podInformer.addEventHandler(podHandler(deps)),
    ];
    const stop = () => this.#queue.shutDown();
    signal.addEventListener("abort", stop, { once: true });
    try {
      if (this.#o.factory === undefined) this.#factory.start(signal);
      await Promise.all(registrations.map((r) => r.waitForSync(signal)));
      this.#synced = true;
      this.#o.logger.info({ scheduler: this.name }, "caches synced; scheduling");
      this.#checkIdle();
      await this.#loop(signal);
    } catch (err) {
      if (!signal.aborted) throw err;
    } finally {
      signal.removeEventListener("abort", stop);
      this.#queue.shutDown();
      await Promise.all([...this.#binds, ...this.#writes]);
      // A recorder of our own is closed; one we were given (a Manager's) is only flushed.
      if (this.#o.recorder === undefined) await this.#recorder.close();
      else await this.#recorder.flush();
      if (this.#o.factory === undefined) await this.#factory.shutdown();
      this.#state = "stopped";
      this.#wakeIdle();
    }
  }

  /**
   * Resolves the next time the scheduler is idle: synced, no pod ready or being scheduled, no
   * binding in flight and every binding seen by the informer. Pods that fit nowhere may be
   * waiting for their backoff. Rejects with `signal.reason` on abort.
   */
  whenIdle(signal?: AbortSignal): Promise<void> {
    if (this.#isIdle()) return Promise.resolve();
    if (signal?.aborted) return Promise.reject(signal.reason);
    return new Promise((resolve, reject) => {
      const onAbort = () => {
        this.#idleWaiters = this.#idleWaiters.filter((w) => w !== done);
        reject(signal!.reason);
      };
      const done = () => {
        signal?.removeEventListener("abort", onAbort);
        resolve();
      };
      this.#idleWaiters.push(done);
      signal?.addEventListener("abort", onAbort, { once: true });
    });
  }

  /** Pods waiting for their backoff after they fit nowhere. */
  get unschedulableCount(): number {
    return this.#queue.unschedulableCount;
  }

  async #loop(signal: AbortSignal): Promise<void> {
    for (;;) {
      while (this.#binds.size >= this.#o.maxInFlightBinds) {
        await new Promise<void>((resolve) => {
          this.#slotWaiter = resolve;
        });
      }
      const next = await this.#queue.pop(signal);
      if (next === undefined) return;
      this.#busy++;
      this.#scheduleOne(next);
    }
  }

  /** One attempt: decide from the cache, then assume and bind (or report why not). */
  #scheduleOne(item: QueuedPod): void {
    const pod = this.#podInformer.store.get(item.key);
    if (pod === undefined || !isPendingOurs(pod, this.name) || this.#cache.isAssumed(item.key)) {
      // Gone, bound, not ours, or its binding is still in flight: nothing to do.
      this.#end(item, "done");
      return;
    }
    let demand: PodDemand;
    try {
      demand = cachedPodDemand(pod);
    } catch (err) {
      this.#failed(pod, errorMessage(err));
      this.#end(item, "unschedulable");
      return;
    }
    const placement = selectHost(pod, demand, this.#cache.nodeInfos());
    if (!placement.fits) {
      this.#failed(pod, failureMessage(this.#nodeInformer.store.size, placement.reasons));
      this.#end(item, "unschedulable");
      return;
    }
    const node = placement.node.name;
    this.#cache.assume(pod, node, demand);
    const binding = this.#bind(item, pod, node).finally(() => {
      this.#binds.delete(binding);
      const wake = this.#slotWaiter;
      this.#slotWaiter = undefined;
      wake?.();
      this.#checkIdle();
    });
    this.#binds.add(binding);
  }

  /** Binds; not aborted by stopping, so that a scheduler started next sees the binding. */
  async #bind(item: QueuedPod, pod: Pod, node: string): Promise<void> {
    try {
      await this.#binder.bind(pod, node);
      this.stats.bound++;
      this.#recorder.record(pod, {
        type: "Normal",
        reason: "Scheduled",
        action: "Binding",
        note: `Successfully assigned ${podKey(pod)} to ${node}`,
      });
      this.#end(item, "done");
    } catch (err) {
      this.stats.bindFailures++;
      this.#cache.forget(item.key);
      // The capacity it held is free again: others may fit now.
      this.#queue.moveAllToActive();
      if (isConflict(err) || isNotFound(err)) {
        // Bound already (by another scheduler, or before a restart), replaced or deleted: the
        // informer will say which; nothing to retry.
        this.#o.logger.info({ pod: item.key, node, err }, "binding refused; dropping the pod");
        this.#end(item, "done");
        return;
      }
      this.#o.logger.warn({ pod: item.key, node, err }, "binding failed; retrying");
      this.#recorder.record(pod, {
        type: "Warning",
        reason: "FailedScheduling",
        action: "Scheduling",
        note: `Binding rejected: ${errorMessage(err)}`,
      });
      this.#end(item, "retry");
    }
  }

  /** Records why a pod fits nowhere (an event, and the PodScheduled condition). */
  #failed(pod: Pod, message: string): void {
    this.stats.unschedulable++;
    this.#recorder.record(pod, {
      type: "Warning",
      reason: "FailedScheduling",
      action: "Scheduling",
      note: message,
    });
    if (!this.#o.updatePodConditions) return;
    const current = pod.status?.conditions?.find((c) => c.type === "PodScheduled");
    if (current?.status === "False" && current.message === message) return;
    const write = this.#o.client
      .resource(pods, { namespace: pod.metadata?.namespace ?? "default" })
      .patch(
        pod.metadata?.name ?? "",
        "strategic",
        {
          status: {
            conditions: [
              {
                type: "PodScheduled",
                status: "False",
                reason: "Unschedulable",
                message,
                lastProbeTime: null,
                lastTransitionTime: toTime(this.#o.clock.now()),
              },
            ],
          },
        },
        { subresource: "status" },
      )
      .then(
        () => {},
        (err: unknown) =>
          this.#o.logger.warn(
            { pod: podKey(pod), err },
            "could not update the PodScheduled condition",
          ),
      )
      .finally(() => {
        this.#writes.delete(write);
        this.#checkIdle();
      });
    this.#writes.add(write);
  }

  #end(item: QueuedPod, how: "done" | "unschedulable" | "retry"): void {
    if (how === "done") this.#queue.done(item.key);
    else if (how === "unschedulable") this.#queue.unschedulable(item);
    else this.#queue.retry(item);
    this.#busy--;
    this.#checkIdle();
  }

  #isIdle(): boolean {
    return (
      this.#state === "stopped" ||
      (this.#synced &&
        this.#busy === 0 &&
        this.#binds.size === 0 &&
        this.#writes.size === 0 &&
        this.#queue.readyCount === 0 &&
        this.#cache.assumedCount === 0)
    );
  }

  #checkIdle(): void {
    if (this.#idleWaiters.length > 0 && this.#isIdle()) this.#wakeIdle();
  }

  #wakeIdle(): void {
    const waiters = this.#idleWaiters;
    this.#idleWaiters = [];
    for (const w of waiters) w();
  }
}
