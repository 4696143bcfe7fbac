/**
 * A pod's `ephemeralcontainers` and `resize` subresources, as kube-apiserver serves them, on
 * either backend: each changes one part of the spec (a debugging container added; container
 * resources changed in place), recorded under the subresource, and refuses what kube refuses.
 * And a pod's graceful deletion: a pod on a node waits for its kubelet, which neither server
 * runs; one on no node goes at once, its deletion written first.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { startTestServer, type TestServer } from "kontroller/testing";
import { call, type Loose, watch } from "./helpers.ts";

const NS = "pod-subresources";
const PODS = `/api/v1/namespaces/${NS}/pods`;
const SMP = { "content-type": "application/strategic-merge-patch+json" };
const JSON_PATCH = { "content-type": "application/json-patch+json" };

let s: TestServer;
before(async () => {
  s = await startTestServer({ controllers: false });
  await call(s.url, "POST", "/api/v1/namespaces", {
    apiVersion: "v1",
    kind: "Namespace",
    metadata: { name: NS },
  });
  await call(s.url, "POST", `/api/v1/namespaces/${NS}/serviceaccounts`, {
    apiVersion: "v1",
    kind: "ServiceAccount",
    metadata: { name: "default" },
  });
});
after(() => s.close());

async function pod(name: string): Promise<Loose> {
  const r = await call(s.url, "POST", PODS, {
    apiVersion: "v1",
    kind: "Pod",
    metadata: { name },
    spec: {
      automountServiceAccountToken: false,
      containers: [
        {
          name: "main",
          image: "busybox",
          resources: {
            requests: { cpu: "100m", memory: "64Mi" },
            limits: { cpu: "200m", memory: "64Mi" },
          },
        },
      ],
    },
  });
  assert.equal(r.status, 201, JSON.stringify(r.body));
  return r.body;
}

const causes = (r: Loose) => r.body.details.causes.map((c: Loose) => `${c.field}: ${c.message}`);
const managers = (o: Loose) =>
  o.metadata.managedFields.map((m: Loose) => `${m.manager}/${m.subresource ?? ""}`).sort();

describe("pods/ephemeralcontainers", () => {
  it("adds a defaulted ephemeral container, recorded under the subresource, the rest kept", async () => {
    const created = await pod("debugged");
    const read = await call(s.url, "GET", `${PODS}/debugged/ephemeralcontainers`);
    assert.equal(read.status, 200);
    assert.equal(read.body.kind, "Pod");
    const added = await call(
      s.url,
      "PATCH",
      `${PODS}/debugged/ephemeralcontainers?fieldManager=debugger`,
      {
        metadata: { labels: { ignored: "yes" } },
        spec: {
          ephemeralContainers: [
            { name: "debug", image: "busybox", targetContainerName: "main", stdin: true },
          ],
        },
      },
      SMP,
    );
    assert.equal(added.status, 200, JSON.stringify(added.body));
    assert.deepEqual(added.body.spec.ephemeralContainers, [
      {
        name: "debug",
        image: "busybox",
        targetContainerName: "main",
        stdin: true,
        imagePullPolicy: "Always",
        terminationMessagePath: "/dev/termination-log",
        terminationMessagePolicy: "File",
        resources: {},
      },
    ]);
    assert.equal(added.body.metadata.labels, undefined, "only the ephemeral containers change");
    assert.equal(added.body.metadata.generation, created.metadata.generation + 1);
    assert.deepEqual(managers(added.body), ["debugger/ephemeralcontainers", "node/"]);
  });

  it("refuses an invalid ephemeral container, and removing or changing one", async () => {
    await pod("refused");
    const bad = await call(
      s.url,
      "PATCH",
      `${PODS}/refused/ephemeralcontainers`,
      {
        spec: {
          ephemeralContainers: [
            { name: "main", image: "", ports: [{ containerPort: 80 }], targetContainerName: "x" },
          ],
        },
      },
      SMP,
    );
    assert.equal(bad.status, 422);
    const p = "spec.ephemeralContainers[0]";
    assert.deepEqual(causes(bad), [
      `${p}.image: Required value`,
      `${p}.name: Duplicate value: "main"`,
      `${p}.targetContainerName: Not found: "x"`,
      `${p}.ports: Forbidden: cannot be set for an Ephemeral Container`,
    ]);

    const debug = { name: "debug", image: "busybox" };
    const path = `${PODS}/refused/ephemeralcontainers`;
    const ok = await call(s.url, "PATCH", path, { spec: { ephemeralContainers: [debug] } }, SMP);
    assert.equal(ok.status, 200, JSON.stringify(ok.body));
    const changed = await call(
      s.url,
      "PATCH",
      path,
      { spec: { ephemeralContainers: [{ ...debug, image: "other" }] } },
      SMP,
    );
    assert.equal(changed.status, 422);
    // kube appends a Go diff of the change.
    assert.ok(
      changed.body.details.causes[0].message.startsWith(
        'Forbidden: existing ephemeral containers "debug" may not be changed\n',
      ),
    );
    const removed = await call(
      s.url,
      "PATCH",
      path,
      [{ op: "remove", path: "/spec/ephemeralContainers/0" }],
      JSON_PATCH,
    );
    assert.equal(removed.status, 422);
    assert.deepEqual(causes(removed), [
      'spec.ephemeralContainers: Forbidden: existing ephemeral containers "debug" may not be removed\n',
    ]);

    const direct = await call(
      s.url,
      "PATCH",
      `${PODS}/refused`,
      { spec: { ephemeralContainers: [{ name: "other", image: "busybox" }] } },
      SMP,
    );
    assert.equal(direct.status, 422, "the pod itself may not change them");
    assert.ok(
      direct.body.details.causes[0].message.startsWith(
        "Forbidden: pod updates may not change fields other than `spec.containers[*].image`,`spec.initContainers[*].image`,`spec.activeDeadlineSeconds`,`spec.tolerations` (only additions to existing tolerations),`spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it was previously negative)",
      ),
    );
  });
});

describe("pods/resize", () => {
  it("changes a container's cpu in place, recorded under the subresource", async () => {
    const created = await pod("resized");
    const r = await call(
      s.url,
      "PATCH",
      `${PODS}/resized/resize?fieldManager=resizer`,
      { spec: { containers: [{ name: "main", resources: { requests: { cpu: "150m" } } }] } },
      SMP,
    );
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.deepEqual(r.body.spec.containers[0].resources, {
      requests: { cpu: "150m", memory: "64Mi" },
      limits: { cpu: "200m", memory: "64Mi" },
    });
    assert.equal(r.body.metadata.generation, created.metadata.generation + 1);
    const mine = r.body.metadata.managedFields.find((m: Loose) => m.manager === "resizer");
    assert.deepEqual(mine.fieldsV1, {
      "f:spec": {
        "f:containers": {
          'k:{"name":"main"}': { "f:resources": { "f:requests": { "f:cpu": {} } } },
        },
      },
    });
    assert.equal(mine.subresource, "resize");
  });

  it("refuses a change of QoS class, of other resources, and renamed containers", async () => {
    await pod("unresized");
    const path = `${PODS}/unresized/resize`;
    const qos = await call(
      s.url,
      "PATCH",
      path,
      { spec: { containers: [{ name: "main", resources: { limits: { cpu: "100m" } } }] } },
      SMP,
    );
    assert.equal(qos.status, 422);
    assert.deepEqual(causes(qos), [
      'spec: Invalid value: "Burstable": Pod QOS Class may not change as a result of resizing',
    ]);
    const storage = { requests: { "ephemeral-storage": "1Gi" } };
    const other = await call(
      s.url,
      "PATCH",
      path,
      { spec: { containers: [{ name: "main", resources: storage }] } },
      SMP,
    );
    assert.equal(other.status, 422);
    assert.deepEqual(causes(other), ["spec: Forbidden: only cpu and memory resources are mutable"]);
    const renamed = await call(
      s.url,
      "PATCH",
      path,
      [{ op: "replace", path: "/spec/containers/0/name", value: "renamed" }],
      JSON_PATCH,
    );
    assert.equal(renamed.status, 422);
    assert.deepEqual(causes(renamed), [
      "spec.containers[0].name: Forbidden: containers may not be renamed or reordered on resize",
    ]);
  });
});

describe("deleting a pod", () => {
  it("writes its deletion, then removes it at once when it is on no node", async () => {
    const created = await pod("unbound");
    const rv = created.metadata.resourceVersion;
    const w = await watch(
      s.url,
      `${PODS}?watch=1&resourceVersion=${rv}&fieldSelector=metadata.name%3Dunbound`,
    );
    try {
      const deleted = await call(s.url, "DELETE", `${PODS}/unbound`);
      assert.equal(deleted.status, 200, JSON.stringify(deleted.body));
      assert.equal(deleted.body.kind, "Pod");
      assert.equal(deleted.body.metadata.deletionGracePeriodSeconds, 0);
      assert.match(deleted.body.metadata.deletionTimestamp, /^\d{4}-/);
      assert.equal(deleted.body.metadata.generation, created.metadata.generation + 1);
      const modified = await w.next();
      assert.equal(modified.type, "MODIFIED");
      assert.equal(modified.object.metadata.deletionGracePeriodSeconds, 0);
      assert.equal((await w.next()).type, "DELETED");
    } finally {
      w.close();
    }
    assert.equal((await call(s.url, "GET", `${PODS}/unbound`)).status, 404);
  });

  it("leaves a pod on a node terminating for its grace period, which a later delete may only shorten", async () => {
    await pod("bound");
    const bound = await call(s.url, "POST", `${PODS}/bound/binding`, {
      apiVersion: "v1",
      kind: "Binding",
      metadata: { name: "bound" },
      target: { kind: "Node", name: "node-a" },
    });
    assert.equal(bound.status, 201, JSON.stringify(bound.body));
    const first = await call(s.url, "DELETE", `${PODS}/bound`);
    assert.equal(first.status, 200, JSON.stringify(first.body));
    const meta = first.body.metadata;
    assert.equal(
      meta.deletionGracePeriodSeconds,
      30,
      "the pod's default terminationGracePeriodSeconds",
    );
    const at = Date.parse(meta.deletionTimestamp);
    assert.equal((await call(s.url, "GET", `${PODS}/bound`)).status, 200, "it waits for a kubelet");

    const longer = await call(s.url, "DELETE", `${PODS}/bound?gracePeriodSeconds=60`);
    assert.equal(longer.body.metadata.deletionGracePeriodSeconds, 30, "never made longer");
    assert.equal(longer.body.metadata.resourceVersion, meta.resourceVersion);
    const shorter = await call(s.url, "DELETE", `${PODS}/bound?gracePeriodSeconds=10`);
    assert.equal(shorter.body.metadata.deletionGracePeriodSeconds, 10);
    assert.equal(Date.parse(shorter.body.metadata.deletionTimestamp), at - 20_000);
    const now = await call(s.url, "DELETE", `${PODS}/bound?gracePeriodSeconds=0`);
    assert.equal(now.status, 200, JSON.stringify(now.body));
    assert.equal((await call(s.url, "GET", `${PODS}/bound`)).status, 404);
  });
});
