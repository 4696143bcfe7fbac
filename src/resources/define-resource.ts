import type { TSchema } from "typebox";
import {
  checkDns1123Subdomain,
  errorMessage,
  errors,
  InvalidOptionError,
  type KubeObject,
  type StatusCause,
} from "../core/index.ts";
import type {
  CrdManifest,
  CrdVersion,
  CustomObjectOf,
  CustomResourceDefinitionOf,
  DefineResourceInit,
  PrinterColumn,
  VersionInit,
} from "./custom-resource.ts";
import { fromTypeBox } from "./from-typebox.ts";
import type { OpenApiSchema } from "./openapi-schema.ts";
import { resourceDefinition } from "./resource-definition.ts";
import { compileSchema } from "./schema-validator.ts";
import { structuralProblems } from "./structural-schema.ts";

/**
 * Defines a custom resource kind from one schema: the TypeScript type of its objects, its CRD
 * manifest (`crd()`), and validation with field paths (`validate`), all from the TypeBox
 * schemas of `spec` and `status`.
 *
 * ```ts
 * export const User = defineResource({
 *   group: "example.com", version: "v1", kind: "User", plural: "users", scope: "Cluster",
 *   spec: Type.Object({ displayName: Type.String({ minLength: 1 }) }),
 *   status: Type.Object({ namespace: Type.Optional(Type.String()) }),
 * });
 * export type User = ResourceOf<typeof User>;
 * ```
 *
 * Anything Kubernetes would refuse — a plural that is not a DNS label, a group without a dot,
 * a schema that is not structural, a list or map extension used as kube does not allow, a
 * `default` that its own schema rejects, a status subresource without a status schema — throws
 * an {@link InvalidOptionError} here, naming the option (for a schema, the path of the node)
 * and why.
 */
export function defineResource<
  Spec extends TSchema,
  Status extends TSchema | undefined = undefined,
  Others extends Record<string, VersionInit> = Record<never, VersionInit>,
>(
  init: DefineResourceInit<Spec, Status, Others>,
): CustomResourceDefinitionOf<CustomObjectOf<Spec, Status>, Others> {
  const owner = `defineResource(${init.kind ?? "?"})`;
  checkNames(owner, init);
  const versions: [string, VersionInit][] = [
    [init.version, init],
    ...Object.entries(init.otherVersions ?? {}),
  ];
  const built = new Map<string, BuiltVersion>();
  for (const [name, v] of versions) {
    const where = name === init.version ? "" : `otherVersions.${name}.`;
    if (name !== init.version) checkVersionName(owner, `otherVersions.${name}`, name);
    if (built.has(name))
      throw new InvalidOptionError(
        owner,
        "otherVersions",
        name,
        "must not repeat the main version",
      );
    built.set(name, buildVersion(owner, where, name, name === init.version, v));
  }
  const manifest = (): CrdManifest => ({
    apiVersion: "apiextensions.k8s.io/v1",
    kind: "CustomResourceDefinition",
    metadata: { name: `${init.plural}.${init.group}` },
    spec: {
      group: init.group,
      names: {
        kind: init.kind,
        listKind: init.listKind ?? `${init.kind}List`,
        plural: init.plural,
        singular: init.singular ?? init.kind.toLowerCase(),
        ...(init.shortNames?.length ? { shortNames: [...init.shortNames] } : {}),
        ...(init.categories?.length ? { categories: [...init.categories] } : {}),
      },
      scope: init.scope ?? "Namespaced",
      versions: [...built.values()].map((b) => structuredClone(b.crdVersion)),
    },
  });
  const definitions = new Map<string, CustomResourceDefinitionOf<KubeObject>>();
  for (const [name, b] of built) {
    definitions.set(
      name,
      makeDefinition(init, b, manifest, (v) => definitions.get(v)),
    );
  }
  return definitions.get(init.version) as unknown as CustomResourceDefinitionOf<
    CustomObjectOf<Spec, Status>,
    Others
  >;
}

interface BuiltVersion {
  name: string;
  schema: OpenApiSchema;
  crdVersion: CrdVersion;
  printerColumns: PrinterColumn[];
}

