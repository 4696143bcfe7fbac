import {
  errors,
  FieldSelector,
  type KubeObject,
  LabelSelector,
  parseLabelSelector,
} from "../../core/index.ts";
import {
  applyDefaults,
  compileSchema,
  customResourceDefinitions,
  type OpenApiSchema,
  prune,
  resourceDefinition,
} from "../../resources/index.ts";
import type { ScaleHandler } from "../http/resource-handler.ts";
import { metaOf } from "../registry/codec.ts";
import { ALL_VERBS, type Registry, type ServedResource } from "../registry/registry.ts";
import type { Store } from "../registry/store.ts";
import { type Json, rec, recordAt } from "../registry/strategies/util.ts";
import type { Strategy } from "../registry/strategy.ts";
import { jsonEncoder, type WatchEncoder } from "../watchcache/cache-event.ts";
import type { CacheWatcher } from "../watchcache/cache-watcher.ts";
import { CRD_CLEANUP_FINALIZER, crdStrategy } from "./crd-strategy.ts";
import { evaluateJsonPath } from "./json-path.ts";

const CRD_PREFIX = "/registry/apiextensions.k8s.io/customresourcedefinitions/";

interface CrdVersion {
  name: string;
  served?: boolean;
  storage?: boolean;
  schema?: { openAPIV3Schema?: OpenApiSchema };
  subresources?: {
    status?: object;
    scale?: { specReplicasPath: string; statusReplicasPath: string; labelSelectorPath?: string };
  };
  additionalPrinterColumns?: {
    name: string;
    type: string;
    format?: string;
    description?: string;
    priority?: number;
    jsonPath: string;
  }[];
}

interface Crd extends KubeObject {
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
  status?: Json;
}

function condition(type: string, reason: string, message: string, now: string) {
  return { type, status: "True", reason, message, lastTransitionTime: now };
}

/**
 * Serves custom resources for CustomResourceDefinitions, as apiextensions-apiserver's
 * controllers do: it follows the CRD watch cache; for each CRD it installs the served
 * versions (schema validation, pruning, defaults, status and scale subresources, printer
 * columns) and writes NamesAccepted/Established; for a deleting CRD it stops serving, deletes
 * the stored custom resources and removes the cleanup finalizer.
 *
 * Not done: webhook conversion, CEL rules, custom resources' own finalizers while their CRD is
 * being deleted (they are removed with it).
 */
export class CrdController {
  readonly #registry: Registry;
  #store: Store | undefined;
  #watcher: CacheWatcher | undefined;
  #loop: Promise<void> | undefined;
  /** Served plurals per CRD name, to uninstall versions that went away. */
  readonly #installed = new Map<string, { group: string; versions: string[]; plural: string }>();

  constructor(registry: Registry) {
    this.#registry = registry;
  }

