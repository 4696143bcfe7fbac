import { errors, isNotFound, type KubeObject, parseApiVersion } from "../../core/index.ts";
import { apiVersionOf } from "../../resources/index.ts";
import { applyJsonPatch } from "../patch/json-patch.ts";
import { applyMergePatch } from "../patch/merge-patch.ts";
import { applyStrategicMerge } from "../patch/strategic-merge.ts";
import { strategicMergeType } from "../registry/builtin-types.ts";
import { field } from "../registry/field-errors.ts";
import { subresourceKind } from "../registry/registry.ts";
import { updateScale } from "../registry/scale.ts";
import type { UpdateOptions } from "../registry/types.ts";
import { APPLY_PATCH, serveApply } from "./apply-patch.ts";
import { decodeObjectBody, duplicatesIn, mediaType, parseJson, unsupported } from "./body.ts";
import { foreignBodyError } from "./foreign-body.ts";
import { parseListParams } from "./list-options.ts";
import { sendObject } from "./output.ts";
import { withEscalationCheck } from "./rbac-writes.ts";
import { methodNotAllowed } from "./request-errors.ts";
import { sendJson, successStatus } from "./respond.ts";
import type { VerbHandler, VerbRequest } from "./types.ts";
import { deleteOptionsOf, setWarnings } from "./write-options.ts";
import { type WriteRequest, writePreamble } from "./write-preamble.ts";

/*
 * The writing verbs: create, update, patch, delete and deletecollection (kube's
 * CreateResource, UpdateResource, PatchResource, DeleteResource, DeleteCollection). Each
 * starts with the one write preamble (write-preamble.ts) and hands the store a write with the
 * request's field management.
 */

/** The type a body must declare (if it declares one) and how errors name it. */
interface BodyType {
  readonly apiVersion: string;
  readonly kind: string;
  /** The version in the wording of a decoding error. */
  readonly version: string;
  /** What the kind is expected of: `pods`, `pods/binding`. */
  readonly of: string;
  /**
   * A custom resource's: its body must name apiVersion and kind (kube decodes it as
   * unstructured), and another kind is a 422 on `kind`. @default false
   */
  readonly custom?: boolean;
}

/** The type a body sent to the served resource itself must have. */
function bodyTypeOf(v: VerbRequest): BodyType {
  const def = v.served.def;
  return {
    apiVersion: apiVersionOf(def),
    kind: def.kind,
    version: def.version,
    of: def.plural,
    ...(v.served.custom ? { custom: true } : {}),
  };
}

/** Checks the apiVersion and kind a body declares, and that its metadata is an object (400). */
function checkBodyType(body: Record<string, unknown>, want: BodyType): KubeObject {
  if (want.custom && body.kind === undefined && body.apiVersion === undefined) {
    const json = JSON.stringify(body);
    throw errors.badRequest(
      `the object provided is unrecognized (must be of type ${want.kind}): Object 'Kind' is missing in '${json}' (${json})`,
    );
  }
  if (!want.custom) {
    // A built-in kind's body may leave its type out: the decoder assumes the resource's.
    const apiVersion = String(body.apiVersion ?? want.apiVersion);
    const kind = String(body.kind ?? want.kind);
    if (apiVersion !== want.apiVersion || kind !== want.kind)
      throw foreignBodyError(apiVersion, kind, want);
  } else if (body.apiVersion !== want.apiVersion) {
    throw errors.badRequest(
      `the API version in the data (${String(body.apiVersion ?? "")}) does not match the expected API version (${want.apiVersion})`,
    );
  } else if (body.kind !== undefined && body.kind !== want.kind) {
    // kube decodes a custom resource whatever its kind, and validation refuses it.
    const kind = String(body.kind);
    const meta = body.metadata as { name?: unknown } | undefined;
    const name = typeof meta?.name === "string" ? meta.name : "";
    throw errors.invalid(kind, parseApiVersion(want.apiVersion).group, name, [
      field.invalid("kind", kind, `must be ${want.kind}`),
    ]);
  }
  const meta = body.metadata;
  if (meta !== undefined && (typeof meta !== "object" || meta === null || Array.isArray(meta))) {
    throw errors.badRequest(
      `${want.kind} in version "${want.version}" cannot be handled as a ${want.kind}: metadata must be an object`,
    );
  }
  return body as KubeObject;
}

/**
 * The options of a create, update or patch (of an object or its `status`): the dry run, field
 * validation and warnings, the body's duplicate keys, the requester, the request's field
 * management, and the escalation check of a write of an RBAC object.
 */
