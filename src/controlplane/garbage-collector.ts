/**
 * The garbage collector (kube-controller-manager's): the monitors feed the owner graph; the
 * graph names objects to check; `attemptToDelete` and `attemptToOrphan` check them against
 * the server and act. Every decision is made on the server's current state (a GET), never on
 * the graph alone, so a graph that lags behind costs a little work and never a wrong delete.
 */
import type { Logger } from "../cache/index.ts";
import type { Client, DiscoveredResource, ResourceClient } from "../client/index.ts";
import { type EventRecorder, type ReconcileResult, removeFinalizer } from "../controller/index.ts";
import { isNotFound, type KubeObject, type OwnerReference } from "../core/index.ts";
import type { ResourceDefinition } from "../resources/index.ts";
import {
  deleteIfUnchanged,
  editOwnerReferences,
  forEachLimited,
  unblocked,
  withoutOwners,
} from "./gc-writes.ts";
import type { MonitorHandler } from "./monitors.ts";
import {
  FOREGROUND_FINALIZER,
  type GraphChanges,
  type GraphNode,
  type ObjectIdentity,
  ORPHAN_FINALIZER,
  type OwnerGraph,
} from "./owner-graph.ts";
import type { ResourceMapper } from "./resource-mapper.ts";

/** Where the collector puts work; the control plane wires these to its controllers. */
export interface CollectorQueues {
  /** Check `uid`: collect it, or finish its foreground deletion. */
  delete(uid: string, cause: ObjectIdentity): void;
  /** Orphan the dependents of `uid`. */
  orphan(uid: string, cause: ObjectIdentity): void;
  /** Read discovery again (an owner's kind is unknown). */
  discover(): void;
}

/** What the collector works with. */
export interface GarbageCollectorDeps {
  client: Client;
  graph: OwnerGraph;
  mapper: ResourceMapper;
  /** Whether the graph is complete, and which resources it covers. */
  monitors: { hasSynced(): boolean; watches(group: string, plural: string): boolean };
  queues: CollectorQueues;
  logger: Logger;
  /** Warning events about invalid owner references go here. */
  recorder?: EventRecorder;
  /** Dependents orphaned at once. @default 16 */
  parallelism?: number;
}

type Classified =
  | { kind: "invalid" }
  | {
      kind: "classified";
      solid: OwnerReference[];
      dangling: OwnerReference[];
      waiting: OwnerReference[];
      /** A solid owner exists on the server but the graph has not observed it yet. */
      unobserved: boolean;
    };

/**
 * The collector. Invariants: `#waitingForSync` holds the uids whose step needs a complete graph
 * (removing the `orphan` or `foregroundDeletion` finalizer: a dependent not observed yet
 * would be missed); they are queued again when the monitors report synced.
 * `#waitingForDiscovery` holds the uids that failed on an owner kind discovery did not list;
 * they are queued again after the next discovery (and retried with backoff meanwhile).
 */
export class GarbageCollector implements MonitorHandler {
  readonly #d: GarbageCollectorDeps;
  readonly #waitingForSync = { delete: new Set<string>(), orphan: new Set<string>() };
  /** Uids whose check failed on an owner kind discovery did not know. */
  readonly #waitingForDiscovery = new Set<string>();

  constructor(deps: GarbageCollectorDeps) {
    this.#d = deps;
  }

  observed(resource: DiscoveredResource, obj: KubeObject): void {
    const changes = this.#d.graph.observe(resource, obj);
    this.#apply(changes, this.#d.graph.node(obj.metadata?.uid ?? ""));
  }

  deleted(_resource: DiscoveredResource, obj: KubeObject): void {
    const uid = obj.metadata?.uid ?? "";
    const node = this.#d.graph.node(uid);
    this.#apply(this.#d.graph.remove(uid), node);
  }

  resourceRemoved(resource: DiscoveredResource): void {
    this.#apply(this.#d.graph.removeResource(resource), undefined);
  }

  /** The monitors synced: what waited for a complete graph runs now. */
  synced(): void {
    const { delete: del, orphan } = this.#waitingForSync;
    for (const uid of del) this.#enqueue("delete", uid);
    for (const uid of orphan) this.#enqueue("orphan", uid);
    del.clear();
    orphan.clear();
  }

