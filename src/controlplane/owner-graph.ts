/**
 * The garbage collector's owner graph, pure: every object the monitors have observed, keyed by
 * uid, and the reverse index from an owner's uid to the objects that name it in their
 * `ownerReferences`. Feeding it an observed change returns what the collector must look at
 * next; it never does I/O and never decides a deletion by itself (the collector checks the
 * server first).
 */
import { type KubeObject, type OwnerReference, parseApiVersion } from "../core/index.ts";
import { apiVersionOf, type ResourceDefinition } from "../resources/index.ts";

/** The finalizer that asks the collector to orphan the dependents before the owner goes. */
export const ORPHAN_FINALIZER = "orphan";
/** The finalizer that asks the collector to delete the dependents before the owner goes. */
export const FOREGROUND_FINALIZER = "foregroundDeletion";

/** Who an object is: its coordinates and uid. */
export interface ObjectIdentity {
  readonly apiVersion: string;
  readonly kind: string;
  /** Undefined for cluster-scoped objects. */
  readonly namespace: string | undefined;
  readonly name: string;
  readonly uid: string;
}

/** One observed object. */
export interface GraphNode {
  readonly identity: ObjectIdentity;
  /** The resource it was observed through. */
  readonly resource: ResourceDefinition;
  readonly owners: readonly OwnerReference[];
  /** It has a deletionTimestamp. */
  readonly beingDeleted: boolean;
  /** Being deleted with the `foregroundDeletion` finalizer: waiting for its dependents. */
  readonly deletingDependents: boolean;
  /** Being deleted with the `orphan` finalizer: its dependents are to be orphaned. */
  readonly orphaning: boolean;
}

/** A reference whose owner was observed in a place the dependent cannot point to. */
export interface InvalidReference {
  readonly dependent: ObjectIdentity;
  readonly reference: OwnerReference;
  /** The owner as observed. */
  readonly owner: ObjectIdentity;
}

/** What the collector must do after a change to the graph. */
export interface GraphChanges {
  /** Objects to check: collect them if their owners are gone, or finish a foreground deletion. */
  readonly attemptToDelete: Set<string>;
  /** Owners whose dependents are to be orphaned. */
  readonly attemptToOrphan: Set<string>;
  /** References from a namespaced object to an owner observed in another namespace. */
  readonly invalid: InvalidReference[];
}

function noChanges(): GraphChanges {
  return { attemptToDelete: new Set(), attemptToOrphan: new Set(), invalid: [] };
}

/** The identity of an object observed through `resource`. */
export function identityOf(resource: ResourceDefinition, obj: KubeObject): ObjectIdentity {
  const m = obj.metadata ?? {};
  return {
    apiVersion: apiVersionOf(resource),
    kind: resource.kind,
    namespace: resource.scope === "Namespaced" ? (m.namespace ?? "") : undefined,
    name: m.name ?? "",
    uid: m.uid ?? "",
  };
}

const blocks = (ref: OwnerReference) => ref.blockOwnerDeletion === true;

/**
 * The graph. Invariant: `#dependents.get(o)` holds exactly the uids of the observed nodes
 * that have a reference with uid `o`, whether or not `o` itself is observed (a reference to an
 * owner not observed yet is how the collector learns to check that owner on the server).
 * Nodes are replaced, never mutated, so a node handed out stays a consistent snapshot.
 */
export class OwnerGraph {
  readonly #nodes = new Map<string, GraphNode>();
  readonly #dependents = new Map<string, Set<string>>();

  /** Observed objects. */
  get size(): number {
    return this.#nodes.size;
  }

  /** The node of `uid`, if observed. */
  node(uid: string): GraphNode | undefined {
    return this.#nodes.get(uid);
  }

  /** Every node (for tests and debugging). */
  nodes(): IterableIterator<GraphNode> {
    return this.#nodes.values();
  }

  /** Observed objects that name `uid` as an owner. */
  dependentsOf(uid: string): GraphNode[] {
    const out: GraphNode[] = [];
    for (const d of this.#dependents.get(uid) ?? []) {
      const node = this.#nodes.get(d);
      if (node !== undefined) out.push(node);
    }
    return out;
  }

  /** Dependents whose reference to `uid` has `blockOwnerDeletion: true`. */
  blockingDependentsOf(uid: string): GraphNode[] {
    return this.dependentsOf(uid).filter((d) => d.owners.some((r) => r.uid === uid && blocks(r)));
  }

