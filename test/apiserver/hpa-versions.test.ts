/**
 * HorizontalPodAutoscalers at autoscaling/v2 and autoscaling/v1, one stored object served by
 * both: v2's defaults, v1 converted both ways (the CPU target, the round-trip annotations in
 * kube's formats, the behavior one as kube's Go type), the registry's status handling and
 * kube's validation causes. The expectations are kube-apiserver 1.36's answers; the suite runs
 * on both backends.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { startTestServer, type TestServer } from "kontroller/testing";
import { call, type Loose, watch } from "./helpers.ts";
import { TABLE } from "./table-rig.ts";

let s: TestServer;
before(async () => {
  s = await startTestServer({ controllers: false });
});
after(() => s.close());

const NS = "default";
const V1 = `/apis/autoscaling/v1/namespaces/${NS}/horizontalpodautoscalers`;
const V2 = `/apis/autoscaling/v2/namespaces/${NS}/horizontalpodautoscalers`;
const target = { kind: "Deployment", name: "web", apiVersion: "apps/v1" };
const METRICS = "autoscaling.alpha.kubernetes.io/metrics";
const CURRENT = "autoscaling.alpha.kubernetes.io/current-metrics";
const CONDITIONS = "autoscaling.alpha.kubernetes.io/conditions";
const BEHAVIOR = "autoscaling.alpha.kubernetes.io/behavior";

/** Go's JSON of kube's default behavior, each rule as `rules` gives it. */
const scaleUpDefault = {
  StabilizationWindowSeconds: 0,
  SelectPolicy: "Max",
  Policies: [
    { Type: "Pods", Value: 4, PeriodSeconds: 15 },
    { Type: "Percent", Value: 100, PeriodSeconds: 15 },
  ],
  Tolerance: null,
};
const scaleDownDefault = {
  StabilizationWindowSeconds: null,
  SelectPolicy: "Max",
  Policies: [{ Type: "Percent", Value: 100, PeriodSeconds: 15 }],
  Tolerance: null,
};
const v2ScaleUpDefault = {
  stabilizationWindowSeconds: 0,
  selectPolicy: "Max",
  policies: [
    { type: "Pods", value: 4, periodSeconds: 15 },
    { type: "Percent", value: 100, periodSeconds: 15 },
  ],
};
const v2ScaleDownDefault = {
  selectPolicy: "Max",
  policies: [{ type: "Percent", value: 100, periodSeconds: 15 }],
};
const cpu = (percent: number) => ({
  type: "Resource",
  resource: { name: "cpu", target: { type: "Utilization", averageUtilization: percent } },
});

async function create(path: string, body: Loose): Promise<Loose> {
  const r = await call(s.url, "POST", path, body);
  assert.equal(r.status, 201, JSON.stringify(r.body));
  return r.body;
}

async function get(path: string): Promise<Loose> {
  const r = await call(s.url, "GET", path);
  assert.equal(r.status, 200, JSON.stringify(r.body));
  return r.body;
}

/** Every metric type, the second a CPU utilization (v1's target). */
const allMetrics = [
  {
    type: "Resource",
    resource: { name: "memory", target: { type: "AverageValue", averageValue: "100Mi" } },
  },
  cpu(60),
  {
    type: "Pods",
    pods: { metric: { name: "qps" }, target: { type: "AverageValue", averageValue: "10" } },
  },
  {
    type: "Object",
    object: {
      describedObject: target,
      target: { type: "Value", value: "5" },
      metric: { name: "hits", selector: { matchLabels: { a: "b" } } },
    },
  },
  {
    type: "External",
    external: { metric: { name: "queue" }, target: { type: "AverageValue", averageValue: "30" } },
  },
  {
    type: "ContainerResource",
    containerResource: {
      name: "cpu",
      target: { type: "Utilization", averageUtilization: 70 },
      container: "main",
    },
  },
];
const allMetricsV1 = [
  { type: "Resource", resource: { name: "memory", targetAverageValue: "100Mi" } },
  { type: "Pods", pods: { metricName: "qps", targetAverageValue: "10" } },
  {
    type: "Object",
    object: {
      target,
      metricName: "hits",
      targetValue: "5",
      selector: { matchLabels: { a: "b" } },
    },
  },
  { type: "External", external: { metricName: "queue", targetAverageValue: "30" } },
  {
    type: "ContainerResource",
    containerResource: { name: "cpu", targetAverageUtilization: 70, container: "main" },
  },
];

