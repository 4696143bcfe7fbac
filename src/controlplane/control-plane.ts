/**
 * The control plane: the controllers that complete an API server (kube-controller-manager's
 * garbage collector, namespace controller, volume protection and ClusterRole aggregation), run by a kontroller `Manager` against any server
 * over the wire.
 */
import {
  type Client,
  createClient,
  type DiscoveredResource,
  DiscoveryClient,
} from "../client/index.ts";
import { type Controller, controller, Manager, type Predicate } from "../controller/index.ts";
import type { KubeObject } from "../core/index.ts";
import { customResourceDefinitions, namespaces } from "../resources/index.ts";
import { clusterRoleAggregationController } from "./clusterrole-aggregation.ts";
import { type ControlPlaneOptions, resolveOptions } from "./control-plane-options.ts";
import { GarbageCollector } from "./garbage-collector.ts";
import { type MonitorHandler, ResourceMonitors } from "./monitors.ts";
import { NamespaceLifecycle } from "./namespace-lifecycle.ts";
import { type ObjectIdentity, OwnerGraph } from "./owner-graph.ts";
import { deletableResources, groupVersionOf, ResourceMapper } from "./resource-mapper.ts";
import { volumeProtectionControllers } from "./volume-protection.ts";

const deleting: Predicate = {
  create: (o) => Boolean(o.metadata?.deletionTimestamp),
  update: (_o, n) => Boolean(n.metadata?.deletionTimestamp),
  delete: () => false,
};

const cause = (id: ObjectIdentity) => ({
  type: "event" as const,
  event: "update" as const,
  source: "watch" as const,
  object: {
    kind: id.kind,
    name: id.name,
    ...(id.namespace === undefined ? {} : { namespace: id.namespace }),
  },
});

/**
 * The garbage collector and the namespace controller, built with `kontroller/controller`:
 * a `resource-discovery` controller reads discovery (at start, on every CRD change, every
 * `discoveryResyncMs`) and keeps one metadata-only monitor per deletable resource; the
 * monitors feed the owner graph, which queues uids for the `garbage-collector` and
 * `garbage-collector-orphan` controllers; the `namespace` controller empties Terminating
 * namespaces, woken early when an object in one goes away.
 *
 * Inert until {@link start}; one start per instance; {@link stop} is idempotent.
 *
 * @example
 * ```ts
 * await using cp = await startControlPlane({ clientOptions: { url: server.url } });
 * ```
 */
export class ControlPlane {
  readonly manager: Manager;
  /** The garbage collector's view of every owner reference (read it for debugging). */
  readonly graph = new OwnerGraph();
  readonly #client: Client;
  readonly #ownsClient: boolean;
  readonly #monitors: ResourceMonitors;
  readonly #stop = new AbortController();
  #running: Promise<void> | undefined;
  #ready: PromiseWithResolvers<void> = Promise.withResolvers();

