/**
 * The authorization scenario: Roles, ClusterRoles and bindings for a table of users, groups and
 * a ServiceAccount, then what SubjectAccessReview, LocalSubjectAccessReview,
 * SelfSubjectAccessReview and SelfSubjectRulesReview answer for them — kube-apiserver runs
 * with RBAC, and so does the embedded backend. Users and cluster-scoped names are the
 * scenario's own, so no other scenario's bindings (run alongside) change an answer; each
 * allowed request is allowed by one binding only, since RBAC names the first it finds and kube
 * visits bindings in no set order.
 */
import type { CompatRequest } from "./http.ts";
import type { Scenario, Step } from "./scenarios.ts";

const NS = "compat-authorization";
const RBAC = "rbac.authorization.k8s.io";
const RBAC_PATH = `/apis/${RBAC}/v1`;
const REVIEWS = "/apis/authorization.k8s.io/v1";
const PREFIX = "compat-authorization";

const post = (path: string, body: unknown): CompatRequest => ({ method: "POST", path, body });

const subject = (text: string) => {
  const [kind, name] = text.split("=") as [string, string];
  return kind === "ServiceAccount" ? { kind, name } : { kind, apiGroup: RBAC, name };
};

function binding(kind: string, name: string, roleRef: string, ...subjects: string[]) {
  const [refKind, refName] = roleRef.split("=") as [string, string];
  return {
    apiVersion: `${RBAC}/v1`,
    kind,
    metadata: { name },
    roleRef: { apiGroup: RBAC, kind: refKind, name: refName },
    subjects: subjects.map(subject),
  };
}

/** What a review asks about: a verb on a resource (in `namespace`), or on a path. */
type Asked =
  | {
      verb: string;
      resource: string;
      namespace?: string;
      name?: string;
      group?: string;
      subresource?: string;
    }
  | { verb: string; path: string };

/**
 * The review's attributes: in the scenario's namespace unless `namespace` says otherwise ("" is
 * cluster-wide, sent as no namespace at all: kube echoes an empty one back as absent).
 */
function attributes(asked: Asked) {
  if ("path" in asked) return { nonResourceAttributes: asked };
  const { namespace = NS, ...rest } = asked;
  return { resourceAttributes: { ...(namespace === "" ? {} : { namespace }), ...rest } };
}

function review(name: string, user: string, groups: string[], asked: Asked): Step {
  return {
    name: `SubjectAccessReview: ${name}`,
    request: () =>
      post(`${REVIEWS}/subjectaccessreviews`, {
        apiVersion: "authorization.k8s.io/v1",
        kind: "SubjectAccessReview",
        spec: { user, ...(groups.length > 0 ? { groups } : {}), ...attributes(asked) },
      }),
  };
}

const ALICE = `${PREFIX}-alice`;
const BOB = `${PREFIX}-bob`;
const CAROL = `${PREFIX}-carol`;
const READERS = `${PREFIX}-readers`;
const NODE_READER = `${PREFIX}-node-reader`;
const MISSING = `${PREFIX}-missing`;
const SA = `system:serviceaccount:${NS}:robot`;

