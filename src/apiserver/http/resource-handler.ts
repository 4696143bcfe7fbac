import type { IncomingMessage, ServerResponse } from "node:http";
import { type Clock, errors, type KubeObject } from "../../core/index.ts";
import { apiVersionOf, isNamespaced } from "../../resources/index.ts";
import { applyJsonPatch } from "../patch/json-patch.ts";
import { applyMergePatch } from "../patch/merge-patch.ts";
import { applyStrategicMerge } from "../patch/strategic-merge.ts";
import {
  type Registry,
  type ServedResource,
  subresourceKind,
  subresourceVerbs,
} from "../registry/registry.ts";
import { APPLY_PATCH, serveApply } from "./apply-patch.ts";
import {
  decodeObjectBody,
  duplicatesIn,
  mediaType,
  parseJson,
  readBody,
  unsupported,
} from "./body.ts";
import { parseListParams } from "./list-options.ts";
import { negotiate, type Output } from "./negotiate.ts";
import { encoderFor, sendList, sendObject } from "./output.ts";
import { sendJson, successStatus } from "./respond.ts";
import { streamWatch, watchDeadline } from "./watch.ts";
import { deleteOptionsOf, setWarnings, writeParams } from "./write-options.ts";

/** What the resource handler needs from the server. */
export interface ResourceContext {
  readonly registry: Registry;
  readonly clock: Clock;
  /** kube's --min-request-timeout (s): default watch length is 1–2× this. */
  readonly minRequestTimeoutSeconds: number;
  /** Custom-resource handling (scale subresource, strict field validation) from the CRD layer. */
  readonly scale?: ScaleHandler;
}

/** Serves `/scale` of custom resources. */
export interface ScaleHandler {
  get(served: ServedResource, namespace: string, name: string): Promise<unknown>;
  update(
    served: ServedResource,
    namespace: string,
    name: string,
    scale: (current: unknown) => unknown,
    options: { dryRun: boolean; manager: string },
  ): Promise<unknown>;
}

/** A resource request, parsed from the path. */
export interface ResourceRequest {
  readonly group: string;
  readonly version: string;
  readonly namespace: string;
  readonly namespaced: boolean;
  readonly resource: string;
  readonly name: string;
  readonly subresource: string;
}

const notFoundResource = () => errors.notFound({ group: "", resource: "" }, "");

function notFound(): never {
  const e = notFoundResource();
  e.status.message = "the server could not find the requested resource";
  e.status.details = {};
  throw e;
}

function methodNotAllowed(method: string, what: string): never {
  throw errors.methodNotAllowed(
    `the server does not allow this method on the requested resource: ${method} is not supported on ${what}`,
  );
}

/** Checks the apiVersion and kind a body declares against the endpoint's. */
function checkBodyType(served: ServedResource, body: Record<string, unknown>): KubeObject {
  const want = apiVersionOf(served.def);
  if (body.apiVersion !== undefined && body.apiVersion !== want) {
    throw errors.badRequest(
      `the API version in the data (${String(body.apiVersion)}) does not match the expected API version (${want})`,
    );
  }
  if (body.kind !== undefined && body.kind !== served.def.kind) {
    throw errors.badRequest(
      `the kind in the data (${String(body.kind)}) does not match the expected kind (${served.def.kind}) of ${served.def.plural}`,
    );
  }
  if (
    body.metadata !== undefined &&
    (typeof body.metadata !== "object" || body.metadata === null || Array.isArray(body.metadata))
  ) {
    throw errors.badRequest(
      `${served.def.kind} in version "${served.def.version}" cannot be handled as a ${served.def.kind}: metadata must be an object`,
    );
  }
  return body as KubeObject;
}

