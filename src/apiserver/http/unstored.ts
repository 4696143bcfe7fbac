import { errors, type KubeObject } from "../../core/index.ts";
import {
  BUILTIN_RESOURCES,
  type ResourceDefinition,
  resourceDefinition,
} from "../../resources/index.ts";
import {
  localSubjectAccessReview,
  selfSubjectAccessReview,
  selfSubjectRulesReview,
  subjectAccessReview,
} from "./access-reviews.ts";
import { getComponentStatus, listComponentStatuses } from "./component-statuses.ts";
import { selfSubjectReview, tokenReview } from "./identity-reviews.ts";
import {
  nodeProxy,
  podAttach,
  podExec,
  podLog,
  podPortForward,
  podProxy,
  serviceProxy,
} from "./kubelet-subresources.ts";
import { podEviction } from "./pod-eviction.ts";
import { methodNotSupported, notFound } from "./request-errors.ts";
import { sendJson, successStatus } from "./respond.ts";
import { tokenRequest } from "./token-request.ts";
import { goString, goStruct } from "./typed-body.ts";
import { readCreateBody, type UnstoredHandler, type UnstoredRequest } from "./unstored-create.ts";

/*
 * What kube-apiserver serves without storing it, as a routing table: the resources answered at
 * once (the reviews, `bindings`, `componentstatuses`) and the subresources of stored kinds that
 * are handled, not stored (a service account's `token`, what needs a kubelet). Discovery lists
 * them from the same table.
 */

/** A resource answered by handlers: `create` (POST to the collection), `get`, `list`. */
export interface UnstoredResource {
  readonly def: ResourceDefinition;
  readonly verbs: readonly string[];
  readonly create?: UnstoredHandler;
  readonly get?: UnstoredHandler;
  readonly list?: UnstoredHandler;
}

/** A subresource of a stored kind answered by a handler. */
export interface HandledSubresource {
  readonly name: string;
  /** The kind discovery names; `group`/`version` only where not the resource's (""). */
  readonly kind: string;
  readonly group: string;
  readonly version: string;
  /** The verbs discovery lists. */
  readonly verbs: readonly string[];
  /** The HTTP methods it answers; others are 405. */
  readonly methods: readonly string[];
  /** It takes a path after its name (`pods/p/proxy/some/path`). */
  readonly subpaths: boolean;
  readonly handle: UnstoredHandler;
}

const PROXY_METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS"];
const PROXY_VERBS = ["create", "delete", "get", "patch", "update"];

function handled(
  name: string,
  kind: string,
  verbs: readonly string[],
  methods: readonly string[],
  handle: UnstoredHandler,
  groupVersion: readonly [string, string] = ["", ""],
): HandledSubresource {
  return {
    name,
    kind,
    group: groupVersion[0],
    version: groupVersion[1],
    verbs,
    methods,
    subpaths: name === "proxy",
    handle,
  };
}

/** Handled subresources by `group/version/plural` of the stored kind. */
const HANDLED_SUBRESOURCES: ReadonlyMap<string, readonly HandledSubresource[]> = new Map([
  [
    "/v1/pods",
    [
      handled("attach", "PodAttachOptions", ["create", "get"], ["GET", "POST"], podAttach),
      handled("eviction", "Eviction", ["create"], ["POST"], podEviction, ["policy", "v1"]),
      handled("exec", "PodExecOptions", ["create", "get"], ["GET", "POST"], podExec),
      handled("log", "Pod", ["get"], ["GET"], podLog),
      handled(
        "portforward",
        "PodPortForwardOptions",
        ["create", "get"],
        ["GET", "POST"],
        podPortForward,
      ),
      handled("proxy", "PodProxyOptions", PROXY_VERBS, PROXY_METHODS, podProxy),
    ],
  ],
  ["/v1/nodes", [handled("proxy", "NodeProxyOptions", PROXY_VERBS, PROXY_METHODS, nodeProxy)]],
  [
    "/v1/services",
    [handled("proxy", "ServiceProxyOptions", PROXY_VERBS, PROXY_METHODS, serviceProxy)],
  ],
  [
    "/v1/serviceaccounts",
    [
      handled("token", "TokenRequest", ["create"], ["POST"], tokenRequest, [
        "authentication.k8s.io",
        "v1",
      ]),
    ],
  ],
]);

