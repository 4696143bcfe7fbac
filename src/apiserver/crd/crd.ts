import type { Clock, KubeObject } from "../../core/index.ts";
import {
  applyDefaults,
  compileSchema,
  type OpenApiSchema,
  prune,
  type ResourceDefinition,
  resourceDefinition,
} from "../../resources/index.ts";
import { crdType } from "../managedfields/crd-schema.ts";
import { FieldManager } from "../managedfields/field-manager.ts";
import type { TypeNode } from "../managedfields/schema.ts";
import { decodeFromStorage } from "../registry/codec.ts";
import { omitEmptyMeta } from "../registry/omit-empty.ts";
import type { CustomResourceInfo, PrinterColumn, ScaleSubresource } from "../registry/registry.ts";
import { customScale } from "../registry/scale.ts";
import type { StoreOptions } from "../registry/store-options.ts";
import { rec } from "../registry/strategies/util.ts";
import type { Strategy } from "../registry/strategy.ts";
import type { KeyValue } from "../storage/storage.ts";
import { jsonEncoder, type WatchEncoder } from "../watchcache/cache-event.ts";
import type { CrdNames } from "./crd-names.ts";
import { type SelectableField, selectableValues, selectorName } from "./selectable-fields.ts";

/** One entry of `spec.versions`. */
export interface CrdVersion {
  name: string;
  served?: boolean;
  storage?: boolean;
  deprecated?: boolean;
  deprecationWarning?: string;
  schema?: { openAPIV3Schema?: OpenApiSchema };
  subresources?: {
    status?: object;
    scale?: { specReplicasPath: string; statusReplicasPath: string; labelSelectorPath?: string };
  };
  additionalPrinterColumns?: PrinterColumn[];
  selectableFields?: SelectableField[];
}

/** A condition of a CRD's status. */
export interface CrdCondition {
  type: string;
  status: string;
  reason: string;
  message: string;
  lastTransitionTime: string;
}

/** A CRD's status, as far as the server writes it. */
export interface CrdStatus {
  conditions?: CrdCondition[];
  acceptedNames?: Partial<CrdNames> & { plural?: string; kind?: string };
  storedVersions?: string[];
}

/** A CustomResourceDefinition as stored (validated by the CRD strategy on write). */
export interface Crd extends KubeObject {
  spec: {
    group: string;
    names: {
      plural: string;
      singular?: string;
      kind: string;
      listKind?: string;
      shortNames?: string[];
      categories?: string[];
    };
    scope: "Namespaced" | "Cluster";
    versions: CrdVersion[];
  };
  status?: CrdStatus;
}

/** The condition of `type`, if the CRD has one. */
export function conditionOf(crd: Crd, type: string): CrdCondition | undefined {
  return crd.status?.conditions?.find((c) => c.type === type);
}

/**
 * `status` with condition `type` set; its lastTransitionTime moves only when its status does
 * (kube's SetCRDCondition). Other conditions keep their place.
 */
export function setCondition(
  status: CrdStatus,
  c: { type: string; status: string; reason: string; message: string; now: string },
): CrdStatus {
  const conditions = [...(status.conditions ?? [])];
  const i = conditions.findIndex((o) => o.type === c.type);
  const prev = i < 0 ? undefined : conditions[i];
  const next: CrdCondition = {
    type: c.type,
    status: c.status,
    reason: c.reason,
    message: c.message,
    lastTransitionTime:
      prev !== undefined && prev.status === c.status ? prev.lastTransitionTime : c.now,
  };
  if (i < 0) conditions.push(next);
  else conditions[i] = next;
  return { ...status, conditions };
}

/** What the registry needs to serve one version of a CRD. */
export interface VersionSpec {
  readonly def: ResourceDefinition;
  readonly strategy: Strategy;
  readonly prefix: string;
  /** The version's selectable fields (selector names). */
  readonly selectable: readonly string[];
  /** What `Registry.install` takes besides the verbs. */
  readonly serving: {
    subresources: string[];
    strategicMerge: false;
    encoder: WatchEncoder;
    custom: CustomResourceInfo;
    scale?: ScaleSubresource;
  } & Pick<StoreOptions, "storageApiVersion" | "validate" | "normalize" | "decode">;
  /** Server-side apply's view of the version: its schema, and the CRD's other versions. */
  readonly fieldManager: FieldManager;
}

/**
 * How each served version of `crd` is served under `names`: its definition, strategy (generation
 * tracking, the status subresource, no unconditional updates, selectable fields), storage
 * prefix and schema handling — the same validation, pruning and defaulting as the client side
 * of kontroller/resources. Every version's strategy computes the values of all versions'
 * selectable fields, since the versions share one watch cache; each allows only its own.
 */
const OPEN_SCHEMA: OpenApiSchema = { type: "object", "x-kubernetes-preserve-unknown-fields": true };

