import {
  checkDns1123Label,
  checkDns1123Subdomain,
  checkLabelValue,
  checkQualifiedName,
  errors,
  type KubeObject,
  type ObjectMeta,
  parseApiVersion,
  type StatusCause,
} from "../../core/index.ts";
import { field } from "./field-errors.ts";

/**
 * A name check of a kind's own: the problems of `name` (a generateName prefix where `prefix`),
 * for `object`, the object being validated (a CRD's name depends on its spec).
 */
export type NameFunction = (name: string, prefix: boolean, object: KubeObject) => string[];

/**
 * How a kind's own validation checks `metadata`, as the name function its kube validation passes
 * to `ValidateObjectMeta`: a DNS-1123 subdomain (most kinds), a DNS-1123 label (Namespaces,
 * Services, StatefulSets), a path segment (RBAC), any name at all (CertificateSigningRequests),
 * or a function of its own (CRDs). `"none"`: the kind's validation does not check metadata at
 * all (PodDisruptionBudgets, core/v1 Events); only the generic check every kind gets applies.
 */
export type NameRule = "subdomain" | "label" | "path-segment" | "any" | "none" | NameFunction;

const MAX_ANNOTATIONS_BYTES = 256 * 1024;

/**
 * The problems of a name, or of a generateName prefix: kube checks a prefix with its last dash
 * and the character before it replaced by one letter, so that it may end in `-`.
 */
export function checkName(
  rule: NameRule,
  name: string,
  prefix = false,
  object: KubeObject = {},
): string[] {
  if (typeof rule === "function") return rule(name, prefix, object);
  if (rule === "path-segment") {
    if (!prefix && (name === "." || name === "..")) return [`may not be '${name}'`];
    return ["/", "%"].filter((c) => name.includes(c)).map((c) => `may not contain '${c}'`);
  }
  if (rule === "any" || rule === "none") return [];
  const value = prefix && name.length > 1 && name.endsWith("-") ? `${name.slice(0, -2)}a` : name;
  const bad = rule === "label" ? checkDns1123Label(value) : checkDns1123Subdomain(value);
  return bad === undefined ? [] : [bad];
}

/**
 * kube's validation of an object as its registry runs it: first the kind's own — its metadata
 * by its name rule (unless `"none"`), then `kind`, the rest of it — and only when that found
 * nothing, the generic check of every kind's metadata, names as path segments. So a kind that
 * checks no names (a PodDisruptionBudget) accepts `Not_A_Valid_Name` but not `a/b`.
 */
export function validateWithMeta(
  object: KubeObject,
  rule: NameRule,
  namespaced: boolean,
  kind: readonly StatusCause[],
): StatusCause[] {
  const meta = object.metadata ?? {};
  const own = rule === "none" ? [] : validateObjectMeta(meta, rule, namespaced, object);
  const causes = [...own, ...kind];
  if (causes.length > 0 || rule === "path-segment") return causes;
  return validateObjectMeta(meta, "path-segment", namespaced, object);
}

/**
 * Validates the generic parts of `metadata` as apimachinery's `ValidateObjectMeta` does, in its
 * order: generateName (whenever set: the name is generated before validation), name,
 * namespace, labels, annotations, ownerReferences and finalizers.
 */