function objectWrite(
  v: VerbRequest,
  w: WriteRequest,
  duplicateFields: readonly string[],
): UpdateOptions {
  const { r, served } = v;
  const managed = v.ctx.fields.managed(
    served,
    {
      dryRun: w.dryRun,
      fieldValidation: w.fieldValidation,
      warnings: v.warnings,
      duplicateFields,
      requester: v.user,
      ...(r.subresource ? { subresource: r.subresource } : {}),
    },
    w.manager,
  );
  return withEscalationCheck(v, managed);
}

/** The kind a protobuf body decodes to, where the resource has one (no custom resource). */
function protobufFor(v: VerbRequest, type: { apiVersion: string; kind: string }) {
  return v.served.custom === undefined ? type : undefined;
}

/** POST to a collection, or to a subresource that is created (a pod's `binding`). */
export const create: VerbHandler = async (v) => {
  const { ctx, res, r, served, warnings } = v;
  if (r.subresource !== "") return createSubresource(v);
  if (r.name !== "") methodNotAllowed(v.method, v.what);
  if (served.custom?.terminating) {
    throw errors.methodNotAllowed(
      "create not allowed while custom resource definition is terminating",
    );
  }
  const w = await writePreamble(v, "CreateOptions");
  const type = bodyTypeOf(v);
  const body = checkBodyType(
    decodeObjectBody(w.bytes, w.contentType, type.kind, protobufFor(v, type)),
    type,
  );
  const duplicateFields = duplicatesIn(w.bytes, w.contentType, w.fieldValidation);
  const created = await served.store.create(r.namespace, body, objectWrite(v, w, duplicateFields));
  setWarnings(res, warnings);
  return sendObject(ctx, res, 201, served, created, w.output, v.query);
};

/**
 * POST to a subresource (a pod's `binding`): the body is of the subresource's kind and names the
 * object of the URL; the answer is a Success Status with code 201, as kube's `BindingREST`. It
 * is written without a field manager.
 */
async function createSubresource(v: VerbRequest): Promise<void> {
  const { r, served } = v;
  const w = await writePreamble(v, "CreateOptions", { negotiate: false });
  const kind = subresourceKind(r.subresource) ?? served.def.kind;
  const parent = bodyTypeOf(v);
  // The one subresource created with a body of its own kind is a pod's binding (core v1).
  const protobuf = { apiVersion: kind === "Binding" ? "v1" : parent.apiVersion, kind };
  const object = checkBodyType(decodeObjectBody(w.bytes, w.contentType, kind, protobuf), {
    ...parent,
    kind,
    of: `${served.def.plural}/${r.subresource}`,
  });
  if (object.metadata?.name !== r.name) {
    throw errors.badRequest(`name in URL does not match name in ${kind} object`);
  }
  if (object.metadata?.namespace && object.metadata.namespace !== r.namespace) {
    throw errors.badRequest(
      "the namespace of the provided object does not match the namespace sent on the request",
    );
  }
  await served.store.createSubresource(r.namespace, r.name, r.subresource, object, {
    dryRun: w.dryRun,
  });
  return sendJson(v.res, 201, { ...successStatus(undefined), code: 201 });
}

/** PUT of an object, its `status`, `finalize` or `scale`. */
export const update: VerbHandler = async (v) => {
  const { ctx, res, r, served, warnings } = v;
  if (r.name === "") methodNotAllowed(v.method, v.what);
  const w = await writePreamble(v, "UpdateOptions");
  const raw = decodeObjectBody(
    w.bytes,
    w.contentType,
    r.subresource === "scale" ? "Scale" : served.def.kind,
    protobufFor(
      v,
      r.subresource === "scale" ? { apiVersion: "autoscaling/v1", kind: "Scale" } : bodyTypeOf(v),
    ),
  );
  if (r.subresource === "scale") {
    const options = ctx.fields.managed(served, { dryRun: w.dryRun }, w.manager, "scale");
    return sendJson(res, 200, await updateScale(served, r.namespace, r.name, () => raw, options));
  }
  const body = checkBodyType(raw, bodyTypeOf(v));
  const duplicateFields = duplicatesIn(w.bytes, w.contentType, w.fieldValidation);
  const updated = await served.store.update(
    r.namespace,
    r.name,
    body,
    objectWrite(v, w, duplicateFields),
  );
  setWarnings(res, warnings);
  return sendObject(ctx, res, 200, served, updated, w.output, v.query);
};

const JSON_PATCH = "application/json-patch+json";
const MERGE_PATCH = "application/merge-patch+json";
const STRATEGIC_MERGE_PATCH = "application/strategic-merge-patch+json";