  constructor(options: ControlPlaneOptions = {}) {
    const {
      gcOn,
      nsOn,
      protectionOn,
      aggregationOn,
      gcWorkers,
      nsWorkers,
      resyncMs,
      ignored,
      gracefulShutdownMs,
    } = resolveOptions(options);
    this.#ownsClient = options.client === undefined;
    this.#client = options.client ?? createClient(options.clientOptions);
    this.manager = new Manager({
      name: "kontroller-controller-manager",
      client: this.#client,
      gracefulShutdownMs,
      ...pick(options, [
        "logger",
        "clock",
        "metrics",
        "healthPort",
        "healthHost",
        "leaderElection",
      ]),
    });
    const m = this.manager;
    // Discovery failures are reported and retried by the controllers' own backoff, so reads
    // retry briefly (or as the client options say).
    const discovery = new DiscoveryClient({
      client: this.#client,
      ...(options.clock === undefined ? {} : { clock: options.clock }),
      retry: options.clientOptions?.retry ?? { maxRetries: 2, initialDelayMs: 100 },
    });
    const mapper = new ResourceMapper();
    let gcDelete: Controller | undefined;
    let gcOrphan: Controller | undefined;
    let nsController: Controller | undefined;
    let discoveryController: Controller | undefined;
    const rediscover = () => discoveryController?.enqueue("resources", { type: "requeue" }, 0);
    const gc = new GarbageCollector({
      client: this.#client,
      graph: this.graph,
      mapper,
      monitors: {
        hasSynced: () => this.#monitors.hasSynced(),
        watches: (g, p) => this.#monitors.watches(g, p),
      },
      queues: {
        delete: (uid, id) => gcDelete?.enqueue(uid, cause(id)),
        orphan: (uid, id) => gcOrphan?.enqueue(uid, cause(id)),
        discover: rediscover,
      },
      logger: m.logger,
      recorder: m.recorder,
    });
    const nsStore = nsOn ? m.factory.informer(namespaces).store : undefined;
    const handlers: MonitorHandler[] = [];
    if (gcOn) handlers.push(gc);
    if (nsStore !== undefined) {
      handlers.push({
        observed: () => {},
        resourceRemoved: () => {},
        deleted: (_r, obj) => {
          const ns = obj.metadata?.namespace;
          if (ns && nsStore.get(ns)?.metadata?.deletionTimestamp) {
            nsController?.enqueue(ns, {
              type: "event",
              event: "delete",
              source: "watch",
              object: { kind: obj.kind ?? "", namespace: ns, name: obj.metadata?.name ?? "" },
            });
          }
        },
      });
    }
    this.#monitors = new ResourceMonitors({
      client: this.#client,
      logger: m.logger,
      ...(options.clock === undefined ? {} : { clock: options.clock }),
      handler: fanOut(handlers),
      onSynced: () => gc.synced(),
    });
    if (protectionOn) {
      for (const spec of volumeProtectionControllers(this.#client, m.factory)) m.add(spec);
    }
    if (aggregationOn) m.add(clusterRoleAggregationController(this.#client, m.factory));
    if (!gcOn && !nsOn) {
      this.#ready.resolve();
      return;
    }
    let first = true;
    discoveryController = m.add(
      controller({
        name: "resource-discovery",
        // One key ("resources"): every CRD change, the resync and the first run all map to it.
        watches: [{ resource: customResourceDefinitions, map: () => ({ name: "resources" }) }],
        reconcile: async (_req, ctx) => {
          const d = await discovery.discover({ signal: ctx.signal });
          mapper.update(d);
          if (gcOn) gc.discovered();
          const failed = (r: DiscoveredResource) => d.failed.has(groupVersionOf(r));
          const { added, removed } = await this.#monitors.sync(
            deletableResources(d, ignored),
            failed,
          );
          if (added.length > 0 || removed.length > 0) {
            ctx.log.info({ added, removed }, "monitored resources changed");
          }
          if (first) {
            first = false;
            this.#monitors.waitForSync(this.#stop.signal).then(
              () => this.#ready.resolve(),
              () => {},
            );
          }
          return { requeueAfterMs: resyncMs };
        },
      }),
    );
    discoveryController.enqueue("resources", { type: "requeue" }, 0);
    if (gcOn) {
      const spec = (name: string, run: (uid: string, signal: AbortSignal) => Promise<unknown>) =>
        controller({
          name,
          // Keyed by uid: the owner graph enqueues, no kind of its own.
          concurrency: gcWorkers,
          reconcile: async ({ name: uid }, ctx) =>
            (await run(uid, ctx.signal)) as { requeue?: boolean } | undefined,
        });
      gcDelete = m.add(spec("garbage-collector", (uid, s) => gc.attemptToDelete(uid, s)));
      gcOrphan = m.add(spec("garbage-collector-orphan", (uid, s) => gc.attemptToOrphan(uid, s)));
    }
    if (nsOn) {
      const lifecycle = new NamespaceLifecycle({
        client: this.#client,
        discovery,
        logger: m.logger,
        ...(options.clock === undefined ? {} : { clock: options.clock }),
      });
      nsController = m.add(
        controller({
          name: "namespace",
          for: { resource: namespaces, predicates: [deleting as Predicate<KubeObject>] },
          concurrency: nsWorkers,
          reconcile: ({ name }, ctx) => lifecycle.reconcile(name, ctx.signal),
        }),
      );
    }
  }

  /** The resources the garbage collector watches now. */
  get monitoredResources(): DiscoveredResource[] {
    return this.#monitors.resources;
  }

  /**
   * Runs the controllers until `signal` aborts or {@link stop}; resolves once everything has
   * stopped. Rejects as the manager does (`LeadershipLostError`).
   */
  start(signal?: AbortSignal): Promise<void> {
    if (this.#running !== undefined) throw new Error("ControlPlane: start can be called once");
    if (this.#stop.signal.aborted) throw new Error("ControlPlane: stopped before start");
    const stop =
      signal === undefined ? this.#stop.signal : AbortSignal.any([signal, this.#stop.signal]);
    const endMonitors = () => void this.#monitors.stop();
    stop.addEventListener("abort", endMonitors, { once: true });
    this.#running = (async () => {
      try {
        await this.manager.start(stop);
      } finally {
        stop.removeEventListener("abort", endMonitors);
        await this.#monitors.stop();
        if (this.#ownsClient) await this.#client.close();
      }
    })();
    this.#running.then(
      () => this.#ready.reject(new Error("the control plane stopped before it was ready")),
      (err: unknown) => this.#ready.reject(err),
    );
    this.#ready.promise.catch(() => {});
    return this.#running;
  }

  /**
   * Resolves once the controllers run and every monitor has listed its resource; rejects if
   * the control plane stops first, or with `signal.reason`.
   */
  waitForReady(signal?: AbortSignal): Promise<void> {
    if (signal === undefined) return this.#ready.promise;
    if (signal.aborted) return Promise.reject(signal.reason);
    return new Promise((resolve, reject) => {
      const onAbort = () => reject(signal.reason);
      signal.addEventListener("abort", onAbort, { once: true });
      this.#ready.promise
        .then(resolve, reject)
        .finally(() => signal.removeEventListener("abort", onAbort));
    });
  }

  /** Stops everything and waits for it. Idempotent; fine before start. */
  async stop(): Promise<void> {
    this.#stop.abort(new Error("control plane stopped"));
    if (this.#running === undefined) {
      this.#ready.reject(new Error("the control plane stopped before it was started"));
      this.#ready.promise.catch(() => {});
      await this.#monitors.stop();
      if (this.#ownsClient) await this.#client.close();
      return;
    }
    await this.#running.catch(() => {});
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.stop();
  }
}

/**
 * Creates a control plane, starts it, and resolves once it is ready; close it with `stop()`
 * (or `await using`). Rejects (after stopping it) if it fails to become ready.
 */
export async function startControlPlane(
  options: ControlPlaneOptions = {},
  signal?: AbortSignal,
): Promise<ControlPlane> {
  const cp = new ControlPlane(options);
  void cp.start().catch(() => {});
  try {
    await cp.waitForReady(signal);
  } catch (err) {
    await cp.stop();
    throw err;
  }
  return cp;
}

function fanOut(handlers: readonly MonitorHandler[]): MonitorHandler {
  return {
    observed: (r, obj, old) => {
      for (const h of handlers) h.observed(r, obj, old);
    },
    deleted: (r, obj) => {
      for (const h of handlers) h.deleted(r, obj);
    },
    resourceRemoved: (r) => {
      for (const h of handlers) h.resourceRemoved(r);
    },
  };
}

function pick<T extends object, K extends keyof T>(o: T, keys: readonly K[]): Partial<Pick<T, K>> {
  const out: Partial<Pick<T, K>> = {};
  for (const k of keys) if (o[k] !== undefined) out[k] = o[k];
  return out;
}
