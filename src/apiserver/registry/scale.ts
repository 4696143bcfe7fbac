import {
  ApiError,
  errors,
  type KubeObject,
  type LabelSelectorSpec,
  labelSelectorFromSpec,
  parseLabelSelector,
} from "../../core/index.ts";
import { apiVersionOf } from "../../resources/index.ts";
import { metaOf } from "./codec.ts";
import type { ScaleSubresource, ServedResource } from "./served.ts";
import { type Json, rec, recordAt } from "./strategies/util.ts";
import type { WriteOptions } from "./types.ts";

/** A path as a CRD spells it (`.spec.replicas`), split into its fields. */
export function splitScalePath(path: string): string[] {
  return path.replace(/^\./, "").split(".");
}

/** The scale of the apps kinds: `spec.replicas`, `status.replicas`, `spec.selector` rendered. */
export const APPS_SCALE: ScaleSubresource = {
  specReplicasPath: ["spec", "replicas"],
  statusReplicasPath: ["status", "replicas"],
  selector: (o) =>
    labelSelectorFromSpec(
      (recordAt(rec(o), "spec")?.selector ?? {}) as LabelSelectorSpec,
    ).toString(),
};

/** The scale of a ReplicationController, whose `spec.selector` is a map of labels. */
export const REPLICATION_CONTROLLER_SCALE: ScaleSubresource = {
  ...APPS_SCALE,
  selector: (o) =>
    labelSelectorFromSpec({
      matchLabels: (recordAt(rec(o), "spec")?.selector ?? {}) as Record<string, string>,
    }).toString(),
};

/** A CRD's scale: its paths, and the selector string at `labelSelectorPath`, normalized. */
export function customScale(paths: {
  specReplicasPath: string;
  statusReplicasPath: string;
  labelSelectorPath?: string;
}): ScaleSubresource {
  const selectorPath =
    paths.labelSelectorPath === undefined ? undefined : splitScalePath(paths.labelSelectorPath);
  return {
    specReplicasPath: splitScalePath(paths.specReplicasPath),
    statusReplicasPath: splitScalePath(paths.statusReplicasPath),
    selector: (o) => {
      if (selectorPath === undefined) return undefined;
      const raw = valueAt(o, selectorPath);
      if (typeof raw !== "string") return undefined;
      try {
        return parseLabelSelector(raw).toString();
      } catch {
        return raw;
      }
    },
  };
}

/** GET of `/scale`: the Scale of the stored object (404 as the object's when it is missing). */
export async function readScale(
  served: ServedResource,
  namespace: string,
  name: string,
): Promise<KubeObject> {
  const scale = scaleOf(served, name);
  return toScale(scale, await served.store.get(namespace, name));
}

/**
 * A write to `/scale` (PUT, or a patch of the current Scale): `change` makes the new Scale of the
 * current one, whose `spec.replicas` is stored in the object, retrying on concurrent writes as
 * any update does. A `metadata.resourceVersion` in the new Scale is a precondition (409 if
 * stale), and so is a `metadata.uid`; a negative count is 422 on the Scale. `options` come with
 * the field management of the write, which records it under the `scale` subresource.
 */
export async function updateScale(
  served: ServedResource,
  namespace: string,
  name: string,
  change: (current: KubeObject) => unknown,
  options: WriteOptions,
): Promise<KubeObject> {
  const scale = scaleOf(served, name);
  const updated = await served.store.guaranteedUpdate(
    namespace,
    name,
    (current) => {
      const next = change(toScale(scale, current));
      if (typeof next !== "object" || next === null || Array.isArray(next))
        throw errors.badRequest("the request body must be a JSON object: an autoscaling/v1 Scale");
      const kind = (next as Json).kind;
      if (kind !== undefined && kind !== "Scale") {
        throw errors.badRequest(
          `${String(kind)} cannot be handled as a Scale: the body of a write to ${served.def.plural}/scale is an autoscaling/v1 Scale`,
        );
      }
      const meta = recordAt(next as Json, "metadata") ?? {};
      if (meta.name !== undefined && meta.name !== name)
        throw errors.badRequest(
          `the name of the object (${String(meta.name)}) does not match the name on the URL (${name})`,
        );
      const replicas = recordAt(next as Json, "spec")?.replicas ?? 0;
      checkReplicas(replicas, name);
      const stored = metaOf(current);
      if (typeof meta.uid === "string" && meta.uid !== "" && meta.uid !== stored.uid) {
        // kube checks it in storage, whose error names the key.
        throw errors.conflict(
          { group: served.def.group, resource: served.def.plural },
          name,
          `StorageError: invalid object, Code: 4, Key: ${served.store.key(namespace, name)}, ResourceVersion: 0, AdditionalErrorMsg: Precondition failed: UID in precondition: ${meta.uid}, UID in object meta: ${stored.uid}`,
        );
      }
      setValueAt(current, scale.specReplicasPath, replicas);
      if (typeof meta.resourceVersion === "string" && meta.resourceVersion !== "")
        stored.resourceVersion = meta.resourceVersion;
      return current;
    },
    options,
  );
  return toScale(scale, updated);
}