  /** An object was added or changed (its uid is the same as before, if it was known). */
  observe(resource: ResourceDefinition, obj: KubeObject): GraphChanges {
    const changes = noChanges();
    const identity = identityOf(resource, obj);
    if (identity.uid === "") return changes;
    const meta = obj.metadata ?? {};
    const finalizers = meta.finalizers ?? [];
    const beingDeleted = Boolean(meta.deletionTimestamp);
    const node: GraphNode = {
      identity,
      resource,
      owners: [...(meta.ownerReferences ?? [])],
      beingDeleted,
      deletingDependents: beingDeleted && finalizers.includes(FOREGROUND_FINALIZER),
      orphaning: beingDeleted && finalizers.includes(ORPHAN_FINALIZER),
    };
    const old = this.#nodes.get(identity.uid);
    this.#nodes.set(identity.uid, node);
    const oldOwners = old?.owners ?? [];
    const before = new Map(oldOwners.map((r) => [r.uid, r]));
    const after = new Map(node.owners.map((r) => [r.uid, r]));
    for (const [uid, ref] of before) {
      if (after.has(uid)) continue;
      this.#unindex(uid, identity.uid);
      // An owner waiting for its blocking dependents may be free now.
      if (blocks(ref)) this.#wakeDeletingOwner(uid, changes);
    }
    for (const [uid, ref] of after) {
      const was = before.get(uid);
      if (was === undefined) {
        this.#index(uid, identity.uid);
        this.#checkReference(node, ref, changes);
      } else if (blocks(was) && !blocks(ref)) {
        this.#wakeDeletingOwner(uid, changes);
      }
    }
    if (old === undefined) {
      // Dependents that named this uid before it was observed: do they name it rightly?
      for (const dep of this.dependentsOf(identity.uid)) {
        for (const ref of dep.owners) {
          if (ref.uid === identity.uid) this.#checkReference(dep, ref, changes);
        }
      }
    }
    if (node.orphaning && !old?.orphaning) changes.attemptToOrphan.add(identity.uid);
    if (node.deletingDependents && !old?.deletingDependents) {
      for (const dep of this.dependentsOf(identity.uid))
        changes.attemptToDelete.add(dep.identity.uid);
      changes.attemptToDelete.add(identity.uid);
    }
    return changes;
  }

  /** An object is gone. Its dependents are to be checked; so is an owner waiting for it. */
  remove(uid: string): GraphChanges {
    const changes = noChanges();
    const node = this.#nodes.get(uid);
    if (node === undefined) return changes;
    this.#nodes.delete(uid);
    for (const ref of node.owners) {
      this.#unindex(ref.uid, uid);
      this.#wakeDeletingOwner(ref.uid, changes);
    }
    for (const dep of this.dependentsOf(uid)) changes.attemptToDelete.add(dep.identity.uid);
    return changes;
  }

  /** Removes every node observed through `resource` (its monitor stopped), as {@link remove}. */
  removeResource(resource: ResourceDefinition): GraphChanges {
    const all = noChanges();
    const key = resourceKey(resource);
    const uids = [...this.#nodes.values()]
      .filter((n) => resourceKey(n.resource) === key)
      .map((n) => n.identity.uid);
    for (const uid of uids) {
      const c = this.remove(uid);
      for (const u of c.attemptToDelete) all.attemptToDelete.add(u);
    }
    for (const uid of uids) all.attemptToDelete.delete(uid);
    return all;
  }

  /**
   * Checks one reference of `dep` against its owner, if observed: an owner in another
   * namespace is invalid (reported, and the dependent checked: the reference counts as absent);
   * an owner not observed, or observed with other coordinates, makes the dependent worth a
   * check on the server; so does an owner already deleting its dependents.
   */
  #checkReference(dep: GraphNode, ref: OwnerReference, changes: GraphChanges): void {
    const owner = this.#nodes.get(ref.uid);
    if (owner === undefined) {
      changes.attemptToDelete.add(dep.identity.uid);
      return;
    }
    const o = owner.identity;
    if (o.namespace !== undefined && o.namespace !== dep.identity.namespace) {
      // A cluster-scoped dependent of a namespaced owner is reported by the collector's check.
      if (dep.identity.namespace !== undefined) {
        changes.invalid.push({ dependent: dep.identity, reference: ref, owner: o });
      }
      changes.attemptToDelete.add(dep.identity.uid);
    } else if (!sameCoordinates(ref, o) || owner.deletingDependents) {
      changes.attemptToDelete.add(dep.identity.uid);
    }
  }

  #wakeDeletingOwner(uid: string, changes: GraphChanges): void {
    if (this.#nodes.get(uid)?.deletingDependents) changes.attemptToDelete.add(uid);
  }

  #index(owner: string, dependent: string): void {
    const set = this.#dependents.get(owner) ?? new Set<string>();
    this.#dependents.set(owner, set);
    set.add(dependent);
  }

  #unindex(owner: string, dependent: string): void {
    const set = this.#dependents.get(owner);
    if (set === undefined) return;
    set.delete(dependent);
    if (set.size === 0) this.#dependents.delete(owner);
  }
}

/** Group, kind and name agree (the version may differ: every version serves the same object). */
function sameCoordinates(ref: OwnerReference, o: ObjectIdentity): boolean {
  return (
    ref.name === o.name && ref.kind === o.kind && groupOf(ref.apiVersion) === groupOf(o.apiVersion)
  );
}

/** The group of an apiVersion, or the apiVersion itself if it does not parse. */
export function groupOf(apiVersion: string): string {
  try {
    return parseApiVersion(apiVersion).group;
  } catch {
    return apiVersion;
  }
}

/** `group/version/plural`: which monitor, which resource. */
export function resourceKey(r: Pick<ResourceDefinition, "group" | "version" | "plural">): string {
  return `${r.group}/${r.version}/${r.plural}`;
}
