import type { KubeObject, StatusCause } from "../../core/index.ts";
import { checkDns1035Label, checkDns1123Subdomain, deepEqual } from "../../core/index.ts";
import { type OpenApiSchema, structuralProblems } from "../../resources/index.ts";
import { field } from "../registry/field-errors.ts";
import { checkName } from "../registry/object-meta.ts";
import {
  arrayAt,
  child,
  type Json,
  rec,
  recordAt,
  setDefault,
  stringAt,
} from "../registry/strategies/util.ts";
import type { Strategy } from "../registry/strategy.ts";
import { versionFieldProblems } from "./crd-version-fields.ts";
import { validateSelectableFields } from "./selectable-fields.ts";

/**
 * kube's checks of a CRD's names (`ValidateCustomResourceDefinitionNames`): DNS-1035 labels,
 * the kinds in any case.
 */
function namesCauses(names: Json): StatusCause[] {
  const causes: StatusCause[] = [];
  const label = (path: string, v: unknown, lower = false) => {
    if (typeof v !== "string" || v === "") return;
    const bad = checkDns1035Label(lower ? v.toLowerCase() : v);
    const mixed = lower ? "may have mixed case, but should otherwise match: " : "";
    if (bad) causes.push(field.invalid(`spec.names.${path}`, v, mixed + bad));
  };
  label("plural", names.plural);
  label("singular", names.singular);
  label("kind", names.kind, true);
  label("listKind", names.listKind, true);
  for (const [i, s] of (arrayAt(names, "shortNames") ?? []).entries()) label(`shortNames[${i}]`, s);
  if (typeof names.kind === "string" && names.kind !== "" && names.kind === names.listKind)
    causes.push(
      field.invalid("spec.names.listKind", names.listKind, "kind and listKind may not be the same"),
    );
  for (const [i, c] of (arrayAt(names, "categories") ?? []).entries()) label(`categories[${i}]`, c);
  return causes;
}

/** The finalizer that keeps a CRD until its custom resources are deleted. */
export const CRD_CLEANUP_FINALIZER = "customresourcecleanup.apiextensions.k8s.io";

/** Defaults of `spec.names` and `spec.conversion`. */
function defaultCrd(object: KubeObject): void {
  const spec = child(rec(object), "spec");
  const names = child(spec, "names");
  if (typeof names.kind === "string") {
    setDefault(names, "singular", names.kind.toLowerCase());
    setDefault(names, "listKind", `${names.kind}List`);
  }
  setDefault(spec, "conversion", { strategy: "None" });
  for (const v of arrayAt(spec, "versions") ?? []) {
    if (v && typeof v === "object") setDefault(v as Json, "served", true);
  }
}

/** The name of the version marked `storage`, if one is. */
function storageVersionOf(object: KubeObject): string | undefined {
  const versions = arrayAt(recordAt(rec(object), "spec") ?? {}, "versions") ?? [];
  const name = (versions.find((v) => (v as Json)?.storage === true) as Json | undefined)?.name;
  return typeof name === "string" ? name : undefined;
}

/**
 * CustomResourceDefinitions: name `<plural>.<group>`, names, scope, exactly one storage
 * version, a structural schema per version; group and scope are immutable. The cleanup
 * finalizer is added as deletion starts; status is written only by the CRD controller (and
 * `storedVersions` by the strategy, as kube's does).
 */