/**
 * PATCH of an object, its `status` or a custom resource's `scale`: a JSON patch, a merge patch,
 * a strategic merge patch (built-in kinds only) or a server-side apply.
 */
export const patch: VerbHandler = async (v) => {
  const { ctx, req, res, r, served, warnings } = v;
  if (r.name === "" || r.subresource === "finalize") methodNotAllowed(v.method, v.what);
  const type = mediaType(req.headers["content-type"]);
  const accepted = [
    JSON_PATCH,
    MERGE_PATCH,
    ...(served.strategicMerge ? [STRATEGIC_MERGE_PATCH] : []),
    APPLY_PATCH,
  ];
  if (!accepted.includes(type)) throw unsupported(type, accepted);
  if (type === APPLY_PATCH) return serveApply(v);
  const w = await writePreamble(v, "PatchOptions");
  const patchBody = parseJson(w.bytes);
  // A JSON patch is a list of operations: a key twice in one is not a field of the object.
  const duplicateFields = type === JSON_PATCH ? [] : duplicatesIn(w.bytes, type, w.fieldValidation);
  const apply = (current: unknown): unknown => {
    if (type === JSON_PATCH) return applyJsonPatch(current, patchBody);
    if (type === MERGE_PATCH) return applyMergePatch(current, patchBody);
    const { group, version, kind } = served.def;
    return applyStrategicMerge(strategicMergeType(group, version, kind), current, patchBody);
  };
  if (r.subresource === "scale") {
    const options = ctx.fields.managed(served, { dryRun: w.dryRun }, w.manager, "scale");
    return sendJson(res, 200, await updateScale(served, r.namespace, r.name, apply, options));
  }
  const patched = await served.store.guaranteedUpdate(
    r.namespace,
    r.name,
    (current) => {
      const next = apply(current);
      if (typeof next !== "object" || next === null || Array.isArray(next)) {
        throw errors.badRequest("the patch made the object something other than a JSON object");
      }
      return checkBodyType(next as Record<string, unknown>, bodyTypeOf(v));
    },
    objectWrite(v, w, duplicateFields),
  );
  setWarnings(res, warnings);
  return sendObject(ctx, res, 200, served, patched, w.output, v.query);
};

/**
 * DELETE of one object: 200 with a Success Status (or the object, for kinds that return it)
 * once it is gone; 200 with the object while finalizers hold it — 202 when asked to cascade
 * (orphanDependents=false), as kube answers.
 */
export const remove: VerbHandler = async (v) => {
  const { res, r, served } = v;
  if (r.subresource !== "") methodNotAllowed(v.method, v.what);
  const options = await deleteOptionsOf(v.req, v.query);
  const dryRun = (options.dryRun ?? []).length > 0;
  const { object, deleted } = await served.store.delete(r.namespace, r.name, options, { dryRun });
  if (!deleted) return sendJson(res, options.orphanDependents === false ? 202 : 200, object);
  if (served.store.strategy.returnDeletedObject) return sendJson(res, 200, object);
  return sendJson(
    res,
    200,
    successStatus({
      name: r.name,
      ...(served.def.group === "" ? {} : { group: served.def.group }),
      kind: served.def.plural,
      uid: object.metadata?.uid ?? "",
    }),
  );
};

/** DELETE of a collection: each selected object deleted (or marked), the list of them answered. */
export const deleteCollection: VerbHandler = async (v) => {
  const { res, r, served } = v;
  if (r.subresource !== "") methodNotAllowed(v.method, v.what);
  const options = await deleteOptionsOf(v.req, v.query);
  const dryRun = (options.dryRun ?? []).length > 0;
  if (!served.verbs.includes("deletecollection")) methodNotAllowed(v.method, v.what);
  const store = served.store;
  const params = parseListParams(v.query, store.fieldSelectors, served.custom !== undefined, "");
  const list = await store.list(r.namespace, { ...params, limit: 0 });
  const done: KubeObject[] = [];
  for (const e of list.items) {
    try {
      const meta = e.object.metadata;
      const { object } = await store.delete(meta?.namespace ?? "", meta?.name ?? "", options, {
        dryRun,
      });
      done.push(object);
    } catch (err) {
      if (!isNotFound(err)) throw err;
    }
  }
  return sendJson(res, 200, {
    kind: served.def.listKind,
    apiVersion: apiVersionOf(served.def),
    metadata: { resourceVersion: String(list.resourceVersion) },
    items: done,
  });
};
