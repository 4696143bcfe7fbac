import type { ClusterRole, ClusterRoleBinding, PolicyRule, Subject } from "./types.ts";

/*
 * The ClusterRoles and ClusterRoleBindings kube-apiserver 1.36 creates at start (its
 * bootstrap policy, default feature gates) that controller authors and kubectl users meet: the
 * user-facing roles (cluster-admin, admin, edit, view and the parts admin, edit and view are
 * aggregated from), the roles every user is bound to (discovery, basic-user,
 * public-info-viewer), and a few system roles. Not here: node, kubelet, volume, certificate and
 * the per-controller `system:controller:*` roles, and the Roles of kube-system and kube-public.
 *
 * Each rule is built as kube's rule builder builds it: every list sorted. Every object carries
 * kube's `kubernetes.io/bootstrapping: rbac-defaults` label and the autoupdate annotation.
 */

const READ = ["get", "list", "watch"];
const WRITE = ["create", "update", "patch", "delete", "deletecollection"];
const READ_WRITE = [...READ, ...WRITE];

const CORE = "";
const APPS = "apps";
const AUTHENTICATION = "authentication.k8s.io";
const AUTHORIZATION = "authorization.k8s.io";
const AUTOSCALING = "autoscaling";
const BATCH = "batch";
const COORDINATION = "coordination.k8s.io";
const DISCOVERY = "discovery.k8s.io";
const EVENTS = "events.k8s.io";
const EXTENSIONS = "extensions";
const NETWORKING = "networking.k8s.io";
const POLICY = "policy";
const RBAC = "rbac.authorization.k8s.io";
const RESOURCE = "resource.k8s.io";
const STORAGE = "storage.k8s.io";

/** The label every bootstrap object carries. */
export const BOOTSTRAPPING_LABEL = "kubernetes.io/bootstrapping";
/** The annotation that lets kube-apiserver reconcile a bootstrap object at start. */
export const AUTOUPDATE_ANNOTATION = "rbac.authorization.kubernetes.io/autoupdate";
/** Labels that aggregate a ClusterRole into admin, edit and view. */
export const AGGREGATE_TO_ADMIN = "rbac.authorization.k8s.io/aggregate-to-admin";
export const AGGREGATE_TO_EDIT = "rbac.authorization.k8s.io/aggregate-to-edit";
export const AGGREGATE_TO_VIEW = "rbac.authorization.k8s.io/aggregate-to-view";

const sorted = (xs: readonly string[]) => [...xs].sort();

function rule(
  verbs: readonly string[],
  groups: readonly string[],
  resources: readonly string[],
  names?: readonly string[],
): PolicyRule {
  return {
    verbs: sorted(verbs),
    apiGroups: sorted(groups),
    resources: sorted(resources),
    ...(names === undefined ? {} : { resourceNames: sorted(names) }),
  };
}

function urls(verbs: readonly string[], paths: readonly string[]): PolicyRule {
  return { verbs: sorted(verbs), nonResourceURLs: sorted(paths) };
}

/** kube's `eventsRule`: writing events in the core and events.k8s.io groups. */
const eventsRule = () => rule(["create", "update", "patch"], [CORE, EVENTS], ["events"]);

function metadata(name: string, labels: Record<string, string> = {}) {
  return {
    name,
    labels: { [BOOTSTRAPPING_LABEL]: "rbac-defaults", ...labels },
    annotations: { [AUTOUPDATE_ANNOTATION]: "true" },
  };
}

function clusterRole(
  name: string,
  rules: PolicyRule[],
  labels?: Record<string, string>,
): ClusterRole {
  return { apiVersion: `${RBAC}/v1`, kind: "ClusterRole", metadata: metadata(name, labels), rules };
}

function aggregated(
  name: string,
  selectorLabel: string,
  labels?: Record<string, string>,
): ClusterRole {
  return {
    apiVersion: `${RBAC}/v1`,
    kind: "ClusterRole",
    metadata: metadata(name, labels),
    aggregationRule: { clusterRoleSelectors: [{ matchLabels: { [selectorLabel]: "true" } }] },
    rules: null,
  };
}