/** The handled subresources of a stored kind. */
export function handledSubresources(def: ResourceDefinition): readonly HandledSubresource[] {
  return HANDLED_SUBRESOURCES.get(`${def.group}/${def.version}/${def.plural}`) ?? [];
}

/**
 * POST namespaces/{ns}/bindings: binds the pod the Binding names, as a POST to that pod's
 * `binding` subresource does (kube's BindingREST serves both).
 */
const createBinding: UnstoredHandler = async (u) => {
  const { object, dryRun } = await readCreateBody(u, {
    kind: "Binding",
    version: "v1",
    apiVersion: "v1",
    fields: {
      target: goStruct("v1.ObjectReference", {
        kind: goString,
        namespace: goString,
        name: goString,
        uid: goString,
        apiVersion: goString,
        resourceVersion: goString,
        fieldPath: goString,
      }),
    },
  });
  const name = object.metadata?.name ?? "";
  if (name === "") throw errors.badRequest("Name parameter required.");
  const pods = u.ctx.registry.lookup("", "v1", "pods");
  if (pods === undefined) notFound();
  await pods.store.createSubresource(u.r.namespace, name, "binding", object as KubeObject, {
    dryRun,
  });
  sendJson(u.res, 201, { ...successStatus(undefined), code: 201 });
};

function unstored(
  group: string,
  plural: string,
  handlers: Omit<UnstoredResource, "def" | "verbs">,
): UnstoredResource {
  const facts = BUILTIN_RESOURCES.find((f) => f.group === group && f.plural === plural);
  if (facts === undefined) throw new Error(`no built-in resource ${group}/${plural}`);
  return {
    def: resourceDefinition({
      group: facts.group,
      version: facts.version,
      kind: facts.kind,
      plural: facts.plural,
      scope: facts.namespaced ? "Namespaced" : "Cluster",
      shortNames: facts.shortNames,
      categories: facts.categories,
    }),
    verbs: [...facts.verbs],
    ...handlers,
  };
}

const AUTHZ = "authorization.k8s.io";
const AUTHN = "authentication.k8s.io";

/** The resources kube-apiserver 1.36 serves without storing them. */
export const UNSTORED_RESOURCES: readonly UnstoredResource[] = [
  unstored("", "bindings", { create: createBinding }),
  unstored("", "componentstatuses", { get: getComponentStatus, list: listComponentStatuses }),
  unstored(AUTHN, "selfsubjectreviews", { create: selfSubjectReview }),
  unstored(AUTHN, "tokenreviews", { create: tokenReview }),
  unstored(AUTHZ, "localsubjectaccessreviews", { create: localSubjectAccessReview }),
  unstored(AUTHZ, "selfsubjectaccessreviews", { create: selfSubjectAccessReview }),
  unstored(AUTHZ, "selfsubjectrulesreviews", { create: selfSubjectRulesReview }),
  unstored(AUTHZ, "subjectaccessreviews", { create: subjectAccessReview }),
];

const BY_PATH = new Map(
  UNSTORED_RESOURCES.map((u) => [`${u.def.group}/${u.def.version}/${u.def.plural}`, u]),
);

/** The unstored resource at a group, version and plural, if any. */
export function unstoredResource(
  group: string,
  version: string,
  plural: string,
): UnstoredResource | undefined {
  return BY_PATH.get(`${group}/${version}/${plural}`);
}

/**
 * Serves a request to an unstored resource as kube routes it: a path of the wrong scope, a name
 * where the resource takes none (a review's) or a subresource is 404; a method it does not
 * answer is 405.
 */
export async function serveUnstored(resource: UnstoredResource, u: UnstoredRequest): Promise<void> {
  const { r, req } = u;
  const namespaced = resource.def.scope === "Namespaced";
  if (r.namespaced !== namespaced || r.subresource !== "") notFound();
  const method = req.method ?? "GET";
  if (r.name !== "") {
    if (resource.get === undefined) notFound();
    if (method !== "GET") methodNotSupported();
    return resource.get(u);
  }
  if (method === "POST" && resource.create) return resource.create(u);
  if (method === "GET" && resource.list) return resource.list(u);
  methodNotSupported();
}

/** Serves a request to a handled subresource: 404 for a path after it, 405 for a method. */
export async function serveHandled(sub: HandledSubresource, u: UnstoredRequest): Promise<void> {
  if (u.r.subpath !== "" && !sub.subpaths) notFound();
  if (!sub.methods.includes(u.req.method ?? "GET")) methodNotSupported();
  return sub.handle(u);
}
