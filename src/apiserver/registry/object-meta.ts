import {
  checkDns1123Label,
  checkDns1123Subdomain,
  checkLabelValue,
  checkQualifiedName,
  type ObjectMeta,
  type StatusCause,
} from "../../core/index.ts";
import { field } from "./field-errors.ts";

/** How a kind's names are validated. */
export type NameRule = "subdomain" | "label" | "path-segment";

const MAX_ANNOTATIONS_BYTES = 256 * 1024;

/** Checks a name (or a generateName prefix, which may end in `-` and be shorter). */
export function checkName(rule: NameRule, name: string, prefix = false): string | undefined {
  const value = prefix ? `${name.replace(/-+$/, "")}a` : name;
  if (rule === "path-segment") {
    if (name === "." || name === "..") return `may not be '${name}'`;
    if (/[/%]/.test(name)) return "may not contain '/' or '%'";
    return undefined;
  }
  return rule === "label" ? checkDns1123Label(value) : checkDns1123Subdomain(value);
}

/**
 * Validates the generic parts of `metadata` as apimachinery's `ValidateObjectMeta` does: name
 * (or generateName), labels, annotations, finalizers and ownerReferences.
 */
export function validateObjectMeta(
  meta: ObjectMeta,
  rule: NameRule,
  namespaced: boolean,
): StatusCause[] {
  const causes: StatusCause[] = [];
  if (!meta.name && !meta.generateName) {
    causes.push(field.required("metadata.name", "name or generateName is required"));
  }
  if (meta.name) {
    const bad = checkName(rule, meta.name);
    if (bad) causes.push(field.invalid("metadata.name", meta.name, bad));
  }
  if (meta.generateName && !meta.name) {
    const bad = checkName(rule, meta.generateName, true);
    if (bad) causes.push(field.invalid("metadata.generateName", meta.generateName, bad));
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
  (meta.finalizers ?? []).forEach((f, i) => {
    const path = `metadata.finalizers[${i}]`;
    if (typeof f !== "string") causes.push(field.typeInvalid(path, f, "must be a string"));
    else {
      const bad = checkQualifiedName(f);
      if (bad) causes.push(field.invalid(path, f, bad));
    }
  });
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
