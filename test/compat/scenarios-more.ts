/**
 * The scenario table, part two: the other built-in groups, CustomResourceDefinitions and one
 * custom resource. Webhooks, policies and flow schemas match only a group that does not exist, so
 * that they change no other request while they exist.
 */
import { type CompatResource, resource } from "./resource.ts";

/** The custom resource's group; its CRD is created before the scenarios run. */
export const CUSTOM_GROUP = "compat.kontroller.dev";

/** The CRD of the custom resource the table holds (`widgets`). */
export const widgetCrd = {
  apiVersion: "apiextensions.k8s.io/v1",
  kind: "CustomResourceDefinition",
  metadata: { name: `widgets.${CUSTOM_GROUP}` },
  spec: crdSpec("widgets", "Widget", "Namespaced"),
};

function crdSpec(plural: string, kind: string, scope: string): Record<string, unknown> {
  return {
    group: CUSTOM_GROUP,
    scope,
    names: { plural, singular: kind.toLowerCase(), kind, listKind: `${kind}List` },
    versions: [
      {
        name: "v1",
        served: true,
        storage: true,
        schema: {
          openAPIV3Schema: {
            type: "object",
            properties: {
              spec: {
                type: "object",
                properties: { size: { type: "integer", minimum: 0 }, color: { type: "string" } },
              },
            },
          },
        },
      },
    ],
  };
}

/** Rules that match no resource: a group nothing serves. */
const NOTHING = {
  apiGroups: ["nothing.compat.invalid"],
  apiVersions: ["v1"],
  resources: ["nothings"],
};

function webhooks(): Record<string, unknown> {
  return {
    webhooks: [
      {
        name: "compat.example.com",
        clientConfig: { url: "https://compat.example.com/hook" },
        admissionReviewVersions: ["v1"],
        sideEffects: "None",
        failurePolicy: "Ignore",
        rules: [{ operations: ["CREATE"], ...NOTHING }],
      },
    ],
  };
}

const RBAC = "rbac.authorization.k8s.io";
const rules = [{ apiGroups: [""], resources: ["configmaps"], verbs: ["get", "list"] }];
const subjects = [{ kind: "User", apiGroup: RBAC, name: "jane" }];
const CSR =
  "LS0tLS1CRUdJTiBDRVJUSUZJQ0FURSBSRVFVRVNULS0tLS0KTUlITE1ITUNBUUF3RVRFUE1BMEdBMVVFQXd3R1kyOXRjR0YwTUZrd0V3WUhLb1pJemowQ0FRWUlLb1pJemowRApBUWNEUWdBRVJma01uUm1NWDJqWWhVWHFwa3JHSWUrdyt2QUdWLzVvMkN5NzNkOCtSb2w2NW9ic3lJSmUvajZGCjJ5ZXptQ2h4SWwyM0drRnNaUFRlY05WUkkzbmYrNkFBTUFvR0NDcUdTTTQ5QkFNQ0EwZ0FNRVVDSUExTjBFdzMKZ1ZiY0o3RDZ5WUw1UFdtWWZxckhyN0VUenc2R0p3ZEtJMlJ3QWlFQTVGd0c5aFVubTZRRDhtSE5ZMThCeVd1MQpaL2tqL1lRZ3hUdTFlZitNVmNBPQotLS0tLUVORCBDRVJUSUZJQ0FURSBSRVFVRVNULS0tLS0K";

