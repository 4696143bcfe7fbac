/**
 * The workload kinds read back as kube-apiserver 1.36 returns them: a minimal object of each
 * created, and its spec, status and generated metadata compared field for field with what kube
 * answers (the expectations are kube's answers to these very requests). Runs on both backends.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { startTestServer, type TestServer } from "kontroller/testing";

const container = { name: "main", image: "busybox" };
/** A defaulted container and pod spec of a template, as kube returns them. */
const defaultedContainer = {
  name: "main",
  image: "busybox",
  resources: {},
  terminationMessagePath: "/dev/termination-log",
  terminationMessagePolicy: "File",
  imagePullPolicy: "Always",
};
const defaultedPodSpec = (restartPolicy = "Always") => ({
  containers: [defaultedContainer],
  restartPolicy,
  terminationGracePeriodSeconds: 30,
  dnsPolicy: "ClusterFirst",
  securityContext: {},
  schedulerName: "default-scheduler",
});
const labels = { app: "w" };
const selected = {
  selector: { matchLabels: labels },
  template: { metadata: { labels }, spec: { containers: [container] } },
};
const defaultedSelected = {
  replicas: 1,
  selector: { matchLabels: labels },
  template: { metadata: { labels }, spec: defaultedPodSpec() },
};

interface Case {
  path: string;
  kind: string;
  apiVersion: string;
  body: Record<string, unknown>;
  /** What kube returns besides metadata, and the metadata fields checked. */
  want: Record<string, unknown>;
}

const CASES: Case[] = [
  {
    path: "/apis/apps/v1/namespaces/default/replicasets",
    kind: "ReplicaSet",
    apiVersion: "apps/v1",
    body: { spec: selected },
    want: { generation: 1, spec: defaultedSelected, status: { replicas: 0 } },
  },
  {
    path: "/apis/apps/v1/namespaces/default/statefulsets",
    kind: "StatefulSet",
    apiVersion: "apps/v1",
    body: { spec: { ...selected, serviceName: "w" } },
    want: {
      generation: 1,
      spec: {
        ...defaultedSelected,
        serviceName: "w",
        podManagementPolicy: "OrderedReady",
        updateStrategy: { type: "RollingUpdate", rollingUpdate: { partition: 0 } },
        revisionHistoryLimit: 10,
        persistentVolumeClaimRetentionPolicy: { whenDeleted: "Retain", whenScaled: "Retain" },
      },
      status: { replicas: 0, availableReplicas: 0 },
    },
  },
  {
    path: "/apis/apps/v1/namespaces/default/daemonsets",
    kind: "DaemonSet",
    apiVersion: "apps/v1",
    body: { spec: selected },
    want: {
      generation: 1,
      annotations: { "deprecated.daemonset.template.generation": "1" },
      spec: {
        selector: { matchLabels: labels },
        template: { metadata: { labels }, spec: defaultedPodSpec() },
        updateStrategy: {
          type: "RollingUpdate",
          rollingUpdate: { maxUnavailable: 1, maxSurge: 0 },
        },
        revisionHistoryLimit: 10,
      },
      status: {
        currentNumberScheduled: 0,
        numberMisscheduled: 0,
        desiredNumberScheduled: 0,
        numberReady: 0,
      },
    },
  },
  {
    path: "/api/v1/namespaces/default/replicationcontrollers",
    kind: "ReplicationController",
    apiVersion: "v1",
    body: { spec: { selector: labels, template: selected.template } },
    want: {
      generation: 1,
      labels,
      spec: {
        replicas: 1,
        selector: labels,
        template: { metadata: { labels }, spec: defaultedPodSpec() },
      },
      status: { replicas: 0 },
    },
  },
  {
    path: "/apis/batch/v1/namespaces/default/cronjobs",
    kind: "CronJob",
    apiVersion: "batch/v1",
    body: {
      spec: {
        schedule: "*/5 * * * *",
        jobTemplate: {
          spec: { template: { spec: { containers: [container], restartPolicy: "OnFailure" } } },
        },
      },
    },
    want: {
      generation: 1,
      spec: {
        schedule: "*/5 * * * *",
        concurrencyPolicy: "Allow",
        suspend: false,
        jobTemplate: {
          metadata: {},
          spec: { template: { metadata: {}, spec: defaultedPodSpec("OnFailure") } },
        },
        successfulJobsHistoryLimit: 3,
        failedJobsHistoryLimit: 1,
      },
      status: {},
    },
  },
];