  /** Serves `customresourcedefinitions` and starts following them. */
  async start(): Promise<void> {
    if (this.#store !== undefined) return;
    const served = await this.#registry.install(
      customResourceDefinitions,
      crdStrategy,
      CRD_PREFIX,
      {
        subresources: ["status"],
        verbs: ALL_VERBS,
        strategicMerge: true,
        encoder: jsonEncoder,
      },
    );
    this.#store = served.store;
    const watcher = served.store.watch({
      filter: { label: LabelSelector.everything(), field: FieldSelector.everything() },
    });
    this.#watcher = watcher;
    this.#loop = (async () => {
      for await (const lines of watcher) {
        for (const line of lines) {
          const event = JSON.parse(line.toString()) as { type: string; object: Crd };
          try {
            if (event.type === "DELETED") await this.#remove(event.object);
            else await this.#sync(event.object);
          } catch {
            // A CRD that cannot be served stays unserved; the next change retries.
          }
        }
      }
    })();
  }

  async close(): Promise<void> {
    this.#watcher?.close("cache-closed");
    await this.#loop;
  }

  /** The `/scale` subresource of custom resources. */
  readonly scale: ScaleHandler = {
    get: async (served, namespace, name) =>
      toScale(served, await served.store.get(namespace, name)),
    update: async (served, namespace, name, change, dryRun) => {
      const paths = served.custom?.scale;
      if (paths === undefined)
        throw errors.notFound({ group: served.def.group, resource: served.def.plural }, name);
      const updated = await served.store.guaranteedUpdate(
        namespace,
        name,
        (current) => {
          const scale = change(toScale(served, current)) as {
            spec?: { replicas?: unknown };
            metadata?: { resourceVersion?: string };
          };
          const replicas = scale?.spec?.replicas;
          if (!Number.isInteger(replicas) || (replicas as number) < 0) {
            throw errors.invalid("Scale", "autoscaling", name, [
              {
                reason: "FieldValueInvalid",
                field: "spec.replicas",
                message: `Invalid value: ${JSON.stringify(replicas)}: must be greater than or equal to 0`,
              },
            ]);
          }
          setPath(current, paths.specReplicasPath, replicas);
          if (scale.metadata?.resourceVersion)
            metaOf(current).resourceVersion = scale.metadata.resourceVersion;
          return current;
        },
        { dryRun },
      );
      return toScale(served, updated);
    },
  };

  async #sync(crd: Crd): Promise<void> {
    const name = crd.metadata?.name ?? "";
    if (crd.metadata?.deletionTimestamp) return this.#cleanup(crd);
    const conflict = this.#conflict(crd);
    await this.#install(crd);
    const now = `${new Date().toISOString().slice(0, 19)}Z`;
    const names = crd.spec.names;
    const accepted = {
      ...names,
      singular: names.singular ?? names.kind.toLowerCase(),
      listKind: names.listKind ?? `${names.kind}List`,
    };
    const storageVersion = crd.spec.versions.find((v) => v.storage)?.name;
    const old = (crd.status ?? {}) as {
      conditions?: {
        type: string;
        status: string;
        reason: string;
        message: string;
        lastTransitionTime: string;
      }[];
      storedVersions?: string[];
    };
    const keep = (c: ReturnType<typeof condition>) => {
      const prev = old.conditions?.find((o) => o.type === c.type);
      return prev && prev.status === c.status && prev.reason === c.reason
        ? { ...c, lastTransitionTime: prev.lastTransitionTime }
        : c;
    };
    const conditions = conflict
      ? [
          keep({
            ...condition("NamesAccepted", conflict.reason, conflict.message, now),
            status: "False",
          }),
          keep({
            ...condition("Established", "NotAccepted", "not all names are accepted", now),
            status: "False",
          }),
        ]
      : [
          keep(condition("NamesAccepted", "NoConflicts", "no conflicts found", now)),
          keep(
            condition(
              "Established",
              "InitialNamesAccepted",
              "the initial names have been accepted",
              now,
            ),
          ),
        ];
    const storedVersions = [
      ...new Set([...(old.storedVersions ?? []), ...(storageVersion ? [storageVersion] : [])]),
    ];
    const status = {
      conditions,
      acceptedNames: conflict
        ? ((old as Json).acceptedNames ?? { plural: "", kind: "" })
        : accepted,
      storedVersions,
    };
    if (JSON.stringify(status) === JSON.stringify(crd.status)) return;
    await this.#store!.guaranteedUpdate(
      "",
      name,
      (current) => ({ ...current, status }) as KubeObject,
      { subresource: "status" },
    );
  }

  #conflict(crd: Crd): { reason: string; message: string } | undefined {
    const names = crd.spec.names;
    for (const s of this.#registry.all()) {
      if (s.def.group !== crd.spec.group || s.custom === undefined) continue;
      const owner = this.#ownerOf(s);
      if (owner === crd.metadata?.name) continue;
      if (s.def.plural === names.plural)
        return { reason: "PluralConflict", message: `"${names.plural}" is already in use` };
      if (s.def.kind === names.kind)
        return { reason: "KindConflict", message: `"${names.kind}" is already in use` };
    }
    return undefined;
  }

  #ownerOf(s: ServedResource): string | undefined {
    for (const [name, info] of this.#installed)
      if (info.group === s.def.group && info.plural === s.def.plural) return name;
    return undefined;
  }

  async #install(crd: Crd): Promise<void> {
    const { group, names, scope } = crd.spec;
    const name = crd.metadata?.name ?? "";
    const prefix = `/registry/${group}/${names.plural}/`;
    const storageVersion =
      crd.spec.versions.find((v) => v.storage)?.name ?? crd.spec.versions[0]?.name ?? "v1";
    const served = crd.spec.versions.filter((v) => v.served !== false);
    for (const v of served) {
      const def = resourceDefinition({
        group,
        version: v.name,
        kind: names.kind,
        plural: names.plural,
        ...(names.singular ? { singular: names.singular } : {}),
        scope,
        ...(names.listKind ? { listKind: names.listKind } : {}),
        shortNames: names.shortNames ?? [],
        categories: names.categories ?? [],
      });
      const schema: OpenApiSchema = v.schema?.openAPIV3Schema ?? {
        type: "object",
        "x-kubernetes-preserve-unknown-fields": true,
      };
      // The same validation, pruning and defaulting as the client side of kontroller/resources.
      const validator = compileSchema(schema);
      const hasStatus = v.subresources?.status !== undefined;
      const strategy: Strategy = {
        trackGeneration: true,
        statusSubresource: hasStatus,
        allowUnconditionalUpdate: false,
        // With the status subresource, a create cannot set status.
        ...(hasStatus ? { prepareForCreate: (o: KubeObject) => void delete rec(o).status } : {}),
      };
      const apiVersion = `${group}/${v.name}`;
      const encoder: WatchEncoder =
        v.name === storageVersion
          ? jsonEncoder
          : { id: apiVersion, encode: (o) => JSON.stringify({ ...o, apiVersion }) };
      await this.#registry.install(def, strategy, prefix, {
        subresources: [
          ...(v.subresources?.status ? ["status"] : []),
          ...(v.subresources?.scale ? ["scale"] : []),
        ],
        verbs: ALL_VERBS,
        strategicMerge: false,
        encoder,
        storageApiVersion: `${group}/${storageVersion}`,
        validate: (o) => validator(o),
        normalize: (o, strict) => {
          const dropped = prune(schema, o);
          if (strict && dropped.length > 0) {
            throw errors.badRequest(
              `${names.kind} in version "${v.name}" cannot be handled as a ${names.kind}: strict decoding error: ${dropped.map((d) => `unknown field "${d}"`).join(", ")}`,
            );
          }
          applyDefaults(schema, o);
        },
        custom: {
          printerColumns: v.additionalPrinterColumns ?? [],
          ...(v.subresources?.scale ? { scale: v.subresources.scale } : {}),
          schema,
        },
      });
    }
    const previous = this.#installed.get(name);
    const now = served.map((v) => v.name);
    if (previous !== undefined) {
      for (const v of previous.versions) {
        if (previous.plural !== names.plural || !now.includes(v))
          await this.#registry.uninstall(previous.group, v, previous.plural);
      }
    }
    this.#installed.set(name, { group, versions: now, plural: names.plural });
  }

  async #cleanup(crd: Crd): Promise<void> {
    const name = crd.metadata?.name ?? "";
    await this.#remove(crd);
    const storage = this.#registry.storage;
    const { kvs } = await storage.list(`/registry/${crd.spec.group}/${crd.spec.names.plural}/`);
    for (const kv of kvs) {
      try {
        await storage.delete(kv.key);
      } catch {
        // already gone
      }
    }
    if (!(crd.metadata?.finalizers ?? []).includes(CRD_CLEANUP_FINALIZER)) return;
    await this.#store!.guaranteedUpdate("", name, (current) => {
      const meta = metaOf(current);
      meta.finalizers = (meta.finalizers ?? []).filter((f) => f !== CRD_CLEANUP_FINALIZER);
      return current;
    });
  }

  async #remove(crd: Crd): Promise<void> {
    const name = crd.metadata?.name ?? "";
    const info = this.#installed.get(name);
    if (info === undefined) return;
    this.#installed.delete(name);
    for (const v of info.versions) await this.#registry.uninstall(info.group, v, info.plural);
  }
}