function viewRules(): PolicyRule[] {
  return [
    rule(
      READ,
      [CORE],
      [
        "pods",
        "replicationcontrollers",
        "replicationcontrollers/scale",
        "serviceaccounts",
        "services",
        "services/status",
        "endpoints",
        "persistentvolumeclaims",
        "persistentvolumeclaims/status",
        "configmaps",
      ],
    ),
    rule(
      READ,
      [CORE],
      [
        "limitranges",
        "resourcequotas",
        "bindings",
        "pods/status",
        "resourcequotas/status",
        "namespaces/status",
        "replicationcontrollers/status",
        "pods/log",
      ],
    ),
    // Reading namespaces in a namespace means reading that namespace.
    rule(READ, [CORE], ["namespaces"]),
    rule(READ, [CORE, EVENTS], ["events"]),
    rule(READ, [DISCOVERY], ["endpointslices"]),
    rule(
      READ,
      [APPS],
      [
        "controllerrevisions",
        "statefulsets",
        "statefulsets/status",
        "statefulsets/scale",
        "daemonsets",
        "daemonsets/status",
        "deployments",
        "deployments/status",
        "deployments/scale",
        "replicasets",
        "replicasets/status",
        "replicasets/scale",
      ],
    ),
    rule(READ, [AUTOSCALING], ["horizontalpodautoscalers", "horizontalpodautoscalers/status"]),
    rule(READ, [BATCH], ["jobs", "cronjobs", "cronjobs/status", "jobs/status"]),
    rule(
      READ,
      [EXTENSIONS],
      [
        "daemonsets",
        "daemonsets/status",
        "deployments",
        "deployments/scale",
        "deployments/status",
        "ingresses",
        "ingresses/status",
        "replicasets",
        "replicasets/scale",
        "replicasets/status",
        "replicationcontrollers/scale",
        "networkpolicies",
      ],
    ),
    rule(READ, [POLICY], ["poddisruptionbudgets", "poddisruptionbudgets/status"]),
    rule(READ, [NETWORKING], ["networkpolicies", "ingresses", "ingresses/status"]),
    // DynamicResourceAllocation, on by default.
    rule(READ, [RESOURCE], ["resourceclaims", "resourceclaims/status", "resourceclaimtemplates"]),
  ];
}

function editRules(): PolicyRule[] {
  return [
    // Reading the resources that escalate (exec, secrets, proxies).
    rule(
      READ,
      [CORE],
      ["pods/attach", "pods/proxy", "pods/exec", "pods/portforward", "secrets", "services/proxy"],
    ),
    rule(["impersonate"], [CORE], ["serviceaccounts"]),
    rule(WRITE, [CORE], ["pods", "pods/attach", "pods/proxy", "pods/exec", "pods/portforward"]),
    rule(["create"], [CORE], ["pods/eviction"]),
    rule(
      WRITE,
      [CORE],
      [
        "replicationcontrollers",
        "replicationcontrollers/scale",
        "serviceaccounts",
        "services",
        "services/proxy",
        "persistentvolumeclaims",
        "configmaps",
        "secrets",
      ],
    ),
    rule(["create"], [CORE], ["serviceaccounts/token"]),
    rule(WRITE, [CORE, EVENTS], ["events"]),
    rule(
      WRITE,
      [APPS],
      [
        "statefulsets",
        "statefulsets/scale",
        "daemonsets",
        "deployments",
        "deployments/scale",
        "deployments/rollback",
        "replicasets",
        "replicasets/scale",
      ],
    ),
    rule(WRITE, [AUTOSCALING], ["horizontalpodautoscalers"]),
    rule(WRITE, [BATCH], ["jobs", "cronjobs"]),
    rule(
      WRITE,
      [EXTENSIONS],
      [
        "daemonsets",
        "deployments",
        "deployments/scale",
        "deployments/rollback",
        "ingresses",
        "replicasets",
        "replicasets/scale",
        "replicationcontrollers/scale",
        "networkpolicies",
      ],
    ),
    rule(WRITE, [POLICY], ["poddisruptionbudgets"]),
    rule(WRITE, [NETWORKING], ["networkpolicies", "ingresses"]),
    rule(READ_WRITE, [COORDINATION], ["leases"]),
    rule(WRITE, [RESOURCE], ["resourceclaims", "resourceclaimtemplates"]),
  ];
}