describe("workload kinds read back as kube-apiserver returns them", () => {
  let s: TestServer;
  before(async () => {
    s = await startTestServer({ controllers: false });
  });
  after(() => s.close());

  const create = async (path: string, object: Record<string, unknown>) => {
    const res = await fetch(`${s.url}${path}`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(object),
    });
    assert.equal(res.status, 201, await res.clone().text());
    return (await res.json()) as {
      metadata: Record<string, unknown> & { uid: string };
      spec: unknown;
      status: unknown;
    };
  };

  for (const c of CASES) {
    it(`defaults a ${c.kind} and gives it its first status`, async () => {
      const o = await create(c.path, {
        apiVersion: c.apiVersion,
        kind: c.kind,
        metadata: { name: "w" },
        ...c.body,
      });
      const { generation, labels: l, annotations, spec, status } = c.want;
      assert.deepEqual(o.spec, spec);
      assert.deepEqual(o.status, status);
      assert.equal(o.metadata.generation, generation);
      assert.deepEqual(o.metadata.labels, l);
      assert.deepEqual(o.metadata.annotations, annotations);
    });
  }

  it("defaults a Job, with its selector and labels made from its uid", async () => {
    const o = await create("/apis/batch/v1/namespaces/default/jobs", {
      apiVersion: "batch/v1",
      kind: "Job",
      metadata: { generateName: "job-" },
      spec: { template: { spec: { containers: [container], restartPolicy: "Never" } } },
    });
    const name = String(o.metadata.name);
    assert.match(name, /^job-[a-z0-9]{5}$/);
    const uid = o.metadata.uid;
    const jobLabels = {
      "batch.kubernetes.io/controller-uid": uid,
      "batch.kubernetes.io/job-name": name,
      "controller-uid": uid,
      "job-name": name,
    };
    assert.deepEqual(o.metadata.labels, jobLabels);
    assert.deepEqual(o.spec, {
      parallelism: 1,
      completions: 1,
      backoffLimit: 6,
      selector: { matchLabels: { "batch.kubernetes.io/controller-uid": uid } },
      manualSelector: false,
      template: { metadata: { labels: jobLabels }, spec: defaultedPodSpec("Never") },
      completionMode: "NonIndexed",
      suspend: false,
      podReplacementPolicy: "TerminatingOrFailed",
    });
    assert.deepEqual(o.status, {});
  });

  it("keeps a Job's own labels: only a Job without labels gets its template's", async () => {
    const o = await create("/apis/batch/v1/namespaces/default/jobs", {
      apiVersion: "batch/v1",
      kind: "Job",
      metadata: { name: "labelled", labels: { mine: "yes" } },
      spec: { template: { spec: { containers: [container], restartPolicy: "Never" } } },
    });
    assert.deepEqual(o.metadata.labels, { mine: "yes" });
    const template = (o.spec as { template: { metadata: { labels: Record<string, string> } } })
      .template;
    assert.equal(template.metadata.labels["job-name"], "labelled");
  });

  it("counts a change of a Deployment's annotations as a new generation", async () => {
    const path = "/apis/apps/v1/namespaces/default/deployments";
    const o = await create(path, {
      apiVersion: "apps/v1",
      kind: "Deployment",
      metadata: { name: "annotated" },
      spec: selected,
    });
    assert.equal(o.metadata.generation, 1);
    const res = await fetch(`${s.url}${path}/annotated`, {
      method: "PATCH",
      headers: { "content-type": "application/merge-patch+json" },
      body: JSON.stringify({ metadata: { annotations: { note: "x" } } }),
    });
    assert.equal(res.status, 200);
    const patched = (await res.json()) as { metadata: { generation: number } };
    assert.equal(patched.metadata.generation, 2);
  });

  it("refuses a Job whose pods would restart in place, naming the field", async () => {
    const res = await fetch(`${s.url}/apis/batch/v1/namespaces/default/jobs`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        apiVersion: "batch/v1",
        kind: "Job",
        metadata: { name: "always" },
        spec: { template: { spec: { containers: [container], restartPolicy: "Always" } } },
      }),
    });
    assert.equal(res.status, 422);
    const status = (await res.json()) as { details: { causes: { field: string }[] } };
    assert.ok(
      status.details.causes.some((c) => c.field === "spec.template.spec.restartPolicy"),
      JSON.stringify(status),
    );
  });
});
