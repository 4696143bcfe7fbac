import type { IncomingMessage, ServerResponse } from "node:http";
import { isNamespaced } from "../../resources/index.ts";
import type { UserInfo } from "../auth/user.ts";
import { subresourceVerbs } from "../registry/registry.ts";
import { get, isWatch, list, watch } from "./read-verbs.ts";
import { methodNotAllowed, notFound } from "./request-errors.ts";
import type { ResourceTarget } from "./request-info.ts";
import type { ResourceContext, ResourceRequest, Verb, VerbHandler } from "./types.ts";
import { handledSubresources, serveHandled, serveUnstored, unstoredResource } from "./unstored.ts";
import { setWarnings } from "./write-options.ts";
import { create, deleteCollection, patch, remove, update } from "./write-verbs.ts";

export type { ResourceContext, ResourceRequest } from "./types.ts";

/** One handler per verb, as kube's installer registers them. */
const HANDLERS: Readonly<Record<Verb, VerbHandler>> = {
  get,
  list,
  watch,
  create,
  update,
  patch,
  delete: remove,
  deletecollection: deleteCollection,
};

/**
 * The verb of a request (kube's RequestInfo): GET is a watch with `watch` set (not on
 * `scale`), a get with a name and a list without; DELETE without a name is deletecollection.
 */
export function verbOf(
  method: string,
  r: ResourceRequest,
  query: URLSearchParams,
): Verb | undefined {
  switch (method) {
    case "GET":
      if (r.subresource !== "scale" && isWatch(query)) return "watch";
      return r.name === "" ? "list" : "get";
    case "POST":
      return "create";
    case "PUT":
      return "update";
    case "PATCH":
      return "patch";
    case "DELETE":
      return r.name === "" ? "deletecollection" : "delete";
    default:
      return undefined;
  }
}

/** The verb a method is on one object's subresource, for the subresource's allowed verbs. */
const VERB_OF_METHOD: Readonly<Record<string, string>> = {
  GET: "get",
  PUT: "update",
  PATCH: "patch",
  POST: "create",
  DELETE: "delete",
};

/**
 * Serves one request of `user` on a resource path: finds the served resource (404), checks the
 * path's namespace and subresource against it (404, 405), and routes by verb. A resource or
 * subresource answered without storage goes to its handler (see unstored.ts).
 */
export async function handleResource(
  ctx: ResourceContext,
  req: IncomingMessage,
  res: ServerResponse,
  r: ResourceTarget,
  query: URLSearchParams,
  user: UserInfo,
): Promise<void> {
  const served = ctx.registry.lookup(r.group, r.version, r.resource);
  if (served === undefined) {
    const unstored = unstoredResource(r.group, r.version, r.resource);
    if (unstored === undefined) notFound();
    return serveUnstored(unstored, { ctx, req, res, r, query, user });
  }
  const namespacedKind = isNamespaced(served.def);
  if (!namespacedKind && r.namespaced) notFound();
  if (r.subresource !== "" && served.custom === undefined) {
    const handled = handledSubresources(served.def).find((s) => s.name === r.subresource);
    if (handled !== undefined) {
      if (r.name === "" || namespacedKind !== r.namespaced) notFound();
      return serveHandled(handled, { ctx, req, res, r, query, user });
    }
  }
  if (r.subpath !== "") notFound();
  if (r.subresource !== "" && !served.subresources.includes(r.subresource)) notFound();
  const warnings: string[] = [];
  const deprecated = served.custom?.deprecationWarning;
  if (deprecated !== undefined) {
    warnings.push(deprecated);
    setWarnings(res, warnings);
  }
  const method = req.method ?? "GET";
  const what =
    r.name === ""
      ? `the collection of ${served.def.plural}`
      : `${served.def.plural}${r.subresource ? `/${r.subresource}` : ""}`;
  // Writes and single-object reads of a namespaced kind need a namespace in the path.
  if (namespacedKind && !r.namespaced && !(method === "GET" && r.name === "")) notFound();
  if (r.subresource !== "") {
    if (r.name === "") notFound();
    if (!subresourceVerbs(r.subresource).includes(VERB_OF_METHOD[method] ?? ""))
      methodNotAllowed(method, what);
  }
  const verb = verbOf(method, r, query);
  if (verb === undefined) methodNotAllowed(method, what);
  return HANDLERS[verb]({ ctx, req, res, r, query, served, method, what, warnings, user });
}