function kubeControllerManagerRules(): PolicyRule[] {
  return [
    eventsRule(),
    rule(["create"], [COORDINATION], ["leases"]),
    rule(["get", "update"], [COORDINATION], ["leases"], ["kube-controller-manager"]),
    rule(["create"], [CORE], ["secrets", "serviceaccounts"]),
    rule(["delete"], [CORE], ["secrets"]),
    rule(["get"], [CORE], ["namespaces", "secrets", "serviceaccounts", "configmaps"]),
    rule(["update"], [CORE], ["secrets", "serviceaccounts"]),
    rule(["create"], [AUTHENTICATION], ["tokenreviews"]),
    rule(["create"], [AUTHORIZATION], ["subjectaccessreviews"]),
    rule(["list", "watch"], ["*"], ["*"]),
    rule(["create"], [CORE], ["serviceaccounts/token"]),
  ];
}

function kubeSchedulerRules(): PolicyRule[] {
  const readUpdate = [...READ, "update", "patch"];
  return [
    eventsRule(),
    rule(["create"], [COORDINATION], ["leases"]),
    rule(["get", "update", "list", "watch"], [COORDINATION], ["leases"], ["kube-scheduler"]),
    rule(READ_WRITE, [COORDINATION], ["leasecandidates"]),
    rule(READ, [CORE], ["nodes"]),
    rule(["get", "list", "watch", "delete"], [CORE], ["pods"]),
    rule(["create"], [CORE], ["pods/binding", "bindings"]),
    rule(["patch", "update"], [CORE], ["pods/status"]),
    rule(READ, [CORE], ["services", "replicationcontrollers"]),
    rule(READ, [APPS, EXTENSIONS], ["replicasets"]),
    rule(READ, [APPS], ["statefulsets"]),
    rule(READ, [POLICY], ["poddisruptionbudgets"]),
    rule(READ, [CORE], ["persistentvolumeclaims", "persistentvolumes"]),
    rule(["create"], [AUTHENTICATION], ["tokenreviews"]),
    rule(["create"], [AUTHORIZATION], ["subjectaccessreviews"]),
    rule(READ, [STORAGE], ["csinodes"]),
    rule(READ, [STORAGE], ["volumeattachments"]),
    rule(READ, [CORE], ["namespaces"]),
    rule(READ, [STORAGE], ["csidrivers"]),
    rule(READ, [STORAGE], ["csistoragecapacities"]),
    // DynamicResourceAllocation and its default-on parts.
    rule(READ, [RESOURCE], ["deviceclasses"]),
    rule(readUpdate, [RESOURCE], ["resourceclaims"]),
    rule(readUpdate, [RESOURCE], ["resourceclaims/status"]),
    rule(["update"], [CORE], ["pods/finalizers"]),
    rule(READ, [RESOURCE], ["resourceslices"]),
    rule(["create", "delete"], [RESOURCE], ["resourceclaims"]),
    rule(["update", "patch"], [RESOURCE], ["resourceclaims/binding"]),
  ];
}

