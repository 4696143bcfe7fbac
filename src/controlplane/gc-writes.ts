/**
 * The garbage collector's writes, each safe against concurrent changes: edits of
 * `ownerReferences` carry the resourceVersion they were computed from and are recomputed on a
 * conflict; deletes carry the uid (and the resourceVersion the decision was made at).
 */
import type { ResourceClient } from "../client/index.ts";
import { isConflict, isNotFound, type KubeObject, type OwnerReference } from "../core/index.ts";

/** How many times an edit is recomputed after a conflict before the error is thrown. */
const ATTEMPTS = 5;

/**
 * Applies `edit` to the stored object's owner references: reads `name` (unless `current` is
 * given), patches the new list with the read resourceVersion as a precondition, and starts over
 * on a conflict. Resolves with false if the object is gone, or if `edit` changed nothing.
 */
export async function editOwnerReferences(
  api: ResourceClient<KubeObject>,
  name: string,
  uid: string,
  edit: (refs: readonly OwnerReference[]) => OwnerReference[],
  signal: AbortSignal,
  current?: KubeObject,
): Promise<boolean> {
  let obj = current;
  for (let attempt = 1; ; attempt++) {
    if (obj === undefined) {
      try {
        obj = await api.get(name, { signal });
      } catch (err) {
        if (isNotFound(err)) return false;
        throw err;
      }
    }
    if (obj.metadata?.uid !== uid) return false;
    const refs = obj.metadata?.ownerReferences ?? [];
    const next = edit(refs);
    if (JSON.stringify(next) === JSON.stringify(refs)) return false;
    try {
      await api.patch(
        name,
        "merge",
        {
          metadata: {
            ownerReferences: next.length === 0 ? null : next,
            resourceVersion: obj.metadata?.resourceVersion,
          },
        },
        { signal },
      );
      return true;
    } catch (err) {
      if (isNotFound(err)) return false;
      if (!isConflict(err) || attempt >= ATTEMPTS) throw err;
      obj = undefined;
    }
  }
}

/** Drops the references to the given owner uids. */
export function withoutOwners(uids: ReadonlySet<string>) {
  return (refs: readonly OwnerReference[]): OwnerReference[] =>
    refs.filter((r) => !uids.has(r.uid));
}

/** Sets `blockOwnerDeletion: false` on every reference that blocks (kube's cycle breaker). */
export function unblocked(refs: readonly OwnerReference[]): OwnerReference[] {
  return refs.map((r) => (r.blockOwnerDeletion === true ? { ...r, blockOwnerDeletion: false } : r));
}

/**
 * Deletes `latest` with a propagation policy, on the condition that it is still the object the
 * decision was made about. If it changed meanwhile but its owner references did not, it is
 * deleted anyway (the decision depends on nothing else); otherwise the Conflict is thrown so
 * that the collector looks again. Resolves with false if it is gone.
 */
export async function deleteIfUnchanged(
  api: ResourceClient<KubeObject>,
  latest: KubeObject,
  propagationPolicy: "Foreground" | "Background" | "Orphan",
  signal: AbortSignal,
): Promise<boolean> {
  const name = latest.metadata?.name ?? "";
  const uid = latest.metadata?.uid ?? "";
  const resourceVersion = latest.metadata?.resourceVersion;
  try {
    await api.delete(name, {
      propagationPolicy,
      preconditions: { uid, ...(resourceVersion === undefined ? {} : { resourceVersion }) },
      signal,
    });
    return true;
  } catch (err) {
    if (isNotFound(err)) return false;
    if (!isConflict(err)) throw err;
  }
  let now: KubeObject;
  try {
    now = await api.get(name, { signal });
  } catch (err) {
    if (isNotFound(err)) return false;
    throw err;
  }
  if (now.metadata?.uid !== uid) return false;
  const same =
    JSON.stringify(now.metadata?.ownerReferences ?? []) ===
    JSON.stringify(latest.metadata?.ownerReferences ?? []);
  if (!same) throw new Error(`${name} changed its owner references meanwhile; looking again`);
  try {
    await api.delete(name, { propagationPolicy, preconditions: { uid }, signal });
    return true;
  } catch (err) {
    if (isNotFound(err)) return false;
    throw err;
  }
}

/** Runs `fn` over `items`, at most `limit` at a time; throws one error naming every failure. */
export async function forEachLimited<T>(
  items: readonly T[],
  limit: number,
  fn: (item: T) => Promise<unknown>,
  what: string,
): Promise<void> {
  const errors: unknown[] = [];
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const item = items[next++]!;
      try {
        await fn(item);
      } catch (err) {
        errors.push(err);
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  if (errors.length > 0) {
    const messages = errors.map((e) => (e instanceof Error ? e.message : String(e)));
    throw new AggregateError(errors, `${what}: ${errors.length} failed: ${messages.join("; ")}`);
  }
}
