import { errors, type KubeObject, parseLabelSelector } from "../../core/index.ts";
import { metaOf } from "../registry/codec.ts";
import type { ServedResource } from "../registry/registry.ts";
import { type Json, rec, recordAt } from "../registry/strategies/util.ts";
import type { WriteOptions } from "../registry/types.ts";
import { evaluateJsonPath } from "./json-path.ts";

/** Serves `/scale` of custom resources. */
export interface ScaleHandler {
  get(served: ServedResource, namespace: string, name: string): Promise<unknown>;
  /**
   * Writes the Scale `scale` makes of the current one; `options` come with the write's field
   * management, which records it as a write to `scale`.
   */
  update(
    served: ServedResource,
    namespace: string,
    name: string,
    scale: (current: unknown) => unknown,
    options: WriteOptions,
  ): Promise<unknown>;
}

/**
 * The `/scale` subresource of custom resources: an `autoscaling/v1 Scale` read from, and written
 * to, the paths the CRD's `subresources.scale` names (`specReplicasPath`, `statusReplicasPath`,
 * `labelSelectorPath`).
 */
export const customResourceScale: ScaleHandler = {
  get: async (served, namespace, name) => toScale(served, await served.store.get(namespace, name)),
  update: async (served, namespace, name, change, options) => {
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
      options,
    );
    return toScale(served, updated);
  },
};

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
