import { InvalidOptionError, type KubeObject } from "../core/index.ts";
import type { ResourceDefinition } from "../resources/index.ts";
import type { RateLimiter } from "../workqueue/index.ts";
import type { QueueKind } from "./controller-queue.ts";
import type { Predicate } from "./predicates.ts";
import type { Reconciler, Request } from "./reconciler.ts";

/** A resource to watch, with predicates that filter its events. */
export interface Source<T extends KubeObject = KubeObject> {
  resource: ResourceDefinition<T>;
  predicates?: readonly Predicate<NoInfer<T>>[];
}

/** A watch whose events map to the keys of other objects (controller-runtime's `Watches`). */
export interface MappedWatch<T extends KubeObject = KubeObject> extends Source<T> {
  /** The objects to reconcile when `obj` changes; may return one, several or none. */
  map(obj: T): Request | readonly Request[] | undefined;
}

/** What caused an event, for {@link ControllerOptions.priority}. */
export interface PriorityEvent {
  event: "add" | "initial" | "update" | "resync" | "delete";
  source: "self" | "owned" | "watch";
  object: KubeObject;
}

/** What {@link controller} takes. */
export interface ControllerOptions<T extends KubeObject> {
  /** Unique per manager; names the queue, the metrics and the log lines. */
  name: string;
  /**
   * The kind this controller reconciles: its events enqueue the object's own key. Without it,
   * keys come only from `watches` and `Controller.enqueue` (a controller of something that is
   * not one Kubernetes kind); `owns` then has no owner kind and is refused.
   */
  for?: ResourceDefinition<T> | Source<T>;
  /** Kinds this controller creates: their events enqueue the key of their controller owner of kind `for`. */
  owns?: readonly (ResourceDefinition | Source)[];
  /** Other kinds whose events map to keys. */
  watches?: readonly MappedWatch[];
  /** Filters applied to the events of every source. */
  predicates?: readonly Predicate[];
  /** Workers reconciling different keys at once. @default 1 */
  concurrency?: number;
  /** The queue's order. @default "priority" */
  queue?: QueueKind;
  /**
   * The priority of an event's key (priority queue; two-lane: ≥ 0 is fast). Return `undefined`
   * for the default: the initial list and resyncs low (−100), everything else 0.
   */
  priority?: (event: PriorityEvent) => number | undefined;
  /** Backoff of failed keys. @default the queue's default (per item 5 ms → 1000 s) */
  rateLimiter?: RateLimiter<string>;
  /** Aborts `ctx.signal` and counts a failure when a reconcile takes longer. @default none */
  reconcileTimeoutMs?: number;
  /** Watch only this namespace. @default all namespaces */
  namespace?: string;
  reconcile: Reconciler;
}

/** A validated controller description, ready for `manager.add()`. */
export interface ControllerSpec<T extends KubeObject = KubeObject> {
  readonly name: string;
  readonly for: Source<T> | undefined;
  readonly owns: readonly Source[];
  readonly watches: readonly MappedWatch[];
  readonly predicates: readonly Predicate[];
  readonly concurrency: number;
  readonly queue: QueueKind;
  readonly priority: ((event: PriorityEvent) => number | undefined) | undefined;
  readonly rateLimiter: RateLimiter<string> | undefined;
  readonly reconcileTimeoutMs: number | undefined;
  readonly namespace: string | undefined;
  readonly reconcile: Reconciler;
}

const NAME = /^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/;
const QUEUES = new Set(["priority", "two-lane", "fair", "fifo"]);

function isDefinition(v: unknown): v is ResourceDefinition {
  return (
    typeof v === "object" &&
    v !== null &&
    typeof (v as ResourceDefinition).plural === "string" &&
    typeof (v as ResourceDefinition).kind === "string" &&
    typeof (v as ResourceDefinition).version === "string"
  );
}

function source<S extends KubeObject>(
  owner: string,
  option: string,
  v: ResourceDefinition<S> | Source<S>,
): Source<S> {
  if (isDefinition(v)) return { resource: v, predicates: [] };
  if (typeof v !== "object" || v === null || !isDefinition((v as Source<S>).resource)) {
    throw new InvalidOptionError(
      owner,
      option,
      v,
      "must be a resource definition (or { resource, predicates })",
    );
  }
  return { resource: v.resource, predicates: [...(v.predicates ?? [])] };
}

/**
 * Describes a controller; `manager.add(controller({...}))` runs it. Everything is checked here,
 * so a mistake fails at build time with an `InvalidOptionError` naming the option, not later.
 *
 * @example
 * ```ts
 * manager.add(controller({
 *   name: "user-namespace",
 *   for: User,
 *   owns: [namespaces],
 *   reconcile: async ({ name }, { log, reason }) => { ... },
 * }));
 * ```
 */
export function controller<T extends KubeObject>(options: ControllerOptions<T>): ControllerSpec<T> {
  const owner = `controller(${typeof options?.name === "string" ? options.name : "?"})`;
  if (typeof options?.name !== "string" || !NAME.test(options.name) || options.name.length > 63) {
    throw new InvalidOptionError(
      owner,
      "name",
      options?.name,
      "must be lowercase letters, digits, '-' and '.', at most 63",
    );
  }
  if (typeof options.reconcile !== "function") {
    throw new InvalidOptionError(owner, "reconcile", options.reconcile, "must be a function");
  }
  const concurrency = options.concurrency ?? 1;
  if (!Number.isInteger(concurrency) || concurrency < 1) {
    throw new InvalidOptionError(owner, "concurrency", concurrency, "must be a whole number >= 1");
  }
  const queue = options.queue ?? "priority";
  if (
    typeof queue === "string" ? !QUEUES.has(queue) : typeof queue?.strategy?.push !== "function"
  ) {
    throw new InvalidOptionError(
      owner,
      "queue",
      queue,
      'must be "priority", "two-lane", "fair", "fifo" or { strategy }',
    );
  }
  const timeout = options.reconcileTimeoutMs;
  if (timeout !== undefined && (!Number.isFinite(timeout) || timeout <= 0)) {
    throw new InvalidOptionError(owner, "reconcileTimeoutMs", timeout, "must be a number > 0");
  }
  if (options.priority !== undefined && typeof options.priority !== "function") {
    throw new InvalidOptionError(owner, "priority", options.priority, "must be a function");
  }
  const watches = (options.watches ?? []).map((w, i) => {
    const s = source(owner, `watches[${i}]`, w);
    if (typeof w.map !== "function")
      throw new InvalidOptionError(owner, `watches[${i}].map`, w.map, "must be a function");
    return { ...s, map: w.map };
  });
  if (options.for === undefined && (options.owns?.length ?? 0) > 0) {
    throw new InvalidOptionError(
      owner,
      "owns",
      "(definitions)",
      "needs `for`: owned objects map to their owner of that kind",
    );
  }
  return Object.freeze({
    name: options.name,
    for: options.for === undefined ? undefined : source(owner, "for", options.for),
    owns: (options.owns ?? []).map((o, i) => source(owner, `owns[${i}]`, o)),
    watches,
    predicates: [...(options.predicates ?? [])],
    concurrency,
    queue,
    priority: options.priority,
    rateLimiter: options.rateLimiter,
    reconcileTimeoutMs: timeout,
    namespace: options.namespace,
    reconcile: options.reconcile,
  });
}