/** The scenario: the objects first, then the reviews. */
export function authorizationScenario(): Scenario {
  const roles = `${RBAC_PATH}/namespaces/${NS}/roles`;
  const roleBindings = `${RBAC_PATH}/namespaces/${NS}/rolebindings`;
  const steps: Step[] = [
    {
      name: "create namespace",
      request: () =>
        post("/api/v1/namespaces", { apiVersion: "v1", kind: "Namespace", metadata: { name: NS } }),
    },
    {
      name: "create a Role",
      request: () =>
        post(roles, {
          apiVersion: `${RBAC}/v1`,
          kind: "Role",
          metadata: { name: "pod-reader" },
          rules: [
            { verbs: ["get", "list", "watch"], apiGroups: [""], resources: ["pods", "pods/log"] },
            {
              verbs: ["get", "update"],
              apiGroups: [""],
              resources: ["configmaps"],
              resourceNames: ["settings"],
            },
          ],
        }),
    },
    {
      name: "create a RoleBinding to a user and a group",
      request: () =>
        post(
          roleBindings,
          binding("RoleBinding", "readers", "Role=pod-reader", `User=${ALICE}`, `Group=${READERS}`),
        ),
    },
    {
      name: "create a RoleBinding to a ServiceAccount",
      request: () =>
        post(
          roleBindings,
          binding("RoleBinding", "robot", "Role=pod-reader", "ServiceAccount=robot"),
        ),
    },
    {
      name: "create a RoleBinding to a missing ClusterRole",
      request: () =>
        post(
          roleBindings,
          binding("RoleBinding", "dangling", `ClusterRole=${MISSING}`, `User=${CAROL}`),
        ),
    },
    {
      name: "create a ClusterRole",
      request: () =>
        post(`${RBAC_PATH}/clusterroles`, {
          apiVersion: `${RBAC}/v1`,
          kind: "ClusterRole",
          metadata: { name: NODE_READER },
          rules: [
            { verbs: ["list"], apiGroups: [""], resources: ["nodes"] },
            { verbs: ["get"], apiGroups: ["apps"], resources: ["*/scale"] },
            { verbs: ["get"], nonResourceURLs: ["/compat/*"] },
          ],
        }),
    },
    {
      name: "create a ClusterRoleBinding",
      request: () =>
        post(
          `${RBAC_PATH}/clusterrolebindings`,
          binding("ClusterRoleBinding", NODE_READER, `ClusterRole=${NODE_READER}`, `User=${BOB}`),
        ),
    },
    review("a user's RoleBinding allows", ALICE, [], { verb: "list", resource: "pods" }),
    review("a verb the role lacks", ALICE, [], { verb: "delete", resource: "pods" }),
    review("another namespace", ALICE, [], {
      verb: "list",
      resource: "pods",
      namespace: "default",
    }),
    review("a subresource", ALICE, [], {
      verb: "get",
      resource: "pods",
      subresource: "log",
      name: "p",
    }),
    review("a group's RoleBinding allows", `${PREFIX}-dave`, [READERS], {
      verb: "watch",
      resource: "pods",
    }),
    review("a resource name the rule lists", ALICE, [], {
      verb: "update",
      resource: "configmaps",
      name: "settings",
    }),
    review("a resource name it does not", ALICE, [], {
      verb: "update",
      resource: "configmaps",
      name: "other",
    }),
    review("a list where the rule names names", ALICE, [], {
      verb: "list",
      resource: "configmaps",
    }),
    review("a ServiceAccount subject", SA, [], { verb: "get", resource: "pods", name: "p" }),
    review("a ClusterRoleBinding, cluster-wide", BOB, [], {
      verb: "list",
      resource: "nodes",
      namespace: "",
    }),
    review("a ClusterRoleBinding, in a namespace", BOB, [], { verb: "list", resource: "nodes" }),
    review("*/scale", BOB, [], {
      verb: "get",
      group: "apps",
      resource: "deployments",
      subresource: "scale",
      name: "d",
    }),
    review("a non-resource path by wildcard", BOB, [], { verb: "get", path: "/compat/x" }),
    review("a non-resource verb it lacks", BOB, [], { verb: "post", path: "/compat/x" }),
    review("a binding to a missing role", CAROL, [], { verb: "list", resource: "pods" }),
    review("system:masters", `${PREFIX}-root`, ["system:masters"], {
      verb: "delete",
      resource: "secrets",
    }),
    review("discovery for the authenticated", `${PREFIX}-eve`, ["system:authenticated"], {
      verb: "get",
      path: "/apis",
    }),
    review("health for the anonymous", "system:anonymous", ["system:unauthenticated"], {
      verb: "get",
      path: "/healthz",
    }),
    review("discovery for the anonymous", "system:anonymous", ["system:unauthenticated"], {
      verb: "get",
      path: "/api",
    }),
    review("nobody", `${PREFIX}-nobody`, [], { verb: "get", resource: "pods" }),
    {
      name: "LocalSubjectAccessReview",
      request: () =>
        post(`${REVIEWS}/namespaces/${NS}/localsubjectaccessreviews`, {
          apiVersion: "authorization.k8s.io/v1",
          kind: "LocalSubjectAccessReview",
          metadata: { namespace: NS },
          spec: {
            user: ALICE,
            resourceAttributes: { namespace: NS, verb: "get", resource: "pods" },
          },
        }),
    },
    {
      name: "SelfSubjectAccessReview of the administrator",
      request: () =>
        post(`${REVIEWS}/selfsubjectaccessreviews`, {
          apiVersion: "authorization.k8s.io/v1",
          kind: "SelfSubjectAccessReview",
          spec: { resourceAttributes: { namespace: NS, verb: "delete", resource: "secrets" } },
        }),
    },
    // The administrator's rules come from several ClusterRoleBindings, which kube lists in no
    // set order: compare the fields only.
    {
      name: "SelfSubjectRulesReview of the administrator",
      compare: "keys",
      request: () =>
        post(`${REVIEWS}/selfsubjectrulesreviews`, {
          apiVersion: "authorization.k8s.io/v1",
          kind: "SelfSubjectRulesReview",
          spec: { namespace: NS },
        }),
    },
    {
      name: "delete the ClusterRoleBinding",
      request: () => ({
        method: "DELETE",
        path: `${RBAC_PATH}/clusterrolebindings/${NODE_READER}`,
      }),
    },
    {
      name: "delete the ClusterRole",
      request: () => ({ method: "DELETE", path: `${RBAC_PATH}/clusterroles/${NODE_READER}` }),
    },
  ];
  return { name: "authorization", steps };
}