/** Serves one request on a resource path. */
export async function handleResource(
  ctx: ResourceContext,
  req: IncomingMessage,
  res: ServerResponse,
  r: ResourceRequest,
  query: URLSearchParams,
): Promise<void> {
  const served = ctx.registry.lookup(r.group, r.version, r.resource);
  if (served === undefined) notFound();
  const namespacedKind = isNamespaced(served.def);
  if (!namespacedKind && r.namespaced) notFound();
  if (r.subresource !== "" && !served.subresources.includes(r.subresource)) notFound();
  // Warnings of the request (a deprecated version's, unknown fields'), sent with the answer.
  const warnings: string[] = [];
  const deprecated = served.custom?.deprecationWarning;
  if (deprecated !== undefined) {
    warnings.push(deprecated);
    setWarnings(res, warnings);
  }
  const store = served.store;
  const method = req.method ?? "GET";
  const ns = r.namespace;
  const what =
    r.name === ""
      ? `the collection of ${served.def.plural}`
      : `${served.def.plural}${r.subresource ? `/${r.subresource}` : ""}`;
  // Writes and single-object reads of a namespaced kind need a namespace in the path.
  if (namespacedKind && !r.namespaced && !(method === "GET" && r.name === "")) {
    if (r.name !== "" || method !== "GET") notFound();
  }
  if (r.subresource !== "") {
    if (r.name === "") notFound();
    if (!subresourceVerbs(r.subresource).includes(VERB_OF_METHOD[method] ?? ""))
      methodNotAllowed(method, what);
  }

  if (method === "GET") {
    if (r.subresource === "scale") {
      if (ctx.scale === undefined) notFound();
      return sendJson(res, 200, await ctx.scale.get(served, ns, r.name));
    }
    const output = negotiate(req.headers.accept, r.subresource === "");
    const params = parseListParams(
      query,
      store.fieldSelectors,
      served.custom !== undefined,
      r.name !== "" && isWatch(query) ? r.name : "",
    );
    if (params.watch) return serveWatch(ctx, req, res, served, ns, params, output, query);
    if (r.name !== "") {
      const object = await store.get(ns, r.name, query.get("resourceVersion") ?? undefined);
      return sendObject(ctx, res, 200, served, object, output, query);
    }
    const list = await store.list(ns, params);
    return sendList(ctx, res, served, list, output, query);
  }

  if (method === "POST") {
    if (r.subresource !== "") return createSubresource(res, served, r, query, req);
    if (r.name !== "") methodNotAllowed(method, what);
    if (served.custom?.terminating) {
      throw errors.methodNotAllowed(
        "create not allowed while custom resource definition is terminating",
      );
    }
    const { dryRun, fieldValidation, manager } = writeParams(
      query,
      "CreateOptions",
      req.headers["user-agent"],
    );
    const output = negotiate(req.headers.accept, false);
    const bytes = await readBody(req);
    const contentType = req.headers["content-type"];
    const body = checkBodyType(served, decodeObjectBody(bytes, contentType));
    const duplicateFields = duplicatesIn(bytes, contentType, fieldValidation);
    const created = await store.create(ns, body, {
      dryRun,
      fieldValidation,
      warnings,
      duplicateFields,
      manager,
    });
    setWarnings(res, warnings);
    return sendObject(ctx, res, 201, served, created, output, query);
  }

  if (method === "PUT") {
    if (r.name === "") methodNotAllowed(method, what);
    const { dryRun, fieldValidation, manager } = writeParams(
      query,
      "UpdateOptions",
      req.headers["user-agent"],
    );
    const output = negotiate(req.headers.accept, false);
    const bytes = await readBody(req);
    const contentType = req.headers["content-type"];
    const raw = decodeObjectBody(bytes, contentType);
    if (r.subresource === "scale") {
      if (ctx.scale === undefined) notFound();
      return sendJson(
        res,
        200,
        await ctx.scale.update(served, ns, r.name, () => raw, { dryRun, manager }),
      );
    }
    const body = checkBodyType(served, raw);
    const updated = await store.update(ns, r.name, body, {
      dryRun,
      fieldValidation,
      warnings,
      duplicateFields: duplicatesIn(bytes, contentType, fieldValidation),
      manager,
      ...(r.subresource ? { subresource: r.subresource } : {}),
    });
    setWarnings(res, warnings);
    return sendObject(ctx, res, 200, served, updated, output, query);
  }

  if (method === "PATCH") {
    if (r.name === "" || r.subresource === "finalize") methodNotAllowed(method, what);
    const type = mediaType(req.headers["content-type"]);
    const accepted = [
      "application/json-patch+json",
      "application/merge-patch+json",
      ...(served.strategicMerge ? ["application/strategic-merge-patch+json"] : []),
      // Server-side apply to /scale (kube converts managedFields to the Scale's) is not served.
      ...(r.subresource === "scale" ? [] : [APPLY_PATCH]),
    ];
    if (!accepted.includes(type)) throw unsupported(type, accepted);
    if (type === APPLY_PATCH) return serveApply(ctx, req, res, served, r, query, warnings);
    const { dryRun, fieldValidation, manager } = writeParams(
      query,
      "PatchOptions",
      req.headers["user-agent"],
    );
    const output = negotiate(req.headers.accept, false);
    const patchBytes = await readBody(req);
    const patch = parseJson(patchBytes);
    // A JSON patch is a list of operations: a key twice in one is not a field of the object.
    const duplicateFields =
      type === "application/json-patch+json" ? [] : duplicatesIn(patchBytes, type, fieldValidation);
    const apply = (current: unknown): unknown => {
      if (type === "application/json-patch+json") return applyJsonPatch(current, patch);
      if (type === "application/merge-patch+json") return applyMergePatch(current, patch);
      return applyStrategicMerge(served.def.kind, current, patch);
    };
    if (r.subresource === "scale") {
      if (ctx.scale === undefined) notFound();
      return sendJson(
        res,
        200,
        await ctx.scale.update(served, ns, r.name, apply, { dryRun, manager }),
      );
    }
    const patched = await store.guaranteedUpdate(
      ns,
      r.name,
      (current) => {
        const next = apply(current);
        if (typeof next !== "object" || next === null || Array.isArray(next)) {
          throw errors.badRequest("the patch made the object something other than a JSON object");
        }
        return checkBodyType(served, next as Record<string, unknown>);
      },
      {
        dryRun,
        fieldValidation,
        warnings,
        duplicateFields,
        manager,
        ...(r.subresource ? { subresource: r.subresource } : {}),
      },
    );
    setWarnings(res, warnings);
    return sendObject(ctx, res, 200, served, patched, output, query);
  }

  if (method === "DELETE") {
    if (r.subresource !== "") methodNotAllowed(method, what);
    const options = await deleteOptionsOf(req, query);
    const dryRun = (options.dryRun ?? []).length > 0;
    if (r.name === "") {
      if (!served.verbs.includes("deletecollection")) methodNotAllowed(method, what);
      const params = parseListParams(query, store.fieldSelectors, served.custom !== undefined, "");
      const list = await store.list(ns, { ...params, limit: 0 });
      const done: KubeObject[] = [];
      for (const e of list.items) {
        try {
          const { object } = await store.delete(
            e.object.metadata?.namespace ?? "",
            e.object.metadata?.name ?? "",
            options,
            { dryRun },
          );
          done.push(object);
        } catch (err) {
          if ((err as { code?: number }).code !== 404) throw err;
        }
      }
      return sendJson(res, 200, {
        kind: served.def.listKind,
        apiVersion: apiVersionOf(served.def),
        metadata: { resourceVersion: String(list.resourceVersion) },
        items: done,
      });
    }
    const { object, deleted } = await store.delete(ns, r.name, options, { dryRun });
    // kube answers 202 when asked to cascade (orphanDependents=false) and the object is still
    // there (finalizers hold it); 200 otherwise.
    if (!deleted) return sendJson(res, options.orphanDependents === false ? 202 : 200, object);
    if (store.strategy.returnDeletedObject) return sendJson(res, 200, object);
    return sendJson(
      res,
      200,
      successStatus({
        name: r.name,
        group: served.def.group,
        kind: served.def.plural,
        uid: object.metadata?.uid ?? "",
      }),
    );
  }

  methodNotAllowed(method, what);
}

