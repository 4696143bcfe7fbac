/**
 * The `scale` subresource of the built-in kinds that have one (Deployments, ReplicaSets,
 * StatefulSets, ReplicationControllers): an autoscaling/v1 Scale read from the object and
 * written back to its `spec.replicas`, with kube's preconditions, validation and field
 * ownership, and `kubectl scale`. The expectations are kube-apiserver 1.36's answers to these
 * requests; the suite runs on both backends.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { type Loose, call as send } from "./helpers.ts";
import { kubectlRig } from "./kubectl-rig.ts";

const rig = kubectlRig("scale");
const APPS = "/apis/apps/v1/namespaces/default";
const CORE = "/api/v1/namespaces/default";

function call(method: string, path: string, body?: unknown, contentType?: string) {
  return send(
    rig.server.url,
    method,
    path,
    body,
    contentType ? { "content-type": contentType } : {},
  );
}

const template = (labels: Record<string, string>) => ({
  metadata: { labels },
  spec: { containers: [{ name: "main", image: "busybox" }] },
});

async function deployment(name: string): Promise<Loose> {
  const labels = { app: name, tier: "web", track: "b" };
  const created = await call("POST", `${APPS}/deployments`, {
    apiVersion: "apps/v1",
    kind: "Deployment",
    metadata: { name },
    spec: {
      selector: {
        matchLabels: { app: name, tier: "web" },
        matchExpressions: [{ key: "track", operator: "In", values: ["b", "a"] }],
      },
      template: template(labels),
    },
  });
  assert.equal(created.status, 201, JSON.stringify(created.body));
  return created.body;
}

const scaleBody = (name: string, replicas: number, metadata: Record<string, unknown> = {}) => ({
  apiVersion: "autoscaling/v1",
  kind: "Scale",
  metadata: { name, namespace: "default", ...metadata },
  spec: { replicas },
});

describe("the scale subresource of built-in kinds", () => {
  it("reads a Deployment's replicas and its selector as a string, as kube renders it", async () => {
    const d = await deployment("read");
    const { status, body } = await call("GET", `${APPS}/deployments/read/scale`);
    assert.equal(status, 200);
    assert.deepEqual(body, {
      kind: "Scale",
      apiVersion: "autoscaling/v1",
      metadata: {
        name: "read",
        namespace: "default",
        uid: d.metadata.uid,
        resourceVersion: d.metadata.resourceVersion,
        creationTimestamp: d.metadata.creationTimestamp,
      },
      spec: { replicas: 1 },
      status: { replicas: 0, selector: "app=read,tier=web,track in (a,b)" },
    });
  });

  it("reads a ReplicationController's map selector and a StatefulSet's, with their replicas", async () => {
    const rc = await call("POST", `${CORE}/replicationcontrollers`, {
      apiVersion: "v1",
      kind: "ReplicationController",
      metadata: { name: "rc" },
      spec: { replicas: 2, selector: { b: "2", a: "1" }, template: template({ a: "1", b: "2" }) },
    });
    assert.equal(rc.status, 201, JSON.stringify(rc.body));
    const rcScale = await call("GET", `${CORE}/replicationcontrollers/rc/scale`);
    assert.deepEqual(rcScale.body.spec, { replicas: 2 });
    assert.deepEqual(rcScale.body.status, { replicas: 0, selector: "a=1,b=2" });

    const sts = await call("POST", `${APPS}/statefulsets`, {
      apiVersion: "apps/v1",
      kind: "StatefulSet",
      metadata: { name: "sts" },
      spec: {
        serviceName: "sts",
        selector: { matchLabels: { app: "sts" } },
        template: template({ app: "sts" }),
      },
    });
    assert.equal(sts.status, 201, JSON.stringify(sts.body));
    const stsScale = await call("GET", `${APPS}/statefulsets/sts/scale`);
    assert.deepEqual(stsScale.body.status, { replicas: 0, selector: "app=sts" });
  });

  it("writes a patched count to spec.replicas, bumps the generation and records the writer under scale, without a time", async () => {
    await deployment("patched");
    const patched = await call(
      "PATCH",
      `${APPS}/deployments/patched/scale?fieldManager=autoscaler`,
      { spec: { replicas: 3 } },
      "application/merge-patch+json",
    );
    assert.equal(patched.status, 200, JSON.stringify(patched.body));
    assert.equal(patched.body.kind, "Scale");
    assert.equal(patched.body.spec.replicas, 3);
    const read = await call("GET", `${APPS}/deployments/patched`);
    assert.equal(read.body.spec.replicas, 3);
    assert.equal(read.body.metadata.generation, 2);
    assert.equal(read.body.metadata.resourceVersion, patched.body.metadata.resourceVersion);
    const entry = read.body.metadata.managedFields.find(
      (m: { manager: string }) => m.manager === "autoscaler",
    );
    // kube records the write on the Scale and carries only its fields over to the Deployment.
    assert.deepEqual(entry, {
      manager: "autoscaler",
      operation: "Update",
      apiVersion: "apps/v1",
      fieldsType: "FieldsV1",
      fieldsV1: { "f:spec": { "f:replicas": {} } },
      subresource: "scale",
    });
    const creator = read.body.metadata.managedFields.find((m: Loose) => m.subresource !== "scale");
    assert.match(creator.time, /^\d{4}-\d\d-\d\dT/);
  });

  it("takes a JSON patch and a strategic merge patch, and a dry run stores nothing", async () => {
    await deployment("patches");
    const path = `${APPS}/deployments/patches/scale`;
    const json = await call(
      "PATCH",
      path,
      [{ op: "replace", path: "/spec/replicas", value: 4 }],
      "application/json-patch+json",
    );
    assert.equal(json.body.spec.replicas, 4);
    const strategic = await call(
      "PATCH",
      path,
      { spec: { replicas: 5 } },
      "application/strategic-merge-patch+json",
    );
    assert.equal(strategic.body.spec.replicas, 5);
    const dry = await call(
      "PATCH",
      `${path}?dryRun=All`,
      { spec: { replicas: 30 } },
      "application/merge-patch+json",
    );
    assert.equal(dry.body.spec.replicas, 30);
    assert.equal((await call("GET", path)).body.spec.replicas, 5);
  });

  it("refuses a stale resourceVersion, a foreign uid, a negative count, another name and another kind", async () => {
    const d = await deployment("refused");
    const path = `${APPS}/deployments/refused/scale`;
    await call("PATCH", path, { spec: { replicas: 2 } }, "application/merge-patch+json");

    const stale = await call(
      "PUT",
      path,
      scaleBody("refused", 3, { resourceVersion: d.metadata.resourceVersion }),
    );
    assert.equal(stale.status, 409);
    assert.equal(
      stale.body.message,
      'Operation cannot be fulfilled on deployments.apps "refused": the object has been modified; please apply your changes to the latest version and try again',
    );

    const uid = await call("PUT", path, scaleBody("refused", 3, { uid: "not-its-uid" }));
    assert.equal(uid.status, 409);
    assert.match(
      uid.body.message,
      new RegExp(
        `Precondition failed: UID in precondition: not-its-uid, UID in object meta: ${d.metadata.uid}$`,
      ),
    );

    const negative = await call("PUT", path, scaleBody("refused", -1));
    assert.equal(negative.status, 422);
    assert.equal(
      negative.body.message,
      'Scale.autoscaling "refused" is invalid: spec.replicas: Invalid value: -1: must be greater than or equal to 0',
    );
    assert.deepEqual(negative.body.details.causes, [
      {
        reason: "FieldValueInvalid",
        message: "Invalid value: -1: must be greater than or equal to 0",
        field: "spec.replicas",
      },
    ]);

    const renamed = await call("PUT", path, scaleBody("other", 3));
    assert.equal(renamed.status, 400);
    assert.equal(
      renamed.body.message,
      "the name of the object (other) does not match the name on the URL (refused)",
    );

    const wrongKind = await call("PUT", path, {
      apiVersion: "apps/v1",
      kind: "Deployment",
      metadata: { name: "refused" },
      spec: { replicas: 3 },
    });
    assert.equal(wrongKind.status, 400);
    assert.match(wrongKind.body.message, /^Deployment .*cannot be handled as a Scale/);

    assert.equal((await call("GET", path)).body.spec.replicas, 2, "nothing refused was stored");
  });

  it("answers 404 naming the object when it is missing, and 405 to a create or delete", async () => {
    const missing = await call(
      "PATCH",
      `${APPS}/deployments/missing/scale`,
      { spec: { replicas: 3 } },
      "application/merge-patch+json",
    );
    assert.equal(missing.status, 404);
    assert.equal(missing.body.message, 'deployments.apps "missing" not found');
    assert.equal((await call("GET", `${APPS}/deployments/missing/scale`)).status, 404);
    await deployment("verbs");
    assert.equal((await call("DELETE", `${APPS}/deployments/verbs/scale`)).status, 405);
    assert.equal(
      (await call("POST", `${APPS}/deployments/verbs/scale`, scaleBody("verbs", 1))).status,
      405,
    );
  });

  it("applies a Scale server-side: a conflict names the owner as kube does on the Scale, force takes the count", async () => {
    await deployment("applied");
    const path = `${APPS}/deployments/applied/scale`;
    await call(
      "PATCH",
      `${path}?fieldManager=hpa`,
      { spec: { replicas: 2 } },
      "application/merge-patch+json",
    );
    const apply = (query: string) =>
      call(
        "PATCH",
        `${path}?${query}`,
        JSON.stringify(scaleBody("applied", 4)),
        "application/apply-patch+yaml",
      );

    const conflict = await apply("fieldManager=gitops");
    assert.equal(conflict.status, 409);
    assert.equal(
      conflict.body.message,
      'Apply failed with 1 conflict: conflict with "hpa" with subresource "scale" using autoscaling/v1: .spec.replicas',
    );

    const forced = await apply("fieldManager=gitops&force=true");
    assert.equal(forced.status, 200, JSON.stringify(forced.body));
    assert.equal(forced.body.kind, "Scale");
    assert.equal(forced.body.spec.replicas, 4);
    const read = await call("GET", `${APPS}/deployments/applied`);
    const owners = read.body.metadata.managedFields
      .filter((m: Loose) => m.fieldsV1["f:spec"]?.["f:replicas"])
      .map((m: Record<string, string>) => `${m.manager}/${m.operation}/${m.subresource}`);
    assert.deepEqual(owners, ["gitops/Apply/scale"]);
  });

  it("kubectl scale sets the count, and refuses when --current-replicas does not match", async () => {
    await deployment("kubectl");
    const out = await rig.kubectl("scale", "deployment/kubectl", "--replicas=3");
    assert.match(out, /deployment.apps\/kubectl scaled/);
    const read = await call("GET", `${APPS}/deployments/kubectl`);
    assert.equal(read.body.spec.replicas, 3);
    const err = await rig.fails(
      "scale",
      "deployment/kubectl",
      "--current-replicas=1",
      "--replicas=5",
    );
    assert.match(err, /Expected replicas to be 1, was 3/);
  });
});