const DNS1035_LABEL = /^[a-z]([-a-z0-9]*[a-z0-9])?$/;
const PRINTER_TYPES = new Set(["string", "integer", "number", "boolean", "date"]);

const CAMEL_CASE = /^[A-Z][A-Za-z0-9]*$/;

/** Throws the {@link InvalidOptionError} naming `option`, `value` and `why`, unless `ok`. */
function demand(owner: string, option: string, value: unknown, ok: boolean, why: string): void {
  if (!ok) throw new InvalidOptionError(owner, option, value, why);
}

function label(owner: string, option: string, value: unknown): string {
  if (typeof value === "string" && value.length <= 63 && DNS1035_LABEL.test(value)) return value;
  throw new InvalidOptionError(
    owner,
    option,
    value,
    "must be a lowercase DNS label: at most 63 lowercase letters, digits and '-', starting with a letter and ending with a letter or digit",
  );
}

function checkVersionName(owner: string, option: string, value: string): void {
  label(owner, option, value);
}

function checkNames(
  owner: string,
  init: DefineResourceInit<TSchema, TSchema | undefined, Record<string, VersionInit>>,
): void {
  const { group, kind, listKind, scope } = init;
  demand(
    owner,
    "group",
    group,
    typeof group === "string" && checkDns1123Subdomain(group) === undefined && group.includes("."),
    "must be a DNS subdomain with at least one dot (example.com)",
  );
  checkVersionName(owner, "version", init.version);
  demand(
    owner,
    "kind",
    kind,
    typeof kind === "string" && CAMEL_CASE.test(kind) && kind.length <= 63,
    "must be CamelCase letters and digits starting with a capital (User)",
  );
  label(owner, "plural", init.plural);
  if (init.singular !== undefined) label(owner, "singular", init.singular);
  if (listKind !== undefined) {
    const ok = CAMEL_CASE.test(listKind) && listKind !== kind;
    demand(owner, "listKind", listKind, ok, "must be CamelCase and differ from kind");
  }
  for (const [i, s] of (init.shortNames ?? []).entries()) label(owner, `shortNames[${i}]`, s);
  for (const [i, s] of (init.categories ?? []).entries()) label(owner, `categories[${i}]`, s);
  if (scope !== undefined) {
    const ok = scope === "Namespaced" || scope === "Cluster";
    demand(owner, "scope", scope, ok, 'must be "Namespaced" or "Cluster"');
  }
}

function buildVersion(
  owner: string,
  where: string,
  name: string,
  storage: boolean,
  v: VersionInit,
): BuiltVersion {
  const convert = (schema: TSchema, field: string): OpenApiSchema => {
    try {
      return fromTypeBox(schema, field);
    } catch (e) {
      throw new InvalidOptionError(
        owner,
        `${where}${field}`,
        "(schema)",
        `is not a valid CRD schema: ${errorMessage(e)}`,
      );
    }
  };
  if (v.spec === undefined)
    throw new InvalidOptionError(owner, `${where}spec`, undefined, "must be a TypeBox schema");
  const spec = convert(v.spec, "spec");
  const status = v.status === undefined ? undefined : convert(v.status, "status");
  if (spec.type !== "object")
    throw new InvalidOptionError(owner, `${where}spec`, spec.type, "must be an object schema");
  const wantsStatus = v.subresources?.status ?? status !== undefined;
  if (wantsStatus && status === undefined) {
    throw new InvalidOptionError(
      owner,
      `${where}subresources.status`,
      true,
      "needs a status schema",
    );
  }
  const schema: OpenApiSchema = {
    type: "object",
    properties: {
      apiVersion: { type: "string" },
      kind: { type: "string" },
      metadata: { type: "object" },
      spec,
      ...(status === undefined ? {} : { status }),
    },
    required: ["spec"],
  };
  const problems: StatusCause[] = structuralProblems(schema, "openAPIV3Schema");
  if (problems.length > 0) {
    const p = problems[0]!;
    throw new InvalidOptionError(
      owner,
      `${where}${p.field ?? "spec"}`,
      "(schema)",
      `would be refused by kube-apiserver: ${p.message}`,
    );
  }
  const printerColumns = checkColumns(owner, where, v.printerColumns ?? []);
  const scale = v.subresources?.scale;
  if (scale !== undefined) {
    for (const [field, prefix] of [
      ["specReplicasPath", ".spec."],
      ["statusReplicasPath", ".status."],
    ] as const) {
      const path = scale[field];
      const ok = path?.startsWith(prefix) === true;
      demand(owner, `${where}subresources.scale.${field}`, path, ok, `must start with "${prefix}"`);
    }
  }
  const deprecated = v.deprecated ?? false;
  const crdVersion: CrdVersion = {
    name,
    served: v.served ?? true,
    storage,
    ...(deprecated === false ? {} : { deprecated: true }),
    ...(typeof deprecated === "string" ? { deprecationWarning: deprecated } : {}),
    schema: { openAPIV3Schema: schema },
    ...(wantsStatus || scale
      ? {
          subresources: {
            ...(wantsStatus ? { status: {} } : {}),
            ...(scale ? { scale: { ...scale } } : {}),
          },
        }
      : {}),
    ...(printerColumns.length > 0 ? { additionalPrinterColumns: printerColumns } : {}),
  };
  if (storage && crdVersion.served === false) {
    throw new InvalidOptionError(owner, "served", false, "must be true for the storage version");
  }
  return { name, schema, crdVersion, printerColumns };
}

