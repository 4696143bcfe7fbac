import { isAlreadyExists, isConflict, isNotFound, type KubeObject } from "../../core/index.ts";
import type { Registry, ServedResource } from "../registry/registry.ts";
import type { WriteOptions } from "../registry/types.ts";
import {
  AUTOUPDATE_ANNOTATION,
  bootstrapClusterRoleBindings,
  bootstrapClusterRoles,
  type ClusterRole,
  type ClusterRoleBinding,
  covers,
  RBAC_GROUP,
  type Subject,
} from "./rbac/index.ts";

/*
 * The bootstrap policy written at start, as kube-apiserver's `rbac/bootstrap-roles` post-start
 * hook writes it: each bootstrap ClusterRole and ClusterRoleBinding is created if missing; one
 * that exists is reconciled unless annotated `rbac.authorization.kubernetes.io/autoupdate:
 * "false"` — the rules it lacks added (its own rules kept), the selectors of an aggregationRule
 * and the subjects of a binding likewise, the expected labels and annotations added. A binding
 * whose roleRef changed is replaced, as kube replaces it (a roleRef is immutable).
 */

type Json = Record<string, unknown>;

/** Writes the bootstrap policy into `registry`, each write with `write(served)`. */
export async function ensureBootstrapPolicy(
  registry: Registry,
  write: (served: ServedResource) => WriteOptions,
): Promise<void> {
  const roles = registry.lookup(RBAC_GROUP, "v1", "clusterroles");
  const bindings = registry.lookup(RBAC_GROUP, "v1", "clusterrolebindings");
  if (roles === undefined || bindings === undefined) return;
  for (const role of bootstrapClusterRoles()) {
    await ensure(roles, role as KubeObject, write(roles), reconcileRole);
  }
  for (const binding of bootstrapClusterRoleBindings()) {
    await ensure(bindings, binding as KubeObject, write(bindings), reconcileBinding);
  }
}

/** The reconciled object, undefined when `existing` needs no change, or "replace". */
type Reconcile = (existing: Json, expected: Json) => Json | undefined | "replace";

async function ensure(
  served: ServedResource,
  expected: KubeObject,
  options: WriteOptions,
  reconcile: Reconcile,
): Promise<void> {
  const name = expected.metadata?.name ?? "";
  for (let attempt = 0; attempt < 5; attempt++) {
    try {
      await served.store.create("", structuredClone(expected), options);
      return;
    } catch (err) {
      if (!isAlreadyExists(err)) throw err;
    }
    try {
      let replace = false;
      await served.store.guaranteedUpdate(
        "",
        name,
        (current) => {
          if (current.metadata?.annotations?.[AUTOUPDATE_ANNOTATION] === "false") return current;
          const next = reconcile(current as Json, expected as Json);
          if (next === "replace") replace = true;
          return next === undefined || next === "replace" ? current : (next as KubeObject);
        },
        options,
      );
      if (!replace) return;
      await served.store.delete("", name);
    } catch (err) {
      // Deleted meanwhile: create it again.
      if (!isNotFound(err) && !isConflict(err)) throw err;
    }
  }
}

/** `metadata` with the expected labels and annotations it lacks; undefined if none. */
function withMetadataOf(existing: Json, expected: Json): Json | undefined {
  const meta = (existing.metadata ?? {}) as Json;
  const want = (expected.metadata ?? {}) as Json;
  let changed = false;
  const merged: Json = { ...meta };
  for (const key of ["labels", "annotations"]) {
    const have = (meta[key] ?? {}) as Record<string, string>;
    const add = Object.entries((want[key] ?? {}) as Record<string, string>).filter(
      ([k]) => !(k in have),
    );
    if (add.length > 0) {
      merged[key] = { ...have, ...Object.fromEntries(add) };
      changed = true;
    }
  }
  return changed ? merged : undefined;
}

const reconcileRole: Reconcile = (existing, expected) => {
  const have = existing as ClusterRole;
  const want = expected as ClusterRole;
  const out: Json = { ...existing };
  let changed = false;
  const metadata = withMetadataOf(existing, expected);
  if (metadata !== undefined) {
    out.metadata = metadata;
    changed = true;
  }
  const { missing } = covers(have.rules ?? [], want.rules ?? []);
  if (missing.length > 0) {
    out.rules = [...(have.rules ?? []), ...missing];
    changed = true;
  }
  const wantSelectors = want.aggregationRule?.clusterRoleSelectors ?? [];
  const haveSelectors = have.aggregationRule?.clusterRoleSelectors ?? [];
  const key = (s: unknown) => JSON.stringify(s);
  const lacking = wantSelectors.filter((s) => !haveSelectors.some((h) => key(h) === key(s)));
  if (lacking.length > 0) {
    out.aggregationRule = { clusterRoleSelectors: [...haveSelectors, ...lacking] };
    changed = true;
  }
  return changed ? out : undefined;
};

const reconcileBinding: Reconcile = (existing, expected) => {
  const have = existing as ClusterRoleBinding;
  const want = expected as ClusterRoleBinding;
  if (JSON.stringify(have.roleRef) !== JSON.stringify(want.roleRef)) return "replace";
  const out: Json = { ...existing };
  let changed = false;
  const metadata = withMetadataOf(existing, expected);
  if (metadata !== undefined) {
    out.metadata = metadata;
    changed = true;
  }
  const same = (a: Subject, b: Subject) =>
    a.kind === b.kind && a.name === b.name && (a.namespace ?? "") === (b.namespace ?? "");
  const subjects = have.subjects ?? [];
  const lacking = (want.subjects ?? []).filter((s) => !subjects.some((h) => same(h, s)));
  if (lacking.length > 0) {
    out.subjects = [...subjects, ...lacking];
    changed = true;
  }
  return changed ? out : undefined;
};