/** The schema of the CRD's storage version: what stored custom resources are read with. */
export function storageSchemaOf(crd: Crd): OpenApiSchema {
  const v = crd.spec.versions.find((x) => x.storage) ?? crd.spec.versions[0];
  return v?.schema?.openAPIV3Schema ?? OPEN_SCHEMA;
}

export function crdVersionSpecs(
  crd: Crd,
  names: CrdNames,
  terminating: boolean,
  clock: Clock,
): VersionSpec[] {
  const { group, scope } = crd.spec;
  const plural = crd.spec.names.plural;
  const prefix = `/registry/${group}/${plural}/`;
  const storageVersion =
    crd.spec.versions.find((v) => v.storage)?.name ?? crd.spec.versions[0]?.name ?? "v1";
  // As kube reads custom resources from etcd: pruned and defaulted with the storage schema, so a
  // default added to the CRD shows on objects stored before it.
  const storageSchema = storageSchemaOf(crd);
  const decode = (kv: KeyValue): KubeObject => {
    const o = decodeFromStorage(kv);
    prune(storageSchema, o);
    applyDefaults(storageSchema, o);
    return o;
  };
  const allSelectable = [
    ...new Map(
      crd.spec.versions.flatMap((v) => v.selectableFields ?? []).map((f) => [f.jsonPath, f]),
    ).values(),
  ];
  // Server-side apply's view of every version the CRD lists (served or not): the same fields
  // (conversion "None" only renames apiVersion), each with its own schema.
  const types = new Map<string, TypeNode>();
  const typeAt = (apiVersion: string): TypeNode | undefined => {
    const v = crd.spec.versions.find((x) => `${group}/${x.name}` === apiVersion);
    if (v === undefined) return undefined;
    let t = types.get(v.name);
    if (t === undefined) {
      t = crdType(v.schema?.openAPIV3Schema);
      types.set(v.name, t);
    }
    return t;
  };
  const same = (o: Record<string, unknown>) => o;
  return crd.spec.versions
    .filter((v) => v.served !== false)
    .map((v) => {
      const def = resourceDefinition({
        group,
        version: v.name,
        kind: names.kind,
        plural,
        ...(names.singular ? { singular: names.singular } : {}),
        scope,
        ...(names.listKind ? { listKind: names.listKind } : {}),
        shortNames: [...names.shortNames],
        categories: [...names.categories],
      });
      const schema: OpenApiSchema = v.schema?.openAPIV3Schema ?? OPEN_SCHEMA;
      const validator = compileSchema(schema);
      const hasStatus = v.subresources?.status !== undefined;
      const selectable = (v.selectableFields ?? []).map(selectorName);
      const strategy: Strategy = {
        trackGeneration: true,
        statusSubresource: hasStatus,
        allowUnconditionalUpdate: false,
        // With the status subresource, a create cannot set status.
        ...(hasStatus ? { prepareForCreate: (o: KubeObject) => void delete rec(o).status } : {}),
        fieldSelectors: selectable,
        ...(allSelectable.length > 0
          ? { fields: (o: KubeObject) => selectableValues(allSelectable, o) }
          : {}),
      };
      const apiVersion = `${group}/${v.name}`;
      const encoder: WatchEncoder =
        v.name === storageVersion
          ? jsonEncoder
          : { id: apiVersion, encode: (o) => JSON.stringify({ ...o, apiVersion }) };
      return {
        def,
        strategy,
        prefix,
        selectable,
        fieldManager: new FieldManager({
          apiVersion,
          kind: names.kind,
          type: typeAt(apiVersion)!,
          views: (other) => {
            const type = typeAt(other);
            return type === undefined ? undefined : { type, toVersion: same, fromVersion: same };
          },
          statusSubresource: hasStatus,
          clock,
        }),
        serving: {
          subresources: [
            ...(v.subresources?.status ? ["status"] : []),
            ...(v.subresources?.scale ? ["scale"] : []),
          ],
          ...(v.subresources?.scale ? { scale: customScale(v.subresources.scale) } : {}),
          strategicMerge: false,
          encoder,
          storageApiVersion: `${group}/${storageVersion}`,
          decode,
          validate: (o: KubeObject) => validator(o),
          normalize: (o: KubeObject) => {
            const dropped = prune(schema, o);
            applyDefaults(schema, o);
            omitEmptyMeta(o);
            return dropped;
          },
          custom: {
            printerColumns: v.additionalPrinterColumns ?? [],
            schema,
            storageVersion,
            ...(terminating ? { terminating } : {}),
            ...(v.deprecated
              ? {
                  deprecationWarning:
                    v.deprecationWarning ?? `${group}/${v.name} ${names.kind} is deprecated`,
                }
              : {}),
          },
        },
      };
    });
}