function checkColumns(
  owner: string,
  where: string,
  columns: readonly PrinterColumn[],
): PrinterColumn[] {
  const names = new Set<string>();
  const out = columns.map((c, i) => {
    const option = `${where}printerColumns[${i}]`;
    if (!c.name) throw new InvalidOptionError(owner, `${option}.name`, c.name, "must not be empty");
    if (names.has(c.name))
      throw new InvalidOptionError(owner, `${option}.name`, c.name, "must be unique");
    names.add(c.name);
    if (!c.jsonPath?.startsWith("."))
      throw new InvalidOptionError(owner, `${option}.jsonPath`, c.jsonPath, 'must start with "."');
    if (!PRINTER_TYPES.has(c.type)) {
      throw new InvalidOptionError(
        owner,
        `${option}.type`,
        c.type,
        'must be one of "string", "integer", "number", "boolean", "date"',
      );
    }
    return { ...c };
  });
  // kubectl shows Age for every kind; with printer columns, a CRD must ask for it.
  if (out.length > 0 && !out.some((c) => c.jsonPath === ".metadata.creationTimestamp")) {
    out.push({ name: "Age", type: "date", jsonPath: ".metadata.creationTimestamp" });
  }
  return out;
}

function makeDefinition(
  init: DefineResourceInit<TSchema, TSchema | undefined, Record<string, VersionInit>>,
  b: BuiltVersion,
  manifest: () => CrdManifest,
  at: (version: string) => CustomResourceDefinitionOf<KubeObject> | undefined,
): CustomResourceDefinitionOf<KubeObject> {
  const base = resourceDefinition({ ...init, version: b.name });
  const validator = compileSchema(b.schema);
  const apiVersion = `${init.group}/${b.name}`;
  const def: CustomResourceDefinitionOf<KubeObject> = {
    ...base,
    schema: b.schema,
    printerColumns: b.printerColumns,
    statusSubresource: b.crdVersion.subresources?.status !== undefined,
    scale: b.crdVersion.subresources?.scale,
    storage: b.crdVersion.storage,
    served: b.crdVersion.served,
    deprecated: b.crdVersion.deprecationWarning ?? b.crdVersion.deprecated ?? false,
    crd: manifest,
    validate: (obj) => validator(obj),
    parse(obj) {
      const causes = validator(obj);
      if (causes.length > 0) {
        const name = (obj as KubeObject | undefined)?.metadata?.name ?? "";
        throw errors.invalid(init.kind, init.group, name, causes);
      }
      return obj as KubeObject;
    },
    object: (o) => ({ ...o, apiVersion, kind: init.kind }) as KubeObject,
    at: ((version: string) => {
      const d = at(version);
      if (d === undefined)
        throw new RangeError(`${init.kind} has no version ${JSON.stringify(version)}`);
      return d;
    }) as CustomResourceDefinitionOf<KubeObject>["at"],
  };
  return Object.freeze(def);
}