  /** Discovery was read again: checks that failed on an unknown owner kind run now. */
  discovered(): void {
    for (const uid of this.#waitingForDiscovery) this.#enqueue("delete", uid);
    this.#waitingForDiscovery.clear();
  }

  /**
   * Checks object `uid` against the server: finishes its foreground deletion when no blocking
   * dependent is left; deletes it when none of its owners exists any more (or every one that
   * does is deleting its dependents in the foreground); drops references to absent owners when
   * another owner still exists.
   */
  async attemptToDelete(uid: string, signal: AbortSignal): Promise<ReconcileResult | undefined> {
    const node = this.#d.graph.node(uid);
    if (node === undefined) return undefined;
    if (node.beingDeleted && !node.deletingDependents) return undefined;
    const api = this.#api(node.resource, node.identity.namespace);
    const latest = await this.#latest(api, node.identity, signal);
    if (latest === undefined) return undefined;
    const meta = latest.metadata ?? {};
    if (meta.deletionTimestamp) {
      if (!(meta.finalizers ?? []).includes(FOREGROUND_FINALIZER)) return undefined;
      return this.#finishForeground(node, api, latest, signal);
    }
    const refs = meta.ownerReferences ?? [];
    if (refs.length === 0) return undefined;
    const c = await this.#classify(node, refs, signal);
    if (c.kind === "invalid") return undefined;
    const name = node.identity.name;
    if (c.solid.length > 0) {
      if (c.dangling.length > 0 || c.waiting.length > 0) {
        const gone = new Set([...c.dangling, ...c.waiting].map((r) => r.uid));
        await editOwnerReferences(api, name, uid, withoutOwners(gone), signal, latest);
      }
      // Watch for the owner's deletion until the graph has seen it (kube issue 56121).
      return c.unobserved ? { requeue: true } : undefined;
    }
    const dependents = this.#d.graph.dependentsOf(uid);
    if (c.waiting.length > 0 && dependents.length > 0) {
      if (dependents.some((d) => d.deletingDependents)) {
        // An owner and a dependent both wait for each other: stop blocking ours.
        await editOwnerReferences(api, name, uid, unblocked, signal, latest);
      }
      if (!(await deleteIfUnchanged(api, latest, "Foreground", signal))) this.#gone(uid);
      return undefined;
    }
    const finalizers = meta.finalizers ?? [];
    const policy = finalizers.includes(ORPHAN_FINALIZER)
      ? "Orphan"
      : finalizers.includes(FOREGROUND_FINALIZER)
        ? "Foreground"
        : "Background";
    this.#d.logger.info(
      { object: describe(node.identity), propagationPolicy: policy },
      "garbage collecting: every owner is gone",
    );
    if (!(await deleteIfUnchanged(api, latest, policy, signal))) this.#gone(uid);
    return undefined;
  }

  /**
   * Orphans the dependents of `uid` (removes their references to it), then removes its `orphan`
   * finalizer, once the graph is complete.
   */
  async attemptToOrphan(uid: string, signal: AbortSignal): Promise<undefined> {
    const node = this.#d.graph.node(uid);
    if (node === undefined) return undefined;
    if (!this.#d.monitors.hasSynced()) {
      this.#waitingForSync.orphan.add(uid);
      return undefined;
    }
    const api = this.#api(node.resource, node.identity.namespace);
    const latest = await this.#latest(api, node.identity, signal);
    if (latest === undefined) return undefined;
    const meta = latest.metadata ?? {};
    if (!meta.deletionTimestamp || !(meta.finalizers ?? []).includes(ORPHAN_FINALIZER)) {
      return undefined;
    }
    const only = new Set([uid]);
    await forEachLimited(
      this.#d.graph.dependentsOf(uid),
      this.#d.parallelism ?? 16,
      (dep) =>
        editOwnerReferences(
          this.#api(dep.resource, dep.identity.namespace),
          dep.identity.name,
          dep.identity.uid,
          withoutOwners(only),
          signal,
        ),
      `orphaning the dependents of ${describe(node.identity)}`,
    );
    await this.#removeFinalizer(api, latest, ORPHAN_FINALIZER, signal);
    return undefined;
  }