/** The verb of a method on one object's subresource. */
const VERB_OF_METHOD: Readonly<Record<string, string>> = {
  GET: "get",
  PUT: "update",
  PATCH: "patch",
  POST: "create",
  DELETE: "delete",
};

/**
 * POST to a subresource (a pod's `binding`): the body is of the subresource's kind and names the
 * object of the URL; the answer is a Success Status with code 201, as kube's `BindingREST`.
 */
async function createSubresource(
  res: ServerResponse,
  served: ServedResource,
  r: ResourceRequest,
  query: URLSearchParams,
  req: IncomingMessage,
): Promise<void> {
  const { dryRun } = writeParams(query, "CreateOptions");
  const body = decodeObjectBody(await readBody(req), req.headers["content-type"]);
  const kind = subresourceKind(r.subresource) ?? served.def.kind;
  const what = `${served.def.plural}/${r.subresource}`;
  if (body.kind !== undefined && body.kind !== kind) {
    throw errors.badRequest(
      `the kind in the data (${String(body.kind)}) does not match the expected kind (${kind}) of ${what}`,
    );
  }
  if (body.apiVersion !== undefined && body.apiVersion !== apiVersionOf(served.def)) {
    throw errors.badRequest(
      `the API version in the data (${String(body.apiVersion)}) does not match the expected API version (${apiVersionOf(served.def)})`,
    );
  }
  const meta = body.metadata;
  if (meta !== undefined && (typeof meta !== "object" || meta === null || Array.isArray(meta))) {
    throw errors.badRequest(
      `${kind} in version "v1" cannot be handled as a ${kind}: metadata must be an object`,
    );
  }
  const object = body as KubeObject;
  if (object.metadata?.name !== r.name) {
    throw errors.badRequest(`name in URL does not match name in ${kind} object`);
  }
  if (object.metadata?.namespace && object.metadata.namespace !== r.namespace) {
    throw errors.badRequest(
      "the namespace of the provided object does not match the namespace sent on the request",
    );
  }
  await served.store.createSubresource(r.namespace, r.name, r.subresource, object, { dryRun });
  return sendJson(res, 201, { ...successStatus(undefined), code: 201 });
}

