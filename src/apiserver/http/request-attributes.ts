import type { AccessAttributes, AccessDecision, Authorizer } from "../auth/authorizer.ts";
import { forbiddenError } from "../auth/rbac/index.ts";
import type { UserInfo } from "../auth/user.ts";
import { isWatch } from "./read-verbs.ts";

/*
 * What a request asks to do, as kube-apiserver's `RequestInfoFactory` reads it from the method,
 * path and query before authorizing it. This is not the router's parse (request-info.ts): the
 * two differ where kube's authorizer sees a request otherwise than its handlers do — a
 * namespace's own path names its namespace (`/api/v1/namespaces/x` is in the namespace "x"), a
 * list selecting one name by field selector is on that name, `/api/v1/watch/…` is a watch,
 * and a path that is no resource (`/apis/apps/v1`, `/healthz`) is authorized by its path.
 */

const API_PREFIXES = new Set(["api", "apis"]);
/** Verbs that come first in a path: `/api/v1/watch/namespaces/x/pods`. */
const SPECIAL_VERBS = new Set(["proxy", "watch"]);
/** Subresources of a namespace itself, not resources in it. */
const NAMESPACE_SUBRESOURCES = new Set(["status", "finalize"]);

const VERB_OF_METHOD: Readonly<Record<string, string>> = {
  POST: "create",
  GET: "get",
  HEAD: "get",
  PUT: "update",
  PATCH: "patch",
  DELETE: "delete",
};

/**
 * The authorizer attributes of a request (kube's `RequestInfo`): a resource request under
 * `/api/{version}` or `/apis/{group}/{version}` with at least a resource after it; anything else
 * is a non-resource request whose verb is the method in lower case (`get`, `post`, `head`).
 * A GET without a name is a `list`, or a `watch` when the query says so; a DELETE without a name
 * is a `deletecollection`. A list or watch whose field selector requires `metadata.name=N`
 * (a valid path segment) is on the name N, so that `resourceNames` rules can allow it.
 */
export function requestAttributes(
  method: string,
  pathname: string,
  query: URLSearchParams,
): AccessAttributes {
  const path = decodePath(pathname);
  const nonResource: AccessAttributes = {
    kind: "non-resource",
    verb: method.toLowerCase(),
    path,
  };
  let parts = path.split("/").filter((p) => p !== "");
  if (parts.length < 3 || !API_PREFIXES.has(parts[0]!)) return nonResource;
  let group = "";
  if (parts[0] === "apis") {
    if (parts.length < 4) return nonResource;
    group = parts[1]!;
    parts = parts.slice(2);
  } else {
    parts = parts.slice(1);
  }
  const version = parts[0]!;
  parts = parts.slice(1);
  let verb: string;
  let special = false;
  if (SPECIAL_VERBS.has(parts[0]!) && parts.length >= 2) {
    verb = parts[0]!;
    parts = parts.slice(1);
    special = true;
  } else {
    verb = VERB_OF_METHOD[method] ?? "";
  }
  let namespace = "";
  if (parts[0] === "namespaces" && parts.length > 1) {
    namespace = parts[1]!;
    if (parts.length > 2 && !NAMESPACE_SUBRESOURCES.has(parts[2]!)) parts = parts.slice(2);
  }
  const resource = parts[0] ?? "";
  let name = parts[1] ?? "";
  const subresource = parts.length >= 3 && verb !== "proxy" ? parts[2]! : "";
  if (name === "" && verb === "get" && !special) {
    verb = isWatch(query) ? "watch" : "list";
    name = selectedName(query.get("fieldSelector")) ?? "";
  }
  if (name === "" && verb === "delete") verb = "deletecollection";
  return { kind: "resource", verb, namespace, group, version, resource, subresource, name };
}

/** The name a field selector requires exactly (`metadata.name=web`), if it is a path segment. */
function selectedName(selector: string | null): string | undefined {
  if (selector === null || selector === "") return undefined;
  let found: string | undefined;
  for (const term of selector.split(",")) {
    const m = /^\s*metadata\.name\s*(==?)\s*(.*?)\s*$/.exec(term);
    if (m === null) continue;
    if (found !== undefined && found !== m[2]) return undefined;
    found = m[2];
  }
  if (found === undefined || found === "" || found === "." || found === "..") return undefined;
  return /[/%]/.test(found) ? undefined : found;
}

/** The path as kube's authorizer sees it: decoded (`%2F` is `/`), raw where it cannot be. */
function decodePath(pathname: string): string {
  if (!pathname.includes("%")) return pathname;
  try {
    return decodeURIComponent(pathname);
  } catch {
    return pathname;
  }
}

/**
 * Authorizes a request of `user` as kube-apiserver's authorization filter does, before anything
 * else looks at it (an unknown resource is a 403 before it is a 404): throws kube's 403
 * Forbidden, with the authorizers' reason, unless `authorizer` allows it. The decision goes to
 * the request's audit, as kube's authorization filter annotates it.
 */
export function authorizeRequest(
  authorizer: Authorizer,
  user: UserInfo,
  method: string,
  pathname: string,
  query: URLSearchParams,
  audit?: { authorized(decision: AccessDecision): void },
): void {
  const attributes = requestAttributes(method, pathname, query);
  const decision = authorizer.authorize(user, attributes);
  audit?.authorized(decision);
  if (!decision.allowed) throw forbiddenError(user, attributes, decision.reason);
}
