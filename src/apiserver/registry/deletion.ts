import { errors, type GroupResource, type KubeObject } from "../../core/index.ts";

/** The finalizer that asks the garbage collector to orphan dependents. */
export const ORPHAN_FINALIZER = "orphan";
/** The finalizer that asks the garbage collector to delete dependents first. */
export const FOREGROUND_FINALIZER = "foregroundDeletion";

/** The parts of `meta/v1 DeleteOptions` the server honours. */
export interface DeleteOptions {
  propagationPolicy?: "Orphan" | "Background" | "Foreground";
  orphanDependents?: boolean;
  gracePeriodSeconds?: number;
  preconditions?: { uid?: string; resourceVersion?: string };
  dryRun?: string[];
}

/**
 * The finalizers an object gets when deleted with `options` (kube's
 * `deletionFinalizersForGarbageCollection`): Orphan (or `orphanDependents: true`) adds
 * `orphan`; Foreground adds `foregroundDeletion`; Background removes both; no policy leaves
 * them as they are. The collector that acts on them is not part of the API server.
 */
export function finalizersForDeletion(
  current: readonly string[],
  options: DeleteOptions,
): string[] {
  const policy =
    options.propagationPolicy ??
    (options.orphanDependents === true
      ? "Orphan"
      : options.orphanDependents === false
        ? "Background"
        : undefined);
  if (policy === undefined) return [...current];
  const rest = current.filter((f) => f !== ORPHAN_FINALIZER && f !== FOREGROUND_FINALIZER);
  if (policy === "Orphan") return [...rest, ORPHAN_FINALIZER];
  if (policy === "Foreground") return [...rest, FOREGROUND_FINALIZER];
  return rest;
}

/** The last second {@link timestamp} formatted, and how (a create stamps the same one twice). */
let lastSecond = Number.NaN;
let lastStamp = "";

/** RFC 3339 with second precision, UTC: how `metav1.Time` is written. */
export function timestamp(ms: number): string {
  const second = Math.floor(ms / 1000);
  if (second !== lastSecond) {
    lastStamp = `${new Date(second * 1000).toISOString().slice(0, 19)}Z`;
    lastSecond = second;
  }
  return lastStamp;
}

/** True if the object is being deleted. */
export function isDeleting(object: KubeObject): boolean {
  return Boolean(object.metadata?.deletionTimestamp);
}

/**
 * 409 unless the stored object (its `meta`) meets a DELETE's preconditions: the uid and the
 * resourceVersion it names, if any, worded as kube's.
 */
export function checkPreconditions(
  gr: GroupResource,
  name: string,
  meta: { readonly uid?: string | undefined; readonly resourceVersion?: string | undefined },
  options: DeleteOptions,
): void {
  const pre = options.preconditions;
  if (pre?.uid && pre.uid !== meta.uid) {
    throw errors.conflict(
      gr,
      name,
      `Precondition failed: UID in precondition: ${pre.uid}, UID in object meta: ${meta.uid}`,
    );
  }
  if (pre?.resourceVersion && pre.resourceVersion !== meta.resourceVersion) {
    throw errors.conflict(
      gr,
      name,
      `Precondition failed: ResourceVersion in precondition: ${pre.resourceVersion}, ResourceVersion in object meta: ${meta.resourceVersion}`,
    );
  }
}