describe("HorizontalPodAutoscalers at autoscaling/v2 and v1", () => {
  it("a v1 autoscaler gets minReplicas 1 and an 80% CPU target, stored as v2's CPU metric", async () => {
    const created = await create(V1, {
      metadata: { name: "a" },
      spec: { scaleTargetRef: target, maxReplicas: 5 },
    });
    assert.equal(created.apiVersion, "autoscaling/v1");
    assert.deepEqual(created.spec, {
      scaleTargetRef: target,
      minReplicas: 1,
      maxReplicas: 5,
      targetCPUUtilizationPercentage: 80,
    });
    assert.deepEqual(created.status, { currentReplicas: 0, desiredReplicas: 0 });
    assert.equal(created.metadata.generation, undefined);
    const v2 = await get(`${V2}/a`);
    assert.equal(v2.apiVersion, "autoscaling/v2");
    assert.deepEqual(v2.spec, {
      scaleTargetRef: target,
      minReplicas: 1,
      maxReplicas: 5,
      metrics: [cpu(80)],
    });
    assert.deepEqual(v2.status, { desiredReplicas: 0, currentMetrics: null });
    assert.equal(v2.metadata.annotations, undefined);
  });

  it("a v1 CPU target is v2's CPU metric; other annotations stay", async () => {
    await create(V1, {
      metadata: { name: "b", annotations: { x: "y" } },
      spec: {
        scaleTargetRef: target,
        minReplicas: 2,
        maxReplicas: 5,
        targetCPUUtilizationPercentage: 50,
      },
    });
    const v2 = await get(`${V2}/b`);
    assert.deepEqual(v2.metadata.annotations, { x: "y" });
    assert.deepEqual(v2.spec.metrics, [cpu(50)]);
    assert.equal(v2.spec.minReplicas, 2);
  });

  it("v2's other metrics, behavior, current metrics and conditions read as v1 annotations", async () => {
    const created = await create(V2, {
      metadata: { name: "c" },
      spec: {
        scaleTargetRef: target,
        maxReplicas: 5,
        metrics: allMetrics,
        behavior: { scaleDown: { stabilizationWindowSeconds: 60 } },
      },
    });
    assert.deepEqual(created.spec, {
      scaleTargetRef: target,
      minReplicas: 1,
      maxReplicas: 5,
      metrics: allMetrics,
      behavior: {
        scaleUp: v2ScaleUpDefault,
        scaleDown: { ...v2ScaleDownDefault, stabilizationWindowSeconds: 60 },
      },
    });
    assert.deepEqual(created.status, { desiredReplicas: 0, currentMetrics: null });
    const behavior = JSON.stringify({
      ScaleUp: scaleUpDefault,
      ScaleDown: { ...scaleDownDefault, StabilizationWindowSeconds: 60 },
    });
    const v1 = await get(`${V1}/c`);
    assert.deepEqual(v1.metadata.annotations, {
      [BEHAVIOR]: behavior,
      [METRICS]: JSON.stringify(allMetricsV1),
    });
    assert.deepEqual(v1.spec, {
      scaleTargetRef: target,
      minReplicas: 1,
      maxReplicas: 5,
      targetCPUUtilizationPercentage: 60,
    });
    assert.deepEqual(v1.status, { currentReplicas: 0, desiredReplicas: 0 });

    const status = {
      currentReplicas: 2,
      desiredReplicas: 3,
      currentMetrics: [
        {
          type: "Resource",
          resource: { name: "cpu", current: { averageValue: "200m", averageUtilization: 40 } },
        },
        { type: "Pods", pods: { metric: { name: "qps" }, current: { averageValue: "7" } } },
      ],
      conditions: [
        {
          type: "AbleToScale",
          status: "True",
          lastTransitionTime: "2026-01-01T00:00:00Z",
          reason: "R",
          message: "m",
        },
      ],
    };
    const r = await call(s.url, "PUT", `${V2}/c/status`, { ...created, status });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.deepEqual(r.body.status, status);
    const after = await get(`${V1}/c`);
    assert.deepEqual(after.metadata.annotations, {
      [BEHAVIOR]: behavior,
      [CONDITIONS]: JSON.stringify(status.conditions),
      [CURRENT]: JSON.stringify([
        {
          type: "Resource",
          resource: { name: "cpu", currentAverageUtilization: 40, currentAverageValue: "200m" },
        },
        { type: "Pods", pods: { metricName: "qps", currentAverageValue: "7" } },
      ]),
      [METRICS]: JSON.stringify(allMetricsV1),
    });
    assert.deepEqual(after.status, {
      currentReplicas: 2,
      desiredReplicas: 3,
      currentCPUUtilizationPercentage: 40,
    });
    const v2 = await get(`${V2}/c`);
    assert.deepEqual(v2.status, status);
    assert.equal(v2.metadata.annotations, undefined);
  });

  it("lists v1 autoscalers converted, with each writer's managedFields at its own version", async () => {
    const list = await get(`${V1}?limit=5`);
    assert.equal(list.kind, "HorizontalPodAutoscalerList");
    assert.equal(list.apiVersion, "autoscaling/v1");
    const byName = new Map(list.items.map((o: Loose) => [o.metadata.name, o]));
    const a = byName.get("a") as Loose;
    assert.deepEqual(a.spec.targetCPUUtilizationPercentage, 80);
    assert.deepEqual(a.metadata.managedFields[0].apiVersion, "autoscaling/v1");
    assert.deepEqual(a.metadata.managedFields[0].fieldsV1, {
      "f:spec": {
        "f:maxReplicas": {},
        "f:minReplicas": {},
        "f:scaleTargetRef": {},
        "f:targetCPUUtilizationPercentage": {},
      },
    });
    const c = byName.get("c") as Loose;
    assert.deepEqual(
      c.metadata.managedFields.map((m: Loose) => [m.apiVersion, m.subresource]),
      [
        ["autoscaling/v2", undefined],
        ["autoscaling/v2", "status"],
      ],
    );
    assert.equal(c.status.currentCPUUtilizationPercentage, 40);
  });

  it("a v1 writer owns the annotations its conversion writes", async () => {
    const r = await call(s.url, "POST", `${V1}?fieldManager=w1`, {
      metadata: {
        name: "m1",
        annotations: {
          [METRICS]: JSON.stringify([
            { type: "Pods", pods: { metricName: "qps", targetAverageValue: "10" } },
          ]),
          a: "b",
        },
      },
      spec: { scaleTargetRef: target, maxReplicas: 3, targetCPUUtilizationPercentage: 70 },
    });
    assert.equal(r.status, 201, JSON.stringify(r.body));
    assert.deepEqual(r.body.metadata.managedFields[0].fieldsV1, {
      "f:metadata": { "f:annotations": { ".": {}, "f:a": {}, [`f:${METRICS}`]: {} } },
      "f:spec": {
        "f:maxReplicas": {},
        "f:minReplicas": {},
        "f:scaleTargetRef": {},
        "f:targetCPUUtilizationPercentage": {},
      },
    });
    const put = await call(s.url, "PUT", `${V1}/m1?fieldManager=w2`, {
      ...r.body,
      spec: { ...r.body.spec, maxReplicas: 4 },
    });
    assert.equal(put.status, 200, JSON.stringify(put.body));
    assert.deepEqual(
      put.body.metadata.managedFields.map((m: Loose) => [m.manager, m.fieldsV1]),
      [
        [
          "w1",
          {
            "f:metadata": { "f:annotations": { ".": {}, "f:a": {}, [`f:${METRICS}`]: {} } },
            "f:spec": {
              "f:minReplicas": {},
              "f:scaleTargetRef": {},
              "f:targetCPUUtilizationPercentage": {},
            },
          },
        ],
        ["w2", { "f:spec": { "f:maxReplicas": {} } }],
      ],
    );
    const v2 = await get(`${V2}/m1`);
    assert.equal(v2.spec.maxReplicas, 4);
    assert.deepEqual(v2.metadata.annotations, { a: "b" });
    assert.deepEqual(v2.spec.metrics, [
      {
        type: "Pods",
        pods: { metric: { name: "qps" }, target: { type: "AverageValue", averageValue: "10" } },
      },
      cpu(70),
    ]);
  });

  it("reads the behavior annotation as Go does (any key case) and answers it defaulted", async () => {
    for (const [name, annotation] of [
      ["p1", { ScaleUp: { Policies: [{ Type: "Pods", Value: 1, PeriodSeconds: 10 }] } }],
      ["p2", { scaleUp: { policies: [{ type: "Pods", value: 1, periodSeconds: 10 }] } }],
    ] as const) {
      const created = await create(V1, {
        metadata: { name, annotations: { [BEHAVIOR]: JSON.stringify(annotation) } },
        spec: { scaleTargetRef: target, maxReplicas: 3 },
      });
      const behavior = JSON.stringify({
        ScaleUp: { ...scaleUpDefault, Policies: [{ Type: "Pods", Value: 1, PeriodSeconds: 10 }] },
        ScaleDown: scaleDownDefault,
      });
      assert.deepEqual(created.metadata.annotations, { [BEHAVIOR]: behavior });
      assert.equal(created.spec.targetCPUUtilizationPercentage, 80);
      const v2 = await get(`${V2}/${name}`);
      assert.deepEqual(v2.spec.behavior, {
        scaleUp: { ...v2ScaleUpDefault, policies: [{ type: "Pods", value: 1, periodSeconds: 10 }] },
        scaleDown: v2ScaleDownDefault,
      });
      assert.deepEqual((await get(`${V1}/${name}`)).metadata.annotations, { [BEHAVIOR]: behavior });
    }
  });

  it("a v1 behavior is validated as sent: a rule without policies is refused", async () => {
    const r = await call(s.url, "POST", V1, {
      metadata: {
        name: "d",
        annotations: { [BEHAVIOR]: JSON.stringify({ ScaleUp: {}, ScaleDown: { Policies: [] } }) },
      },
      spec: { scaleTargetRef: target, maxReplicas: 3 },
    });
    assert.equal(r.status, 422);
    assert.deepEqual(r.body.details.causes, [
      {
        reason: "FieldValueRequired",
        message: "Required value: must specify at least one Policy",
        field: "spec.behavior.scaleUp.policies",
      },
      {
        reason: "FieldValueRequired",
        message: "Required value: must specify at least one Policy",
        field: "spec.behavior.scaleDown.policies",
      },
    ]);
    assert.equal((await call(s.url, "GET", `${V2}/d`)).status, 404);
    // v2 fills in a rule left empty, but not one whose policies are an empty list.
    const v2 = await call(s.url, "POST", V2, {
      metadata: { name: "d3" },
      spec: {
        scaleTargetRef: target,
        maxReplicas: 3,
        behavior: { scaleUp: {}, scaleDown: { policies: [] } },
      },
    });
    assert.equal(v2.status, 422);
    assert.deepEqual(
      v2.body.details.causes.map((c: Loose) => c.field),
      ["spec.behavior.scaleDown.policies"],
    );
  });

  it("ignores a broken annotation, drops the round-trip ones and resets a created status", async () => {
    const pods = [{ type: "Pods", pods: { metricName: "qps", targetAverageValue: "10" } }];
    const currentCpu = [
      {
        type: "Resource",
        resource: { name: "cpu", currentAverageUtilization: 40, currentAverageValue: "200m" },
      },
    ];
    const conditions = [
      {
        type: "AbleToScale",
        status: "True",
        lastTransitionTime: "2026-01-01T00:00:00Z",
        reason: "R",
        message: "m",
      },
    ];
    const spec = { scaleTargetRef: target, maxReplicas: 3 };
    const created = await create(V1, {
      metadata: {
        name: "p3",
        annotations: {
          [BEHAVIOR]: "{bad",
          [METRICS]: JSON.stringify(pods),
          [CURRENT]: JSON.stringify(currentCpu),
          [CONDITIONS]: JSON.stringify(conditions),
          "autoscaling.alpha.kubernetes.io/scale-up-tolerance": "0.1",
          keep: "me",
        },
      },
      spec,
      status: { currentReplicas: 4, desiredReplicas: 5, currentCPUUtilizationPercentage: 12 },
    });
    assert.deepEqual(created.metadata.annotations, { [METRICS]: JSON.stringify(pods), keep: "me" });
    assert.deepEqual(created.spec, { scaleTargetRef: target, minReplicas: 1, maxReplicas: 3 });
    assert.deepEqual(created.status, { currentReplicas: 0, desiredReplicas: 0 });
    const v2 = await get(`${V2}/p3`);
    assert.deepEqual(v2.metadata.annotations, { keep: "me" });
    assert.deepEqual(v2.spec.metrics, [
      {
        type: "Pods",
        pods: { metric: { name: "qps" }, target: { type: "AverageValue", averageValue: "10" } },
      },
    ]);

    // A v1 status write: the current-metrics annotation wins over the CPU utilization.
    const status = { currentReplicas: 4, desiredReplicas: 5, currentCPUUtilizationPercentage: 12 };
    const r = await call(s.url, "PUT", `${V1}/p3/status`, {
      metadata: {
        name: "p3",
        annotations: {
          keep: "me",
          [CURRENT]: JSON.stringify(currentCpu),
          [CONDITIONS]: JSON.stringify(conditions),
        },
      },
      spec,
      status,
    });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.deepEqual(r.body.status, { ...status, currentCPUUtilizationPercentage: 40 });
    assert.deepEqual(r.body.metadata.annotations[CURRENT], JSON.stringify(currentCpu));
    const v2Status = (await get(`${V2}/p3`)).status;
    assert.deepEqual(v2Status, {
      currentReplicas: 4,
      desiredReplicas: 5,
      currentMetrics: [
        {
          type: "Resource",
          resource: { name: "cpu", current: { averageValue: "200m", averageUtilization: 40 } },
        },
      ],
      conditions,
    });

    // Without the annotations, v1's CPU utilization is the only current metric.
    const again = await call(s.url, "PUT", `${V1}/p3/status`, {
      metadata: { name: "p3", annotations: { keep: "me" } },
      spec,
      status,
    });
    assert.equal(again.status, 200, JSON.stringify(again.body));
    assert.deepEqual(again.body.status, status);
    assert.deepEqual(
      again.body.metadata.annotations[CURRENT],
      JSON.stringify([
        {
          type: "Resource",
          resource: { name: "cpu", currentAverageUtilization: 12, currentAverageValue: "0" },
        },
      ]),
    );
    assert.deepEqual((await get(`${V2}/p3`)).status, {
      currentReplicas: 4,
      desiredReplicas: 5,
      currentMetrics: [
        { type: "Resource", resource: { name: "cpu", current: { averageUtilization: 12 } } },
      ],
    });
  });

  it("a v2 body's round-trip annotations are dropped; an empty behavior is defaulted", async () => {
    const created = await create(V2, {
      metadata: { name: "p4", annotations: { [METRICS]: "[]", x: "y" } },
      spec: { scaleTargetRef: target, maxReplicas: 3, behavior: {} },
    });
    assert.deepEqual(created.metadata.annotations, { x: "y" });
    assert.deepEqual(created.spec.behavior, {
      scaleUp: v2ScaleUpDefault,
      scaleDown: v2ScaleDownDefault,
    });
    assert.deepEqual(created.spec.metrics, [cpu(80)]);
    const v1 = await get(`${V1}/p4`);
    assert.deepEqual(v1.metadata.annotations, {
      [BEHAVIOR]: JSON.stringify({ ScaleUp: scaleUpDefault, ScaleDown: scaleDownDefault }),
      x: "y",
    });
  });

  it("a v1 body's unknown fields are dropped with a warning", async () => {
    const r = await call(s.url, "POST", V1, {
      metadata: { name: "p6", annotations: { [BEHAVIOR]: "{}" } },
      spec: { scaleTargetRef: target, maxReplicas: 3, foo: 1 },
    });
    assert.equal(r.status, 201, JSON.stringify(r.body));
    assert.equal(r.headers.get("warning"), '299 - "unknown field \\"spec.foo\\""');
    assert.equal(r.body.metadata.annotations, undefined);
  });

  it("refuses invalid values with kube's causes, through either version", async () => {
    const r = await call(s.url, "POST", V1, {
      metadata: { name: "e" },
      spec: { scaleTargetRef: target, minReplicas: 0, targetCPUUtilizationPercentage: -1 },
    });
    assert.equal(r.status, 422);
    assert.equal(
      r.body.message,
      'HorizontalPodAutoscaler.autoscaling "e" is invalid: [spec.minReplicas: Invalid value: 0: must be greater than or equal to 1, spec.maxReplicas: Required value: must be set and greater than 0, spec.metrics[0].resource.target.averageUtilization: Invalid value: -1: must be greater than 0, spec.metrics: Forbidden: must specify at least one Object or External metric to support scaling to zero replicas]',
    );

    const bad = await call(s.url, "POST", V2, {
      metadata: { name: "d6" },
      spec: {
        scaleTargetRef: { kind: "Deployment", name: "", apiVersion: "v1" },
        minReplicas: 5,
        maxReplicas: -2,
        metrics: [
          { type: "Foo" },
          {
            type: "Resource",
            resource: { target: { type: "Bad", averageValue: "-1", averageUtilization: 0 } },
            pods: { metric: { name: "a/b" }, target: { type: "Value" } },
          },
          {
            type: "Object",
            object: {
              describedObject: { kind: "", name: "x", apiVersion: "a/b/c" },
              metric: { name: "" },
              target: { type: "Value" },
            },
          },
          {
            type: "External",
            external: {
              metric: { name: "q" },
              target: { type: "Value", value: "1", averageValue: "2" },
            },
          },
          {
            type: "ContainerResource",
            containerResource: { name: "", container: "Bad_", target: { type: "Utilization" } },
          },
          {
            type: "ContainerResource",
            containerResource: {
              name: "foo",
              container: "c",
              target: { type: "Utilization", averageUtilization: 5 },
            },
          },
          { type: "Pods" },
          {
            type: "Pods",
            pods: { metric: { name: "x" }, target: { type: "AverageValue", averageValue: "0" } },
          },
        ],
        behavior: {
          scaleUp: {
            stabilizationWindowSeconds: -1,
            selectPolicy: "Foo",
            policies: [
              { type: "X", value: 0, periodSeconds: 0 },
              { type: "Pods", value: 1, periodSeconds: 1801 },
            ],
            tolerance: "-1",
          },
          scaleDown: { stabilizationWindowSeconds: 3601 },
        },
      },
    });
    assert.equal(bad.status, 422);
    const supported = '"ContainerResource", "External", "Object", "Pods", "Resource"';
    assert.deepEqual(
      bad.body.details.causes.map((c: Loose) => `${c.field}: ${c.message}`),
      [
        "spec.maxReplicas: Invalid value: -2: must be greater than or equal to 1",
        "spec.maxReplicas: Invalid value: -2: must be greater than or equal to `minReplicas`",
        "spec.scaleTargetRef.name: Required value",
        'spec.scaleTargetRef.apiVersion: Invalid value: "v1": apiVersion must specify API group',
        `spec.metrics[0].type: Unsupported value: "Foo": supported values: ${supported}`,
        `spec.metrics[0].type: Unsupported value: "Foo": supported values: ${supported}`,
        "spec.metrics[1].pods.metric.name: Invalid value: \"a/b\": may not contain '/'",
        "spec.metrics[1].pods.target.averageValue: Required value: must specify a positive target averageValue",
        "spec.metrics[1].pods: Forbidden: must populate the given metric source only",
        "spec.metrics[2].object.describedObject.kind: Required value",
        'spec.metrics[2].object.describedObject.apiVersion: Invalid value: "a/b/c": unexpected GroupVersion string: a/b/c',
        "spec.metrics[2].object.metric.name: Required value: must specify a metric name",
        "spec.metrics[2].object.target.averageValue: Required value: must set either a target value or averageValue",
        "spec.metrics[3].external.target.value: Forbidden: may not set both a target value for metric and a per-pod target",
        "spec.metrics[4].containerResource.name: Required value: must specify a resource name",
        "spec.metrics[4].containerResource.container: Invalid value: \"Bad_\": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')",
        "spec.metrics[4].containerResource.target.averageUtilization: Required value: must set either a target raw value or a target utilization",
        'spec.metrics[5].containerResource.name: Invalid value: "foo": must be a standard resource type or fully qualified',
        'spec.metrics[5].containerResource.name: Invalid value: "foo": must be a standard resource for containers',
        "spec.metrics[6].pods: Required value: must populate information for the given metric source",
        'spec.metrics[7].pods.target.averageValue: Invalid value: "0": must be positive',
        "spec.behavior.scaleUp.stabilizationWindowSeconds: Invalid value: -1: must be greater than or equal to zero",
        'spec.behavior.scaleUp.selectPolicy: Unsupported value: "Foo": supported values: "Disabled", "Max", "Min"',
        'spec.behavior.scaleUp.policies[0].type: Unsupported value: "X": supported values: "Percent", "Pods"',
        "spec.behavior.scaleUp.policies[0].value: Invalid value: 0: must be greater than zero",
        "spec.behavior.scaleUp.policies[0].periodSeconds: Invalid value: 0: must be greater than zero",
        "spec.behavior.scaleUp.policies[1].periodSeconds: Invalid value: 1801: must be less than or equal to 1800",
        'spec.behavior.scaleUp.tolerance: Invalid value: "-1": must be greater than or equal to 0',
        "spec.behavior.scaleDown.stabilizationWindowSeconds: Invalid value: 3601: must be less than or equal to 3600",
      ],
    );
  });

  it("refuses a quantity that does not parse as kube's decoder does", async () => {
    const r = await call(s.url, "POST", V2, {
      metadata: { name: "d4" },
      spec: {
        scaleTargetRef: target,
        maxReplicas: 3,
        metrics: [
          {
            type: "Pods",
            pods: { metric: { name: "x" }, target: { type: "AverageValue", averageValue: "abc" } },
          },
        ],
      },
    });
    assert.equal(r.status, 400);
    assert.equal(
      r.body.message,
      "HorizontalPodAutoscaler in version \"v2\" cannot be handled as a HorizontalPodAutoscaler: quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'",
    );
  });

  it("a spec write keeps the status; a status write keeps the spec and checks the counts", async () => {
    const created = await create(V2, {
      metadata: { name: "st" },
      spec: { scaleTargetRef: target, maxReplicas: 3 },
    });
    const status = { currentReplicas: 1, desiredReplicas: 2, currentMetrics: null };
    const s1 = await call(s.url, "PUT", `${V2}/st/status`, {
      ...created,
      spec: { ...created.spec, maxReplicas: 9 },
      status,
    });
    assert.equal(s1.status, 200, JSON.stringify(s1.body));
    assert.equal(s1.body.spec.maxReplicas, 3);
    assert.deepEqual(s1.body.status, status);
    const u = await call(s.url, "PUT", `${V2}/st`, {
      ...s1.body,
      spec: { ...s1.body.spec, maxReplicas: 4 },
      status: { desiredReplicas: 7 },
    });
    assert.equal(u.status, 200, JSON.stringify(u.body));
    assert.equal(u.body.spec.maxReplicas, 4);
    assert.deepEqual(u.body.status, status);
    assert.equal(u.body.metadata.generation, undefined);
    const neg = await call(s.url, "PUT", `${V1}/st/status`, {
      metadata: { name: "st" },
      spec: { scaleTargetRef: target, maxReplicas: 4 },
      status: { currentReplicas: -1, desiredReplicas: 0 },
    });
    assert.equal(neg.status, 422);
    assert.deepEqual(neg.body.details.causes, [
      {
        reason: "FieldValueInvalid",
        message: "Invalid value: -1: must be greater than or equal to 0",
        field: "status.currentReplicas",
      },
    ]);
  });

  it("watches v1 autoscalers converted", async () => {
    const list = await get(V1);
    const w = await watch(s.url, `${V1}?watch=1&resourceVersion=${list.metadata.resourceVersion}`);
    try {
      await create(V2, {
        metadata: { name: "w" },
        spec: { scaleTargetRef: target, maxReplicas: 3, metrics: [cpu(55)] },
      });
      const e = await w.next();
      assert.equal(e.type, "ADDED");
      assert.equal(e.object.apiVersion, "autoscaling/v1");
      assert.equal(e.object.spec.targetCPUUtilizationPercentage, 55);
      assert.deepEqual(e.object.status, { currentReplicas: 0, desiredReplicas: 0 });
    } finally {
      w.close();
    }
  });

  it("prints v1 Tables as v2's", async () => {
    const v1 = await call(s.url, "GET", `${V1}/m1`, undefined, { accept: TABLE });
    const v2 = await call(s.url, "GET", `${V2}/m1`, undefined, { accept: TABLE });
    assert.equal(v1.status, 200);
    assert.deepEqual(
      v1.body.columnDefinitions.map((c: Loose) => c.name),
      ["Name", "Reference", "Targets", "MinPods", "MaxPods", "Replicas", "Age"],
    );
    assert.deepEqual(v1.body.columnDefinitions, v2.body.columnDefinitions);
    assert.deepEqual(v1.body.rows[0].cells.slice(0, 4), [
      "m1",
      "Deployment/web",
      "<unknown>/10, cpu: <unknown>/70%",
      "1",
    ]);
    // Every cell alike but Age, which each request reads from the clock when it is answered
    // (the two may fall either side of a second).
    assert.deepEqual(v1.body.rows[0].cells.slice(0, -1), v2.body.rows[0].cells.slice(0, -1));
    assert.match(v1.body.rows[0].cells[6], /^\d+s$/);
  });

  it("discovery lists autoscaling/v1 beside the preferred v2", async () => {
    const group = await get("/apis/autoscaling");
    assert.deepEqual(group.versions, [
      { groupVersion: "autoscaling/v2", version: "v2" },
      { groupVersion: "autoscaling/v1", version: "v1" },
    ]);
    assert.deepEqual(group.preferredVersion, { groupVersion: "autoscaling/v2", version: "v2" });
    const v1 = await get("/apis/autoscaling/v1");
    assert.deepEqual(
      v1.resources.map((r: Loose) => [r.name, r.kind, r.namespaced, r.shortNames]),
      [
        ["horizontalpodautoscalers", "HorizontalPodAutoscaler", true, ["hpa"]],
        ["horizontalpodautoscalers/status", "HorizontalPodAutoscaler", true, undefined],
      ],
    );
    const aggregated = await call(s.url, "GET", "/apis", undefined, {
      accept: "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList",
    });
    const autoscaling = aggregated.body.items.find((g: Loose) => g.metadata.name === "autoscaling");
    assert.deepEqual(
      autoscaling.versions.map((v: Loose) => [
        v.version,
        v.resources.map((r: Loose) => r.resource),
      ]),
      [
        ["v2", ["horizontalpodautoscalers"]],
        ["v1", ["horizontalpodautoscalers"]],
      ],
    );
  });
});