/** The bootstrap ClusterRoles, by name. */
export function bootstrapClusterRoles(): ClusterRole[] {
  return [
    clusterRole("cluster-admin", [rule(["*"], ["*"], ["*"]), urls(["*"], ["*"])]),
    clusterRole("system:discovery", [
      urls(
        ["get"],
        [
          "/livez",
          "/readyz",
          "/healthz",
          "/version",
          "/version/",
          "/openapi",
          "/openapi/*",
          "/api",
          "/api/*",
          "/apis",
          "/apis/*",
        ],
      ),
    ]),
    clusterRole("system:monitoring", [
      urls(
        ["get"],
        [
          "/metrics",
          "/metrics/slis",
          "/livez",
          "/readyz",
          "/healthz",
          "/livez/*",
          "/readyz/*",
          "/healthz/*",
          "/flagz",
          "/statusz",
        ],
      ),
      rule(["get"], [CORE], ["nodes/metrics"]),
    ]),
    clusterRole("system:basic-user", [
      rule(["create"], [AUTHORIZATION], ["selfsubjectaccessreviews", "selfsubjectrulesreviews"]),
      rule(["create"], [AUTHENTICATION], ["selfsubjectreviews"]),
    ]),
    clusterRole("system:public-info-viewer", [
      urls(["get"], ["/livez", "/readyz", "/healthz", "/version", "/version/"]),
    ]),
    aggregated("admin", AGGREGATE_TO_ADMIN),
    aggregated("edit", AGGREGATE_TO_EDIT, { [AGGREGATE_TO_ADMIN]: "true" }),
    aggregated("view", AGGREGATE_TO_VIEW, { [AGGREGATE_TO_EDIT]: "true" }),
    clusterRole(
      "system:aggregate-to-admin",
      [
        rule(["create"], [AUTHORIZATION], ["localsubjectaccessreviews"]),
        rule(READ_WRITE, [RBAC], ["roles", "rolebindings"]),
      ],
      { [AGGREGATE_TO_ADMIN]: "true" },
    ),
    clusterRole("system:aggregate-to-edit", editRules(), { [AGGREGATE_TO_EDIT]: "true" }),
    clusterRole("system:aggregate-to-view", viewRules(), { [AGGREGATE_TO_VIEW]: "true" }),
    clusterRole("system:auth-delegator", [
      rule(["create"], [AUTHENTICATION], ["tokenreviews"]),
      rule(["create"], [AUTHORIZATION], ["subjectaccessreviews"]),
    ]),
    clusterRole("system:kube-controller-manager", kubeControllerManagerRules()),
    clusterRole("system:service-account-issuer-discovery", [
      urls(
        ["get"],
        [
          "/.well-known/openid-configuration",
          "/.well-known/openid-configuration/",
          "/openid/v1/jwks",
          "/openid/v1/jwks/",
        ],
      ),
    ]),
    clusterRole("system:kube-scheduler", kubeSchedulerRules()),
  ];
}

const group = (name: string): Subject => ({ apiGroup: RBAC, kind: "Group", name });
const userSubject = (name: string): Subject => ({ apiGroup: RBAC, kind: "User", name });

function binding(roleName: string, subjects: Subject[]): ClusterRoleBinding {
  return {
    apiVersion: `${RBAC}/v1`,
    kind: "ClusterRoleBinding",
    metadata: metadata(roleName),
    roleRef: { apiGroup: RBAC, kind: "ClusterRole", name: roleName },
    subjects,
  };
}

/** The bootstrap ClusterRoleBindings of {@link bootstrapClusterRoles}, each named as its role. */
export function bootstrapClusterRoleBindings(): ClusterRoleBinding[] {
  return [
    binding("cluster-admin", [group("system:masters")]),
    binding("system:monitoring", [group("system:monitoring")]),
    binding("system:discovery", [group("system:authenticated")]),
    binding("system:basic-user", [group("system:authenticated")]),
    binding("system:public-info-viewer", [
      group("system:authenticated"),
      group("system:unauthenticated"),
    ]),
    binding("system:kube-controller-manager", [userSubject("system:kube-controller-manager")]),
    binding("system:kube-scheduler", [userSubject("system:kube-scheduler")]),
    binding("system:service-account-issuer-discovery", [group("system:serviceaccounts")]),
  ];
}