function isWatch(q: URLSearchParams): boolean {
  const w = q.get("watch");
  return w !== null && w !== "false" && w !== "0";
}

async function serveWatch(
  ctx: ResourceContext,
  req: IncomingMessage,
  res: ServerResponse,
  served: ServedResource,
  namespace: string,
  params: ReturnType<typeof parseListParams>,
  output: Output,
  query: URLSearchParams,
): Promise<void> {
  const store = served.store;
  const cache = store.cache;
  const rv = params.resourceVersion ?? "";
  // Aborts the wait for a fresh cache if the client goes; removed afterwards, since a
  // keep-alive socket serves many requests one after another.
  const abort = new AbortController();
  const onClose = () => abort.abort();
  req.socket.once("close", onClose);
  try {
    let startRv: number | undefined;
    let initialEvents = true;
    if (rv !== "" && rv !== "0" && params.sendInitialEvents !== true) {
      // "Start at exact": only changes after rv (also for sendInitialEvents=false).
      startRv = Number(rv);
    } else {
      // The state first (a streaming list, or a legacy watch from "now"), at least as fresh as
      // asked: rv "" is a consistent read, "0" any state, N not older than N.
      if (rv === "")
        await cache.waitUntilFresh(await ctx.registry.storage.currentRevision(), abort.signal);
      else if (rv !== "0") await cache.waitUntilFresh(Number(rv), abort.signal);
      initialEvents = params.sendInitialEvents !== false;
    }
    const timeout = params.timeoutSeconds === 0 ? undefined : params.timeoutSeconds;
    const watcher = store.watch({
      filter: { namespace, label: params.label, field: params.field },
      encoder: encoderFor(ctx, served, output, query),
      ...(startRv === undefined ? {} : { startRv }),
      initialEvents,
      allowBookmarks: params.allowWatchBookmarks,
      // Only a streaming list asked for with sendInitialEvents=true (which never has a startRv)
      // ends its initial events with the bookmark, as kube: a plain watch's synthetic ADDED
      // events (rv "" or "0") do not.
      initialEventsEndBookmark: params.allowWatchBookmarks && params.sendInitialEvents === true,
      deadline: watchDeadline(ctx.clock, timeout, ctx.minRequestTimeoutSeconds),
    });
    await streamWatch(req, res, watcher);
  } finally {
    req.socket.off("close", onClose);
  }
}