export const crdStrategy: Strategy = {
  // As kube's CRD validation names them: a DNS subdomain, and `<plural>.<group>` — a generateName
  // too, so that a CRD created with one fails on both fields.
  nameRule(name, prefix, object) {
    const problems = checkName("subdomain", name, prefix);
    const [plural, group] = ["spec.names.plural", "spec.group"].map((k) => stringAt(object, k));
    if (name !== `${plural ?? ""}.${group ?? ""}`)
      problems.push('must be spec.names.plural+"."+spec.group');
    return problems;
  },
  statusSubresource: true,
  allowUnconditionalUpdate: false,
  trackGeneration: true,
  defaults: defaultCrd,
  prepareForCreate(object) {
    const storage = storageVersionOf(object);
    rec(object).status = {
      conditions: null,
      acceptedNames: { plural: "", kind: "" },
      storedVersions: storage === undefined ? [] : [storage],
    };
  },
  prepareForUpdate(object) {
    // A new storage version joins the stored ones, as kube's strategy records it.
    const storage = storageVersionOf(object);
    const status = child(rec(object), "status");
    const stored = (arrayAt(status, "storedVersions") ?? []) as unknown[];
    if (storage !== undefined && !stored.includes(storage))
      status.storedVersions = [...stored, storage];
  },
  // kube's CRD registry adds it as the deletion starts; the CRD controller removes it once the
  // custom resources are gone.
  deletionFinalizers: [CRD_CLEANUP_FINALIZER],
  deletionTimestampOnly: true,
  validate(object) {
    const causes: StatusCause[] = [];
    const spec = recordAt(rec(object), "spec") ?? {};
    const group = spec.group;
    const names = recordAt(spec, "names") ?? {};
    if (typeof group !== "string" || group === "") causes.push(field.required("spec.group"));
    else {
      const bad = checkDns1123Subdomain(group);
      if (bad) causes.push(field.invalid("spec.group", group, bad));
      else if (!group.includes("."))
        causes.push(field.invalid("spec.group", group, "should be a domain with at least one dot"));
    }
    if (typeof names.plural !== "string" || names.plural === "")
      causes.push(field.required("spec.names.plural"));
    if (typeof names.kind !== "string" || names.kind === "")
      causes.push(field.required("spec.names.kind"));
    causes.push(...namesCauses(names));
    if (spec.scope !== "Namespaced" && spec.scope !== "Cluster")
      causes.push(field.notSupported("spec.scope", spec.scope, ["Cluster", "Namespaced"]));
    const versions = arrayAt(spec, "versions") ?? [];
    if (versions.length === 0)
      causes.push(
        field.required("spec.versions", "must have exactly one version marked as storage version"),
      );
    const storage = versions.filter((v) => (v as Json)?.storage === true).length;
    if (versions.length > 0 && storage !== 1) {
      causes.push(
        field.invalid(
          "spec.versions",
          versions.map((v) => (v as Json)?.name),
          "must have exactly one version marked as storage version",
        ),
      );
    }
    const seen = new Set<unknown>();
    // kube validates its internal form, where a schema every version shares is moved to
    // spec.validation: its problems are reported there, once.
    const schemaOf = (v: unknown) =>
      recordAt(recordAt(v as Json, "schema") ?? {}, "openAPIV3Schema");
    const shared =
      versions.length > 0 && versions.every((v) => deepEqual(schemaOf(v), schemaOf(versions[0])))
        ? schemaOf(versions[0])
        : undefined;
    if (shared !== undefined) {
      causes.push(
        ...structuralProblems(shared as OpenApiSchema, "spec.validation.openAPIV3Schema"),
      );
    }
    versions.forEach((raw, i) => {
      const v = (raw ?? {}) as Json;
      const p = `spec.versions[${i}]`;
      const badName = checkDns1035Label(typeof v.name === "string" ? v.name : "");
      if (badName) causes.push(field.invalid(`${p}.name`, v.name, badName));
      if (seen.has(v.name)) causes.push(field.duplicate(`${p}.name`, v.name));
      seen.add(v.name);
      const schema = recordAt(recordAt(v, "schema") ?? {}, "openAPIV3Schema");
      if (schema === undefined)
        causes.push(field.required(`${p}.schema.openAPIV3Schema`, "schemas are required"));
      else if (shared === undefined)
        causes.push(...structuralProblems(schema as OpenApiSchema, `${p}.schema.openAPIV3Schema`));
      causes.push(
        ...validateSelectableFields(
          v.selectableFields,
          schema as OpenApiSchema | undefined,
          `${p}.selectableFields`,
        ),
      );
    });
    causes.push(...versionFieldProblems(versions));
    const strategy = stringAt(spec, "conversion.strategy");
    if (strategy !== undefined && strategy !== "None")
      causes.push(field.notSupported("spec.conversion.strategy", strategy, ["None"]));
    if (spec.preserveUnknownFields === true)
      causes.push(field.invalid("spec.preserveUnknownFields", true, "must be false in v1"));
    return causes;
  },
  markDeleting(object) {
    // As kube's CRD registry does when deletion starts; the CRD controller takes it from here.
    const status = child(rec(object), "status");
    const conditions = (arrayAt(status, "conditions") ?? []).filter(
      (c) => (c as Json)?.type !== "Terminating",
    );
    conditions.push({
      type: "Terminating",
      status: "True",
      reason: "InstanceDeletionPending",
      message:
        "CustomResourceDefinition marked for deletion; CustomResource deletion will begin soon",
      lastTransitionTime: object.metadata?.deletionTimestamp,
    });
    status.conditions = conditions;
  },
  validateUpdate(object, old) {
    const causes: StatusCause[] = [];
    for (const k of ["spec.group", "spec.scope"]) {
      if (stringAt(object, k) !== stringAt(old, k))
        causes.push(field.immutable(k, stringAt(object, k)));
    }
    return causes;
  },
};
