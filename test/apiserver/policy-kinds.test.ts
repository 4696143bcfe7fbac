/**
 * LimitRanges, ResourceQuotas, PodDisruptionBudgets, PriorityClasses, API priority and
 * fairness, RBAC bindings and resource.k8s.io claims read back as kube-apiserver 1.36 returns
 * them: defaulted, owned by their writer, created with kube's first status. The expectations are
 * kube's answers to these requests; runs on both backends.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { startTestServer, type TestServer } from "kontroller/testing";
import { call } from "./helpers.ts";
import { type KindCase, kindCases } from "./kind-defaults-rig.ts";

const RBAC = "rbac.authorization.k8s.io";
const FLOW = "flowcontrol.apiserver.k8s.io";
const FLOW_PATH = `/apis/${FLOW}/v1`;
const rule = {
  subjects: [{ kind: "User", user: { name: "nobody" } }],
  resourceRules: [{ verbs: ["get"], apiGroups: ["x"], resources: ["y"], namespaces: ["*"] }],
};

const CASES: KindCase[] = [
  {
    path: "/api/v1/namespaces/default/limitranges",
    apiVersion: "v1",
    kind: "LimitRange",
    body: {
      spec: {
        limits: [
          { type: "Container", max: { memory: "1Gi" }, min: { cpu: "10m" } },
          { type: "Pod", max: { cpu: "2" } },
        ],
      },
    },
    want: {
      spec: {
        limits: [
          {
            type: "Container",
            max: { memory: "1Gi" },
            min: { cpu: "10m" },
            default: { memory: "1Gi" },
            defaultRequest: { memory: "1Gi", cpu: "10m" },
          },
          { type: "Pod", max: { cpu: "2" } },
        ],
      },
    },
  },
  {
    path: "/api/v1/namespaces/default/resourcequotas",
    apiVersion: "v1",
    kind: "ResourceQuota",
    body: { spec: { hard: { pods: "10" } }, status: { hard: { pods: "1" } } },
    want: { spec: { hard: { pods: "10" } }, status: {} },
  },
  {
    path: "/apis/policy/v1/namespaces/default/poddisruptionbudgets",
    apiVersion: "policy/v1",
    kind: "PodDisruptionBudget",
    body: { spec: { minAvailable: 1, selector: { matchLabels: { app: "a" } } } },
    want: {
      spec: { minAvailable: 1, selector: { matchLabels: { app: "a" } } },
      status: { disruptionsAllowed: 0, currentHealthy: 0, desiredHealthy: 0, expectedPods: 0 },
      metadata: { generation: 1 },
    },
  },
  {
    path: "/apis/scheduling.k8s.io/v1/priorityclasses",
    apiVersion: "scheduling.k8s.io/v1",
    kind: "PriorityClass",
    body: { value: 1000 },
    want: { value: 1000, preemptionPolicy: "PreemptLowerPriority", metadata: { generation: 1 } },
    owns: ["f:preemptionPolicy"],
  },
  {
    path: `${FLOW_PATH}/flowschemas`,
    apiVersion: `${FLOW}/v1`,
    kind: "FlowSchema",
    body: { spec: { priorityLevelConfiguration: { name: "global-default" }, rules: [rule] } },
    want: {
      spec: {
        priorityLevelConfiguration: { name: "global-default" },
        matchingPrecedence: 1000,
        rules: [rule],
      },
      status: {},
      metadata: { generation: 1 },
    },
  },
  {
    path: `${FLOW_PATH}/prioritylevelconfigurations`,
    apiVersion: `${FLOW}/v1`,
    kind: "PriorityLevelConfiguration",
    body: {
      spec: { type: "Limited", limited: { limitResponse: { type: "Queue", queuing: {} } } },
    },
    want: {
      spec: {
        type: "Limited",
        limited: {
          nominalConcurrencyShares: 30,
          lendablePercent: 0,
          limitResponse: {
            type: "Queue",
            queuing: { queues: 64, handSize: 8, queueLengthLimit: 50 },
          },
        },
      },
      status: {},
      metadata: { generation: 1 },
    },
    owns: ["f:spec.f:limited.f:lendablePercent"],
  },
  {
    path: `/apis/${RBAC}/v1/namespaces/default/rolebindings`,
    apiVersion: `${RBAC}/v1`,
    kind: "RoleBinding",
    body: {
      roleRef: { kind: "Role", name: "r" },
      subjects: [
        { kind: "User", name: "jane" },
        { kind: "ServiceAccount", name: "default", namespace: "default" },
      ],
    },
    want: {
      roleRef: { apiGroup: RBAC, kind: "Role", name: "r" },
      subjects: [
        { kind: "User", apiGroup: RBAC, name: "jane" },
        { kind: "ServiceAccount", name: "default", namespace: "default" },
      ],
    },
  },
  {
    path: "/apis/resource.k8s.io/v1/namespaces/default/resourceclaimtemplates",
    apiVersion: "resource.k8s.io/v1",
    kind: "ResourceClaimTemplate",
    body: {
      spec: {
        spec: { devices: { requests: [{ name: "one", exactly: { deviceClassName: "c" } }] } },
      },
    },
    want: {
      spec: {
        metadata: {},
        spec: {
          devices: {
            requests: [
              {
                name: "one",
                exactly: { deviceClassName: "c", allocationMode: "ExactCount", count: 1 },
              },
            ],
          },
        },
      },
    },
  },
  {
    path: "/apis/resource.k8s.io/v1/namespaces/default/resourceclaims",
    apiVersion: "resource.k8s.io/v1",
    kind: "ResourceClaim",
    body: {
      spec: {
        devices: {
          requests: [
            { name: "one", exactly: { deviceClassName: "c", tolerations: [{ key: "k" }] } },
            {
              name: "any",
              firstAvailable: [{ name: "a", deviceClassName: "c", allocationMode: "All" }],
            },
          ],
        },
      },
    },
    want: {
      spec: {
        devices: {
          requests: [
            {
              name: "one",
              exactly: {
                deviceClassName: "c",
                tolerations: [{ key: "k", operator: "Equal" }],
                allocationMode: "ExactCount",
                count: 1,
              },
            },
            {
              name: "any",
              firstAvailable: [{ name: "a", deviceClassName: "c", allocationMode: "All" }],
            },
          ],
        },
      },
      status: {},
    },
  },
];

describe("policy and resource kinds read back as kube-apiserver returns them", () => {
  let s: TestServer;
  before(async () => {
    s = await startTestServer({ controllers: false });
  });
  after(() => s.close());
  kindCases(() => s, CASES);

  it("answers a DELETE of a ResourceQuota or a ServiceAccount with the object", async () => {
    const quotas = "/api/v1/namespaces/default/resourcequotas";
    await call(s.url, "POST", quotas, {
      apiVersion: "v1",
      kind: "ResourceQuota",
      metadata: { name: "gone" },
      spec: { hard: { pods: "1" } },
    });
    const quota = await call(s.url, "DELETE", `${quotas}/gone`);
    assert.equal(quota.status, 200);
    assert.equal(quota.body.kind, "ResourceQuota");
    const accounts = "/api/v1/namespaces/default/serviceaccounts";
    await call(s.url, "POST", accounts, {
      apiVersion: "v1",
      kind: "ServiceAccount",
      metadata: { name: "gone" },
    });
    const account = await call(s.url, "DELETE", `${accounts}/gone`);
    assert.equal(account.status, 200);
    assert.equal(account.body.kind, "ServiceAccount");
  });

  it("refuses a ControllerRevision without data", async () => {
    const res = await call(s.url, "POST", "/apis/apps/v1/namespaces/default/controllerrevisions", {
      apiVersion: "apps/v1",
      kind: "ControllerRevision",
      metadata: { name: "r" },
      revision: 1,
    });
    assert.equal(res.status, 422);
    assert.deepEqual(res.body.details.causes, [
      { reason: "FieldValueRequired", message: "Required value: data is mandatory", field: "data" },
    ]);
  });

  it("records a ControllerRevision's data as one field, as kube manages embedded JSON", async () => {
    const res = await call(
      s.url,
      "POST",
      "/apis/apps/v1/namespaces/default/controllerrevisions?fieldManager=writer",
      {
        apiVersion: "apps/v1",
        kind: "ControllerRevision",
        metadata: { name: "owned" },
        data: { spec: { template: { metadata: { labels: { a: "b" } } } } },
        revision: 1,
      },
    );
    assert.equal(res.status, 201, JSON.stringify(res.body));
    assert.deepEqual(res.body.metadata.managedFields[0].fieldsV1, {
      "f:data": {},
      "f:revision": {},
    });
  });
});
