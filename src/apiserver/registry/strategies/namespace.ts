import { errors, type KubeObject } from "../../../core/index.ts";
import { metaOf } from "../codec.ts";
import type { Strategy } from "../strategy.ts";
import { NAMESPACE_COLUMNS } from "./columns/core.ts";
import { arrayAt, child, rec, recordAt, stringAt } from "./util.ts";

/** The finalizer the namespace controller removes once a namespace is empty. */
export const KUBERNETES_FINALIZER = "kubernetes";
/** Namespaces that exist from the start. */
export const SYSTEM_NAMESPACES = ["default", "kube-system", "kube-public", "kube-node-lease"];
const UNDELETABLE = new Set(["default", "kube-system", "kube-public"]);

function specFinalizers(object: KubeObject): unknown[] {
  return arrayAt(recordAt(rec(object), "spec") ?? {}, "finalizers") ?? [];
}

/**
 * Namespaces: `kubernetes.io/metadata.name` label, `spec.finalizers: [kubernetes]`, phase
 * Active; deletion moves them to Terminating until both finalizer lists are empty; `/finalize`
 * changes only `spec.finalizers`.
 */
export const namespaceStrategy: Strategy = {
  nameRule: "label",
  returnDeletedObject: true,
  deletionTimestampOnly: true,
  defaults(object) {
    // kube's SetDefaults_Namespace: a named namespace is labelled with its name.
    const meta = metaOf(object);
    if (meta.name) meta.labels = { ...meta.labels, "kubernetes.io/metadata.name": meta.name };
  },
  prepareForCreate(object) {
    const o = rec(object);
    const meta = metaOf(object);
    meta.labels = { ...meta.labels, "kubernetes.io/metadata.name": meta.name ?? "" };
    const spec = child(o, "spec");
    const finalizers = (arrayAt(spec, "finalizers") ?? []).filter(
      (f) => f !== KUBERNETES_FINALIZER,
    );
    spec.finalizers = [...finalizers, KUBERNETES_FINALIZER];
    o.status = { phase: "Active" };
  },
  prepareForUpdate(object, old) {
    const o = rec(object);
    const meta = metaOf(object);
    meta.labels = { ...meta.labels, "kubernetes.io/metadata.name": meta.name ?? "" };
    o.spec = rec(old).spec;
    o.status = rec(old).status;
  },
  prepareSubresource(subresource, body, stored) {
    if (subresource !== "finalize") return body;
    const spec = child(rec(stored), "spec");
    spec.finalizers = arrayAt(recordAt(rec(body), "spec") ?? {}, "finalizers") ?? [];
    return stored;
  },
  validate(object) {
    return specFinalizers(object).flatMap((f, i) =>
      typeof f === "string" && f !== ""
        ? []
        : [
            {
              reason: "FieldValueInvalid",
              field: `spec.finalizers[${i}]`,
              message: `Invalid value: ${JSON.stringify(f)}: must be a non-empty string`,
            },
          ],
    );
  },
  blocksDeletion(object) {
    return specFinalizers(object).length > 0;
  },
  beforeDelete(object) {
    const name = object.metadata?.name ?? "";
    if (UNDELETABLE.has(name)) {
      throw errors.forbidden(
        { group: "", resource: "namespaces" },
        name,
        "this namespace may not be deleted",
      );
    }
  },
  markDeleting(object) {
    child(rec(object), "status").phase = "Terminating";
  },
  fieldSelectors: ["status.phase"],
  fields: (object) => ({ "status.phase": stringAt(object, "status.phase") }),
  columns: NAMESPACE_COLUMNS,
};