export function validateObjectMeta(
  meta: ObjectMeta,
  rule: NameRule,
  namespaced: boolean,
  object: KubeObject = { metadata: meta },
): StatusCause[] {
  const causes: StatusCause[] = [];
  if (meta.generateName) {
    for (const bad of checkName(rule, meta.generateName, true, object))
      causes.push(field.invalid("metadata.generateName", meta.generateName, bad));
  }
  if (!meta.name) {
    causes.push(field.required("metadata.name", "name or generateName is required"));
  } else {
    for (const bad of checkName(rule, meta.name, false, object))
      causes.push(field.invalid("metadata.name", meta.name, bad));
  }
  if (namespaced && meta.namespace) {
    const bad = checkDns1123Label(meta.namespace);
    if (bad) causes.push(field.invalid("metadata.namespace", meta.namespace, bad));
  }
  for (const [k, v] of Object.entries(meta.labels ?? {})) {
    const badKey = checkQualifiedName(k);
    if (badKey) causes.push(field.invalid("metadata.labels", k, badKey));
    if (typeof v !== "string") {
      causes.push(field.typeInvalid(`metadata.labels[${k}]`, v, "must be a string"));
      continue;
    }
    const badValue = checkLabelValue(v);
    if (badValue) causes.push(field.invalid(`metadata.labels[${k}]`, v, badValue));
  }
  let annotationBytes = 0;
  for (const [k, v] of Object.entries(meta.annotations ?? {})) {
    const badKey = checkQualifiedName(k.toLowerCase());
    if (badKey) causes.push(field.invalid("metadata.annotations", k, badKey));
    if (typeof v !== "string") {
      causes.push(field.typeInvalid(`metadata.annotations[${k}]`, v, "must be a string"));
      continue;
    }
    annotationBytes += Buffer.byteLength(k) + Buffer.byteLength(v);
  }
  if (annotationBytes > MAX_ANNOTATIONS_BYTES) {
    causes.push(field.tooLong("metadata.annotations", MAX_ANNOTATIONS_BYTES));
  }
  let controllers = 0;
  (meta.ownerReferences ?? []).forEach((ref, i) => {
    const path = `metadata.ownerReferences[${i}]`;
    for (const k of ["apiVersion", "kind", "name", "uid"] as const) {
      if (!ref?.[k]) causes.push(field.required(`${path}.${k}`, `${k} must not be empty`));
    }
    if (ref?.controller === true) controllers++;
  });
  if (controllers > 1) {
    causes.push(
      field.invalid(
        "metadata.ownerReferences",
        meta.ownerReferences,
        "Only one reference can have Controller set to true",
      ),
    );
  }
  (meta.finalizers ?? []).forEach((f, i) => {
    const path = `metadata.finalizers[${i}]`;
    if (typeof f !== "string") causes.push(field.typeInvalid(path, f, "must be a string"));
    else {
      const bad = checkQualifiedName(f);
      if (bad) causes.push(field.invalid(path, f, bad));
    }
  });
  return causes;
}

/**
 * The immutability rules of `ValidateObjectMetaUpdate`: name, namespace, uid and
 * creationTimestamp never change; no finalizer may be added once deletion started.
 */
export function validateObjectMetaUpdate(meta: ObjectMeta, old: ObjectMeta): StatusCause[] {
  const causes: StatusCause[] = [];
  if (meta.name !== old.name) causes.push(field.immutable("metadata.name", meta.name));
  if ((meta.namespace ?? "") !== (old.namespace ?? "")) {
    causes.push(field.immutable("metadata.namespace", meta.namespace));
  }
  if (meta.uid !== old.uid) causes.push(field.immutable("metadata.uid", meta.uid));
  if (meta.creationTimestamp !== old.creationTimestamp) {
    causes.push(field.immutable("metadata.creationTimestamp", meta.creationTimestamp));
  }
  if ((meta.generation ?? 0) < (old.generation ?? 0)) {
    causes.push(field.invalid("metadata.generation", meta.generation, "must not be decremented"));
  }
  if (old.deletionTimestamp) {
    const had = new Set(old.finalizers ?? []);
    const added = (meta.finalizers ?? []).filter((f) => !had.has(f));
    if (added.length > 0) {
      causes.push(
        field.forbidden(
          "metadata.finalizers",
          `no new finalizers can be added if the object is being deleted, found new finalizers ${JSON.stringify(added)}`,
        ),
      );
    }
  }
  return causes;
}

/**
 * The metadata checks of an update: kube's generic ones (names as path segments, where the
 * kind's own validation checks no names or names of its own) and the immutability rules.
 */
export function validateMetaUpdate(
  object: KubeObject,
  old: KubeObject,
  rule: NameRule = "subdomain",
  namespaced: boolean,
): StatusCause[] {
  const meta = object.metadata ?? {};
  const named = rule === "subdomain" || rule === "label" ? rule : "path-segment";
  return [
    ...validateObjectMeta(meta, named, namespaced, object),
    ...validateObjectMetaUpdate(meta, old.metadata ?? {}),
  ];
}

/**
 * Throws kube's 422 Invalid for `object`, a `kind` stored as `storageApiVersion`, if there are
 * `causes`. kube names the object by its internal type, whose group is the one it is stored in
 * (an events.k8s.io Event is a core one).
 */
export function throwIfInvalid(
  kind: string,
  storageApiVersion: string,
  object: KubeObject,
  causes: StatusCause[],
): void {
  if (causes.length === 0) return;
  const { group } = parseApiVersion(storageApiVersion);
  const name = object.metadata?.name ?? object.metadata?.generateName ?? "";
  throw errors.invalid(kind, group, name, causes);
}