/** The Scale of `object`, a stored object of `served`. */
export function scaleOfObject(served: ServedResource, object: KubeObject): KubeObject {
  return toScale(scaleOf(served, object.metadata?.name ?? ""), object);
}

/**
 * A server-side apply to `/scale` as an apply to the object: the applied Scale's
 * `spec.replicas` (and resourceVersion precondition) at the object's replicas path. kube applies
 * it to the Scale, whose managers are the object's that own that path, and maps the result
 * back: the same owners and conflicts (see {@link scaleApplyConflict} for how they are named).
 */
export function scaleApplyConfig(
  served: ServedResource,
  namespace: string,
  name: string,
  config: Record<string, unknown>,
): KubeObject {
  const scale = scaleOf(served, name);
  if (config.apiVersion !== "autoscaling/v1" || config.kind !== "Scale") {
    const [group, version] = String(config.apiVersion ?? "").includes("/")
      ? String(config.apiVersion).split("/")
      : ["", String(config.apiVersion ?? "")];
    throw errors.badRequest(
      `invalid object type: ${group}/${version}, Kind=${String(config.kind ?? "")}`,
    );
  }
  const meta = recordAt(config, "metadata") ?? {};
  if (meta.name !== name)
    throw errors.badRequest(
      `the name of the object (${String(meta.name ?? "")}) does not match the name on the URL (${name})`,
    );
  const object: KubeObject & Json = {
    apiVersion: apiVersionOf(served.def),
    kind: served.def.kind,
    metadata: {
      name,
      ...(namespace === "" ? {} : { namespace }),
      ...(typeof meta.resourceVersion === "string"
        ? { resourceVersion: meta.resourceVersion }
        : {}),
    },
  };
  const replicas = recordAt(config, "spec")?.replicas;
  if (replicas !== undefined) {
    checkReplicas(replicas, name);
    setValueAt(object, scale.specReplicasPath, replicas);
  }
  return object;
}

/**
 * An apply conflict on the object, as kube reports it on the Scale: the managers' API version is
 * autoscaling/v1 and the field `.spec.replicas`, whatever the object's.
 */
export function scaleApplyConflict(served: ServedResource, err: unknown): unknown {
  if (!(err instanceof ApiError) || err.status.reason !== "Conflict" || served.scale === undefined)
    return err;
  const using = ` using ${apiVersionOf(served.def)}`;
  const path = `.${served.scale.specReplicasPath.join(".")}`;
  const rename = (text: string) =>
    text.replaceAll(using, " using autoscaling/v1").replaceAll(path, ".spec.replicas");
  const causes = err.status.details?.causes?.map((c) => ({
    ...c,
    ...(c.message === undefined ? {} : { message: rename(c.message) }),
    ...(c.field === undefined ? {} : { field: rename(c.field) }),
  }));
  return ApiError.of("Conflict", rename(err.status.message ?? ""), causes ? { causes } : {}, 409);
}

function checkReplicas(replicas: unknown, name: string): asserts replicas is number {
  if (typeof replicas !== "number" || !Number.isInteger(replicas)) {
    throw errors.badRequest(
      `Scale cannot be handled: spec.replicas must be an integer, not ${JSON.stringify(replicas)}`,
    );
  }
  if (replicas < 0) {
    throw errors.invalid("Scale", "autoscaling", name, [
      {
        reason: "FieldValueInvalid",
        field: "spec.replicas",
        message: `Invalid value: ${replicas}: must be greater than or equal to 0`,
      },
    ]);
  }
}

function scaleOf(served: ServedResource, name: string): ScaleSubresource {
  if (served.scale === undefined)
    throw errors.notFound({ group: served.def.group, resource: served.def.plural }, name);
  return served.scale;
}

/** The autoscaling/v1 Scale of an object, as kube's scale subresources build it. */
function toScale(scale: ScaleSubresource, object: KubeObject): KubeObject {
  const meta = object.metadata ?? {};
  const selector = scale.selector(object);
  const result: KubeObject & Json = {
    kind: "Scale",
    apiVersion: "autoscaling/v1",
    metadata: {
      name: meta.name,
      namespace: meta.namespace,
      uid: meta.uid,
      resourceVersion: meta.resourceVersion,
      creationTimestamp: meta.creationTimestamp,
    },
    spec: { replicas: Number(valueAt(object, scale.specReplicasPath) ?? 0) },
    status: {
      replicas: Number(valueAt(object, scale.statusReplicasPath) ?? 0),
      ...(selector !== undefined ? { selector } : {}),
    },
  };
  return result;
}

function valueAt(object: KubeObject, path: readonly string[]): unknown {
  let cur: unknown = object;
  for (const p of path) {
    if (typeof cur !== "object" || cur === null) return undefined;
    cur = (cur as Json)[p];
  }
  return cur;
}

function setValueAt(object: KubeObject, path: readonly string[], value: unknown): void {
  let cur = rec(object);
  for (const p of path.slice(0, -1)) {
    if (recordAt(cur, p) === undefined) cur[p] = {};
    cur = cur[p] as Json;
  }
  cur[path[path.length - 1]!] = value;
}