export const moreResources: readonly CompatResource[] = [
  resource(
    "autoscaling",
    "v2",
    "HorizontalPodAutoscaler",
    "horizontalpodautoscalers",
    true,
    () => ({
      spec: {
        scaleTargetRef: { apiVersion: "apps/v1", kind: "Deployment", name: "web" },
        minReplicas: 1,
        maxReplicas: 3,
        metrics: [
          {
            type: "Resource",
            resource: { name: "cpu", target: { type: "Utilization", averageUtilization: 80 } },
          },
        ],
      },
    }),
  ),
  resource("policy", "v1", "PodDisruptionBudget", "poddisruptionbudgets", true, () => ({
    spec: { minAvailable: 1, selector: { matchLabels: { app: "compat" } } },
  })),
  resource(RBAC, "v1", "Role", "roles", true, () => ({ rules })),
  resource(RBAC, "v1", "RoleBinding", "rolebindings", true, () => ({
    roleRef: { apiGroup: RBAC, kind: "Role", name: "compat" },
    subjects,
  })),
  resource(RBAC, "v1", "ClusterRole", "clusterroles", false, () => ({ rules })),
  resource(RBAC, "v1", "ClusterRoleBinding", "clusterrolebindings", false, () => ({
    roleRef: { apiGroup: RBAC, kind: "ClusterRole", name: "view" },
    subjects,
  })),
  resource("scheduling.k8s.io", "v1", "PriorityClass", "priorityclasses", false, () => ({
    value: 1000,
    description: "a compatibility check",
  })),
  resource("storage.k8s.io", "v1", "StorageClass", "storageclasses", false, () => ({
    provisioner: "compat.example.com/disk",
  })),
  resource("storage.k8s.io", "v1", "CSIDriver", "csidrivers", false, () => ({
    spec: { attachRequired: true },
  })),
  resource("storage.k8s.io", "v1", "CSINode", "csinodes", false, () => ({
    spec: { drivers: [{ name: "compat.example.com", nodeID: "node-1" }] },
  })),
  resource("storage.k8s.io", "v1", "VolumeAttachment", "volumeattachments", false, () => ({
    spec: {
      attacher: "compat.example.com",
      nodeName: "node-1",
      source: { persistentVolumeName: "pv-1" },
    },
  })),
  resource(
    "storage.k8s.io",
    "v1",
    "VolumeAttributesClass",
    "volumeattributesclasses",
    false,
    () => ({
      driverName: "compat.example.com",
      parameters: { tier: "gold" },
    }),
  ),
  resource("networking.k8s.io", "v1", "Ingress", "ingresses", true, () => ({
    spec: { defaultBackend: { service: { name: "web", port: { number: 80 } } } },
  })),
  resource("networking.k8s.io", "v1", "IngressClass", "ingressclasses", false, () => ({
    spec: { controller: "compat.example.com/ingress" },
  })),
  resource("networking.k8s.io", "v1", "NetworkPolicy", "networkpolicies", true, () => ({
    spec: { podSelector: {}, policyTypes: ["Ingress"] },
  })),
  resource("coordination.k8s.io", "v1", "Lease", "leases", true, () => ({
    spec: { holderIdentity: "compat", leaseDurationSeconds: 15 },
  })),
  resource("discovery.k8s.io", "v1", "EndpointSlice", "endpointslices", true, () => ({
    addressType: "IPv4",
    endpoints: [{ addresses: ["10.1.2.3"] }],
    ports: [{ name: "http", port: 80, protocol: "TCP" }],
  })),
  resource("events.k8s.io", "v1", "Event", "events", true, (_, namespace) => ({
    eventTime: "2026-01-01T00:00:00.000000Z",
    reportingController: "compat.example.com/controller",
    reportingInstance: "compat-1",
    action: "Check",
    reason: "Compat",
    type: "Normal",
    note: "a compatibility check",
    regarding: { kind: "Pod", name: "web", namespace },
  })),
  resource(
    "apiextensions.k8s.io",
    "v1",
    "CustomResourceDefinition",
    "customresourcedefinitions",
    false,
    // A CRD's name is its plural and group.
    (name) => {
      const plural = name.split(".")[0]!;
      const kind = plural[0]!.toUpperCase() + plural.slice(1, -1);
      return { spec: crdSpec(plural, kind, "Cluster") };
    },
    { names: [`gadgets.${CUSTOM_GROUP}`, `gizmos.${CUSTOM_GROUP}`] },
  ),
  resource(CUSTOM_GROUP, "v1", "Widget", "widgets", true, () => ({ spec: { size: 1 } }), {
    custom: true,
  }),
  resource(
    "admissionregistration.k8s.io",
    "v1",
    "MutatingWebhookConfiguration",
    "mutatingwebhookconfigurations",
    false,
    webhooks,
  ),
  resource(
    "admissionregistration.k8s.io",
    "v1",
    "ValidatingWebhookConfiguration",
    "validatingwebhookconfigurations",
    false,
    webhooks,
  ),
  resource(
    "admissionregistration.k8s.io",
    "v1",
    "ValidatingAdmissionPolicy",
    "validatingadmissionpolicies",
    false,
    () => ({
      spec: {
        matchConstraints: { resourceRules: [{ operations: ["CREATE"], ...NOTHING }] },
        validations: [{ expression: "true" }],
      },
    }),
  ),
  resource(
    "admissionregistration.k8s.io",
    "v1",
    "ValidatingAdmissionPolicyBinding",
    "validatingadmissionpolicybindings",
    false,
    () => ({ spec: { policyName: "compat-nothing", validationActions: ["Deny"] } }),
  ),
  resource("node.k8s.io", "v1", "RuntimeClass", "runtimeclasses", false, () => ({
    handler: "runc",
  })),
  resource(
    "certificates.k8s.io",
    "v1",
    "CertificateSigningRequest",
    "certificatesigningrequests",
    false,
    () => ({
      spec: {
        request: CSR,
        signerName: "compat.example.com/signer",
        usages: ["digital signature"],
      },
    }),
  ),
  resource(
    "flowcontrol.apiserver.k8s.io",
    "v1",
    "PriorityLevelConfiguration",
    "prioritylevelconfigurations",
    false,
    () => ({
      spec: {
        type: "Limited",
        limited: { nominalConcurrencyShares: 5, limitResponse: { type: "Reject" } },
      },
    }),
  ),
  resource("flowcontrol.apiserver.k8s.io", "v1", "FlowSchema", "flowschemas", false, () => ({
    spec: {
      priorityLevelConfiguration: { name: "global-default" },
      matchingPrecedence: 9000,
      rules: [
        {
          subjects: [{ kind: "User", user: { name: "nobody.compat.invalid" } }],
          resourceRules: [
            {
              verbs: ["get"],
              apiGroups: NOTHING.apiGroups,
              resources: NOTHING.resources,
              namespaces: ["*"],
            },
          ],
        },
      ],
    },
  })),
  resource("resource.k8s.io", "v1", "DeviceClass", "deviceclasses", false, () => ({
    spec: { selectors: [{ cel: { expression: 'device.driver == "compat.example.com"' } }] },
  })),
  resource("resource.k8s.io", "v1", "ResourceClaim", "resourceclaims", true, () => ({
    spec: { devices: { requests: [{ name: "gpu", exactly: { deviceClassName: "compat" } }] } },
  })),
  resource(
    "resource.k8s.io",
    "v1",
    "ResourceClaimTemplate",
    "resourceclaimtemplates",
    true,
    () => ({
      spec: {
        spec: { devices: { requests: [{ name: "gpu", exactly: { deviceClassName: "compat" } }] } },
      },
    }),
  ),
  resource("resource.k8s.io", "v1", "ResourceSlice", "resourceslices", false, () => ({
    spec: {
      driver: "compat.example.com",
      pool: { name: "compat", generation: 1, resourceSliceCount: 1 },
      allNodes: true,
      devices: [{ name: "dev-0" }],
    },
  })),
  resource(
    "admissionregistration.k8s.io",
    "v1",
    "MutatingAdmissionPolicy",
    "mutatingadmissionpolicies",
    false,
    () => ({
      spec: {
        matchConstraints: { resourceRules: [{ operations: ["CREATE"], ...NOTHING }] },
        mutations: [
          {
            patchType: "ApplyConfiguration",
            applyConfiguration: { expression: "Object{metadata: Object.metadata{}}" },
          },
        ],
        reinvocationPolicy: "Never",
      },
    }),
  ),
  resource(
    "admissionregistration.k8s.io",
    "v1",
    "MutatingAdmissionPolicyBinding",
    "mutatingadmissionpolicybindings",
    false,
    () => ({ spec: { policyName: "compat-nothing" } }),
  ),
  resource("storage.k8s.io", "v1", "CSIStorageCapacity", "csistoragecapacities", true, () => ({
    storageClassName: "compat",
    capacity: "1Gi",
  })),
  // An IPAddress is named by its address: two outside every service range.
  resource(
    "networking.k8s.io",
    "v1",
    "IPAddress",
    "ipaddresses",
    false,
    () => ({
      spec: { parentRef: { group: "", resource: "services", namespace: "default", name: "x" } },
    }),
    { names: ["192.168.77.1", "192.168.77.2"] },
  ),
  resource("networking.k8s.io", "v1", "ServiceCIDR", "servicecidrs", false, () => ({
    spec: { cidrs: ["10.99.0.0/24"] },
  })),
];