  async #finishForeground(
    node: GraphNode,
    api: ResourceClient<KubeObject>,
    latest: KubeObject,
    signal: AbortSignal,
  ): Promise<undefined> {
    const uid = node.identity.uid;
    if (!this.#d.monitors.hasSynced()) {
      this.#waitingForSync.delete.add(uid);
      return undefined;
    }
    const blocking = this.#d.graph.blockingDependentsOf(uid);
    if (blocking.length === 0) {
      await this.#removeFinalizer(api, latest, FOREGROUND_FINALIZER, signal);
      return undefined;
    }
    for (const dep of blocking) {
      if (!dep.deletingDependents) this.#d.queues.delete(dep.identity.uid, node.identity);
    }
    return undefined;
  }

  /** Sorts the references by what the server says of each owner. */
  async #classify(
    node: GraphNode,
    refs: readonly OwnerReference[],
    signal: AbortSignal,
  ): Promise<Classified> {
    const out = {
      kind: "classified" as const,
      solid: [] as OwnerReference[],
      dangling: [] as OwnerReference[],
      waiting: [] as OwnerReference[],
      unobserved: false,
    };
    for (const ref of refs) {
      const resource = this.#d.mapper.lookup(ref.apiVersion, ref.kind);
      if (resource === undefined && this.#d.mapper.isGone(ref.apiVersion, ref.kind)) {
        // Its kind is no longer served (the CRD was deleted, and its objects with it).
        out.dangling.push(ref);
        continue;
      }
      if (resource === undefined) {
        this.#waitingForDiscovery.add(node.identity.uid);
        this.#d.queues.discover();
        throw new Error(
          `the owner ${ref.kind} ${ref.name} (${ref.apiVersion}) of ${describe(node.identity)} is of a kind the server does not serve (yet); retrying after discovery`,
        );
      }
      const namespaced = resource.scope === "Namespaced";
      if (namespaced && node.identity.namespace === undefined) {
        // kube: never collected by this reference, and not retried.
        this.#warnInvalid(
          node.identity,
          ref,
          `ownerRef [${refText(ref)}] is namespaced, but ${describe(node.identity)} is cluster-scoped`,
        );
        return { kind: "invalid" };
      }
      const ownerApi = this.#api(resource, namespaced ? node.identity.namespace : undefined);
      let owner: KubeObject | undefined;
      try {
        owner = await ownerApi.get(ref.name, { signal });
      } catch (err) {
        if (!isNotFound(err)) throw err;
      }
      if (owner === undefined || owner.metadata?.uid !== ref.uid) {
        out.dangling.push(ref);
        continue;
      }
      const m = owner.metadata;
      if (m?.deletionTimestamp && (m.finalizers ?? []).includes(FOREGROUND_FINALIZER)) {
        out.waiting.push(ref);
        continue;
      }
      out.solid.push(ref);
      if (
        this.#d.graph.node(ref.uid) === undefined &&
        this.#d.monitors.watches(resource.group, resource.plural)
      ) {
        out.unobserved = true;
      }
    }
    return out;
  }

  /** GETs the object; undefined (and the graph told) if it is gone or was recreated. */
  async #latest(
    api: ResourceClient<KubeObject>,
    identity: ObjectIdentity,
    signal: AbortSignal,
  ): Promise<KubeObject | undefined> {
    let latest: KubeObject;
    try {
      latest = await api.get(identity.name, { signal });
    } catch (err) {
      if (!isNotFound(err)) throw err;
      this.#gone(identity.uid);
      return undefined;
    }
    if (latest.metadata?.uid !== identity.uid) {
      this.#gone(identity.uid);
      return undefined;
    }
    return latest;
  }

  async #removeFinalizer(
    api: ResourceClient<KubeObject>,
    obj: KubeObject,
    finalizer: string,
    signal: AbortSignal,
  ): Promise<void> {
    try {
      await removeFinalizer(api, obj, finalizer, { signal });
    } catch (err) {
      if (!isNotFound(err)) throw err;
    }
  }

  /** The server says the object is gone: the graph forgets it now (a "virtual delete"). */
  #gone(uid: string): void {
    const node = this.#d.graph.node(uid);
    this.#apply(this.#d.graph.remove(uid), node);
  }

  #apply(changes: GraphChanges, cause: GraphNode | undefined): void {
    for (const inv of changes.invalid) {
      this.#warnInvalid(
        inv.dependent,
        inv.reference,
        `ownerRef [${refText(inv.reference)}] does not exist in namespace "${inv.dependent.namespace}"`,
      );
    }
    for (const uid of changes.attemptToDelete) this.#enqueue("delete", uid, cause);
    for (const uid of changes.attemptToOrphan) this.#enqueue("orphan", uid, cause);
  }

  #enqueue(queue: "delete" | "orphan", uid: string, cause?: GraphNode): void {
    const identity = cause?.identity ?? this.#d.graph.node(uid)?.identity;
    const fallback: ObjectIdentity = {
      apiVersion: "",
      kind: "",
      namespace: undefined,
      name: uid,
      uid,
    };
    this.#d.queues[queue](uid, identity ?? fallback);
  }

  #warnInvalid(dependent: ObjectIdentity, ref: OwnerReference, note: string): void {
    this.#d.logger.warn({ object: describe(dependent), owner: refText(ref) }, note);
    this.#d.recorder?.record(
      {
        apiVersion: dependent.apiVersion,
        kind: dependent.kind,
        metadata: {
          name: dependent.name,
          uid: dependent.uid,
          ...(dependent.namespace === undefined ? {} : { namespace: dependent.namespace }),
        },
      },
      { type: "Warning", reason: "OwnerRefInvalidNamespace", action: "GarbageCollect", note },
    );
  }

  #api(resource: ResourceDefinition, namespace: string | undefined): ResourceClient<KubeObject> {
    const api = this.#d.client.resource(resource);
    return namespace === undefined ? api : api.inNamespace(namespace);
  }
}

/** `Kind namespace/name` or `Kind name`. */
export function describe(id: ObjectIdentity): string {
  return `${id.kind} ${id.namespace === undefined ? "" : `${id.namespace}/`}${id.name}`;
}

function refText(ref: OwnerReference): string {
  return `${ref.apiVersion}/${ref.kind}, name: ${ref.name}, uid: ${ref.uid}`;
}
