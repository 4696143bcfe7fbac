/**
 * The default propagation of a DELETE that names none: kube orphans the dependents of
 * ReplicationControllers and batch/v1 Jobs (its default garbage collection policy for them, kept
 * for old clients) — the object stays with the `orphan` finalizer until the garbage collector
 * has orphaned them — and deletes every other kind's in the background. Runs on both backends,
 * without controllers (so the finalizer stays).
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { startTestServer, type TestServer } from "kontroller/testing";
import { call } from "./helpers.ts";

let s: TestServer;
before(async () => {
  s = await startTestServer({ controllers: false });
});
after(() => s.close());

const template = {
  metadata: { labels: { app: "p" } },
  spec: { restartPolicy: "Never", containers: [{ name: "c", image: "busybox" }] },
};

describe("DELETE without a propagation policy", () => {
  it("orphans a Job's and a ReplicationController's dependents: the object stays with the orphan finalizer", async () => {
    const cases = [
      {
        path: "/apis/batch/v1/namespaces/default/jobs",
        body: {
          apiVersion: "batch/v1",
          kind: "Job",
          metadata: { name: "orphaning" },
          spec: { template },
        },
      },
      {
        path: "/api/v1/namespaces/default/replicationcontrollers",
        body: {
          apiVersion: "v1",
          kind: "ReplicationController",
          metadata: { name: "orphaning" },
          spec: {
            selector: { app: "p" },
            template: { ...template, spec: { containers: template.spec.containers } },
          },
        },
      },
    ];
    for (const { path, body } of cases) {
      assert.equal((await call(s.url, "POST", path, body)).status, 201, path);
      const deleted = await call(s.url, "DELETE", `${path}/orphaning`);
      assert.equal(deleted.status, 200, JSON.stringify(deleted.body));
      assert.deepEqual(deleted.body.metadata.finalizers, ["orphan"], path);
      assert.ok(deleted.body.metadata.deletionTimestamp, path);
      assert.equal((await call(s.url, "GET", `${path}/orphaning`)).status, 200, `${path} stays`);
    }
  });

  it("deletes a Deployment's in the background, and a Job's when the request says so", async () => {
    const jobs = "/apis/batch/v1/namespaces/default/jobs";
    const job = {
      apiVersion: "batch/v1",
      kind: "Job",
      metadata: { name: "background" },
      spec: { template },
    };
    assert.equal((await call(s.url, "POST", jobs, job)).status, 201);
    const deleted = await call(s.url, "DELETE", `${jobs}/background`, {
      apiVersion: "v1",
      kind: "DeleteOptions",
      propagationPolicy: "Background",
    });
    assert.equal(deleted.status, 200);
    assert.equal((await call(s.url, "GET", `${jobs}/background`)).status, 404);
    const deployments = "/apis/apps/v1/namespaces/default/deployments";
    const deployment = {
      apiVersion: "apps/v1",
      kind: "Deployment",
      metadata: { name: "background" },
      spec: {
        selector: { matchLabels: { app: "p" } },
        template: { ...template, spec: { containers: template.spec.containers } },
      },
    };
    assert.equal((await call(s.url, "POST", deployments, deployment)).status, 201);
    assert.equal((await call(s.url, "DELETE", `${deployments}/background`)).status, 200);
    assert.equal((await call(s.url, "GET", `${deployments}/background`)).status, 404);
  });
});

describe("an object being deleted", () => {
  it("keeps the deletion fields it was given on update: a namespace none but its timestamp", async () => {
    const path = "/api/v1/namespaces";
    const created = await call(s.url, "POST", path, {
      apiVersion: "v1",
      kind: "Namespace",
      metadata: { name: "held-deleting", finalizers: ["example.com/hold"] },
    });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    const deleted = await call(s.url, "DELETE", `${path}/held-deleting`);
    assert.equal(deleted.status, 200, JSON.stringify(deleted.body));
    assert.ok(deleted.body.metadata.deletionTimestamp);
    assert.equal(deleted.body.metadata.deletionGracePeriodSeconds, undefined);
    const labelled = await call(
      s.url,
      "PATCH",
      `${path}/held-deleting`,
      { metadata: { labels: { touched: "yes" } } },
      { "content-type": "application/merge-patch+json" },
    );
    assert.equal(labelled.status, 200, JSON.stringify(labelled.body));
    assert.equal(labelled.body.metadata.deletionTimestamp, deleted.body.metadata.deletionTimestamp);
    assert.equal(labelled.body.metadata.deletionGracePeriodSeconds, undefined);
  });
});