function toScale(served: ServedResource, object: KubeObject): unknown {
  const paths = served.custom?.scale;
  if (paths === undefined)
    throw errors.notFound(
      { group: served.def.group, resource: served.def.plural },
      object.metadata?.name ?? "",
    );
  const meta = object.metadata ?? {};
  let selector: string | undefined;
  if (paths.labelSelectorPath) {
    const raw = evaluateJsonPath(object, paths.labelSelectorPath);
    if (typeof raw === "string") {
      try {
        selector = parseLabelSelector(raw).toString();
      } catch {
        selector = raw;
      }
    }
  }
  return {
    kind: "Scale",
    apiVersion: "autoscaling/v1",
    metadata: {
      name: meta.name,
      namespace: meta.namespace,
      uid: meta.uid,
      resourceVersion: meta.resourceVersion,
      creationTimestamp: meta.creationTimestamp,
    },
    spec: { replicas: Number(evaluateJsonPath(object, paths.specReplicasPath) ?? 0) },
    status: {
      replicas: Number(evaluateJsonPath(object, paths.statusReplicasPath) ?? 0),
      ...(selector !== undefined ? { selector } : {}),
    },
  };
}

function setPath(object: KubeObject, path: string, value: unknown): void {
  const parts = path.replace(/^\./, "").split(".");
  let cur = rec(object);
  for (const p of parts.slice(0, -1)) {
    const next = recordAt(cur, p);
    if (next === undefined) cur[p] = {};
    cur = cur[p] as Json;
  }
  cur[parts[parts.length - 1]!] = value;
}
