import { type KubeObject, type OwnerReference, parseApiVersion } from "../core/index.ts";

/** The object is already controlled by another owner (controller-runtime's `AlreadyOwnedError`). */
export class AlreadyOwnedError extends Error {
  readonly object: KubeObject;
  readonly owner: OwnerReference;

  constructor(object: KubeObject, owner: OwnerReference) {
    super(
      `${describe(object)} is already owned by another ${owner.kind} controller ${owner.name} (uid ${owner.uid})`,
    );
    this.name = "AlreadyOwnedError";
    this.object = object;
    this.owner = owner;
  }
}

function describe(o: KubeObject): string {
  const ns = o.metadata?.namespace;
  return `${o.kind ?? "object"} ${ns ? `${ns}/` : ""}${o.metadata?.name ?? "<unnamed>"}`;
}

/** Builds the reference to `owner`; throws a `TypeError` naming what the owner lacks. */
function referenceTo(owner: KubeObject): OwnerReference {
  const { apiVersion, kind } = owner;
  const name = owner.metadata?.name;
  const uid = owner.metadata?.uid;
  if (!apiVersion || !kind) {
    throw new TypeError(
      `the owner ${describe(owner)} has no apiVersion/kind; read it from the API server or set them`,
    );
  }
  if (!name || !uid) {
    throw new TypeError(
      `the owner ${describe(owner)} has no ${name ? "uid" : "name"}; only a stored object can own others`,
    );
  }
  return { apiVersion, kind, name, uid };
}

/** Refuses references Kubernetes' garbage collector would treat as invalid. */
function checkScopes(owner: KubeObject, object: KubeObject): void {
  const ownerNs = owner.metadata?.namespace;
  const objectNs = object.metadata?.namespace;
  if (ownerNs) {
    if (!objectNs) {
      throw new TypeError(
        `cluster-scoped ${describe(object)} must not have a namespace-scoped owner ${describe(owner)}`,
      );
    }
    if (ownerNs !== objectNs) {
      throw new TypeError(
        `cross-namespace owner references are disallowed: ${describe(owner)} cannot own ${describe(object)}`,
      );
    }
  }
}

/** True if `a` and `b` reference the same object (group, kind and name; the version may differ). */
function sameOwner(a: OwnerReference, b: OwnerReference): boolean {
  return (
    parseApiVersion(a.apiVersion).group === parseApiVersion(b.apiVersion).group &&
    a.kind === b.kind &&
    a.name === b.name
  );
}

function upsert(object: KubeObject, ref: OwnerReference): void {
  object.metadata ??= {};
  const refs = object.metadata.ownerReferences ?? [];
  const i = refs.findIndex((r) => sameOwner(r, ref));
  object.metadata.ownerReferences =
    i < 0 ? [...refs, ref] : refs.map((r, j) => (j === i ? ref : r));
}

/**
 * Makes `owner` the controller of `object` (in place): an owner reference with
 * `controller: true` and `blockOwnerDeletion: true`, so the garbage collector deletes `object`
 * with its owner and foreground deletion waits for it. Throws {@link AlreadyOwnedError} if
 * another object controls it, and a `TypeError` for a reference Kubernetes would not honour
 * (cross-namespace, or a namespaced owner of a cluster-scoped object).
 */
export function setControllerReference(owner: KubeObject, object: KubeObject): void {
  const ref = referenceTo(owner);
  checkScopes(owner, object);
  const existing = getControllerOf(object);
  if (existing !== undefined && !sameOwner(existing, ref))
    throw new AlreadyOwnedError(object, existing);
  upsert(object, { ...ref, controller: true, blockOwnerDeletion: true });
}

/**
 * Adds (or refreshes) a plain owner reference from `object` to `owner`, in place: the garbage
 * collector deletes `object` once all its owners are gone. Keeps an existing controller flag.
 */
export function setOwnerReference(owner: KubeObject, object: KubeObject): void {
  const ref = referenceTo(owner);
  checkScopes(owner, object);
  const existing = object.metadata?.ownerReferences?.find((r) => sameOwner(r, ref));
  upsert(object, {
    ...ref,
    ...(existing?.controller === undefined ? {} : { controller: existing.controller }),
    ...(existing?.blockOwnerDeletion === undefined
      ? {}
      : { blockOwnerDeletion: existing.blockOwnerDeletion }),
  });
}

/** Removes the reference to `owner`, in place; true if there was one. */
export function removeOwnerReference(owner: KubeObject, object: KubeObject): boolean {
  const ref = referenceTo(owner);
  const refs = object.metadata?.ownerReferences ?? [];
  const kept = refs.filter((r) => !sameOwner(r, ref));
  if (kept.length === refs.length) return false;
  object.metadata!.ownerReferences = kept;
  return true;
}

/** The reference with `controller: true`, if any. */
export function getControllerOf(object: KubeObject): OwnerReference | undefined {
  return object.metadata?.ownerReferences?.find((r) => r.controller === true);
}

/** True if `owner` is the controller of `object` (same UID). */
export function isControlledBy(object: KubeObject, owner: KubeObject): boolean {
  const c = getControllerOf(object);
  return c !== undefined && c.uid === owner.metadata?.uid;
}
