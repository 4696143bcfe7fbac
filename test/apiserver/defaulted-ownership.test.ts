/**
 * What kube's decoding does to a written body before field management records the write:
 * unknown fields are dropped (with a warning) for every built-in kind, and the kind's defaults
 * are filled in — so the writer owns the defaulted fields, as kube-apiserver's managedFields
 * show — while what the registry sets afterwards (a created object's status, a CRD's stored
 * versions) is nobody's. Also the bookkeeping kube's own delete code does for CRDs. The
 * expectations are kube-apiserver 1.36's answers; the suite runs on both backends.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { startTestServer, type TestServer } from "kontroller/testing";
import { call, type Loose } from "./helpers.ts";

let s: TestServer;
before(async () => {
  s = await startTestServer({ controllers: false });
});
after(() => s.close());

/** The fields of the write's managedFields entry by `manager`. */
function ownedBy(object: Loose, manager: string): Loose {
  const entry = object.metadata.managedFields?.find((m: Loose) => m.manager === manager);
  return entry?.fieldsV1;
}

const container = { name: "main", image: "busybox" };
const ownedContainer = {
  ".": {},
  "f:image": {},
  "f:imagePullPolicy": {},
  "f:name": {},
  "f:resources": {},
  "f:terminationMessagePath": {},
  "f:terminationMessagePolicy": {},
};
const ownedPodSpec = {
  "f:containers": { 'k:{"name":"main"}': ownedContainer },
  "f:dnsPolicy": {},
  "f:restartPolicy": {},
  "f:schedulerName": {},
  "f:securityContext": {},
  "f:terminationGracePeriodSeconds": {},
};

describe("defaulted fields belong to the writer", () => {
  it("a Deployment's writer owns every field kube's defaulting filled in", async () => {
    const r = await call(
      s.url,
      "POST",
      "/apis/apps/v1/namespaces/default/deployments?fieldManager=writer",
      {
        apiVersion: "apps/v1",
        kind: "Deployment",
        metadata: { name: "owned" },
        spec: {
          selector: { matchLabels: { app: "owned" } },
          template: { metadata: { labels: { app: "owned" } }, spec: { containers: [container] } },
        },
      },
    );
    assert.equal(r.status, 201, JSON.stringify(r.body));
    assert.deepEqual(ownedBy(r.body, "writer"), {
      "f:spec": {
        "f:progressDeadlineSeconds": {},
        "f:replicas": {},
        "f:revisionHistoryLimit": {},
        "f:selector": {},
        "f:strategy": {
          "f:rollingUpdate": { ".": {}, "f:maxSurge": {}, "f:maxUnavailable": {} },
          "f:type": {},
        },
        "f:template": {
          "f:metadata": { "f:labels": { ".": {}, "f:app": {} } },
          "f:spec": ownedPodSpec,
        },
      },
    });
  });

  it("a Service's writer owns its defaults, not the cluster IP the server allocated", async () => {
    const r = await call(s.url, "POST", "/api/v1/namespaces/default/services?fieldManager=writer", {
      apiVersion: "v1",
      kind: "Service",
      metadata: { name: "owned" },
      spec: { selector: { app: "owned" }, ports: [{ port: 80 }] },
    });
    assert.equal(r.status, 201, JSON.stringify(r.body));
    assert.ok(r.body.spec.clusterIP, "a cluster IP was allocated");
    assert.deepEqual(ownedBy(r.body, "writer"), {
      "f:spec": {
        "f:internalTrafficPolicy": {},
        "f:ports": {
          ".": {},
          'k:{"port":80,"protocol":"TCP"}': {
            ".": {},
            "f:port": {},
            "f:protocol": {},
            "f:targetPort": {},
          },
        },
        "f:selector": {},
        "f:sessionAffinity": {},
        "f:type": {},
      },
    });
  });

  it("a namespace's writer owns the name label kube's defaulting adds", async () => {
    const r = await call(s.url, "POST", "/api/v1/namespaces?fieldManager=writer", {
      apiVersion: "v1",
      kind: "Namespace",
      metadata: { name: "owned-ns" },
    });
    assert.equal(r.status, 201, JSON.stringify(r.body));
    assert.deepEqual(ownedBy(r.body, "writer"), {
      "f:metadata": { "f:labels": { ".": {}, "f:kubernetes.io/metadata.name": {} } },
    });
  });

  it("a DaemonSet's writer owns the template generation annotation, which counts template changes", async () => {
    const path = "/apis/apps/v1/namespaces/default/daemonsets";
    const body = (image: string) => ({
      apiVersion: "apps/v1",
      kind: "DaemonSet",
      metadata: { name: "owned" },
      spec: {
        selector: { matchLabels: { app: "owned" } },
        template: {
          metadata: { labels: { app: "owned" } },
          spec: { containers: [{ ...container, image }] },
        },
      },
    });
    const created = await call(s.url, "POST", `${path}?fieldManager=writer`, body("busybox"));
    assert.equal(created.status, 201, JSON.stringify(created.body));
    const generation = (o: Loose) =>
      o.metadata.annotations["deprecated.daemonset.template.generation"];
    assert.equal(generation(created.body), "1");
    assert.deepEqual(ownedBy(created.body, "writer")["f:metadata"], {
      "f:annotations": { ".": {}, "f:deprecated.daemonset.template.generation": {} },
    });
    const relabelled = { ...body("busybox"), metadata: { name: "owned", labels: { a: "b" } } };
    const same = await call(s.url, "PUT", `${path}/owned`, relabelled);
    assert.equal(generation(same.body), "1", "the template did not change");
    const changed = await call(s.url, "PUT", `${path}/owned`, body("busybox:stable"));
    assert.equal(generation(changed.body), "2");

    // Metadata answered alone is kube's internal form's, which keeps the generation elsewhere.
    const as = (kind: string) => ({ accept: `application/json;as=${kind};v=v1;g=meta.k8s.io` });
    const partial = await call(
      s.url,
      "GET",
      `${path}/owned`,
      undefined,
      as("PartialObjectMetadata"),
    );
    assert.equal(partial.body.metadata.annotations, undefined);
    const list = await call(s.url, "GET", path, undefined, as("PartialObjectMetadataList"));
    assert.equal(list.body.items[0].metadata.annotations, undefined);
    const table = await call(s.url, "GET", `${path}/owned`, undefined, as("Table"));
    assert.equal(table.body.rows[0].object.metadata.annotations, undefined);
  });
});

describe("unknown fields of every built-in kind", () => {
  it("are dropped with a warning from a kind with no strategy of its own (a Role)", async () => {
    const r = await call(
      s.url,
      "POST",
      "/apis/rbac.authorization.k8s.io/v1/namespaces/default/roles",
      {
        apiVersion: "rbac.authorization.k8s.io/v1",
        kind: "Role",
        metadata: { name: "typo" },
        rules: [{ apiGroups: [""], resources: ["pods"], verbs: ["get"], verbz: ["list"] }],
      },
    );
    assert.equal(r.status, 201, JSON.stringify(r.body));
    assert.deepEqual(r.body.rules, [{ apiGroups: [""], resources: ["pods"], verbs: ["get"] }]);
    assert.match(r.headers.get("warning") ?? "", /unknown field \\"rules\[0\]\.verbz\\"/);
  });

  it("are refused under fieldValidation=Strict, nothing stored", async () => {
    const path = "/apis/networking.k8s.io/v1/namespaces/default/ingresses";
    const r = await call(s.url, "POST", `${path}?fieldValidation=Strict`, {
      apiVersion: "networking.k8s.io/v1",
      kind: "Ingress",
      metadata: { name: "strict" },
      spec: { defaultBackend: { service: { name: "web", port: { number: 80 } } }, rulez: [] },
    });
    assert.equal(r.status, 400);
    assert.match(r.body.message, /unknown field "spec\.rulez"/);
    assert.equal((await call(s.url, "GET", `${path}/strict`)).status, 404);
  });
});

describe("a CRD's registry bookkeeping", () => {
  const CRDS = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions";
  const crd = {
    apiVersion: "apiextensions.k8s.io/v1",
    kind: "CustomResourceDefinition",
    metadata: { name: "things.owned.example.com" },
    spec: {
      group: "owned.example.com",
      scope: "Namespaced",
      names: { plural: "things", kind: "Thing" },
      versions: [
        {
          name: "v1",
          served: true,
          storage: true,
          schema: { openAPIV3Schema: { type: "object" } },
        },
      ],
    },
  };

  it("a created CRD has its stored version and no finalizer; deleting it adds the cleanup finalizer alone", async () => {
    const r = await call(s.url, "POST", `${CRDS}?fieldManager=writer`, crd);
    assert.equal(r.status, 201, JSON.stringify(r.body));
    assert.deepEqual(r.body.status, {
      conditions: null,
      acceptedNames: { plural: "", kind: "" },
      storedVersions: ["v1"],
    });
    assert.equal(r.body.metadata.finalizers, undefined);
    assert.deepEqual(ownedBy(r.body, "writer")["f:spec"]["f:conversion"], {
      ".": {},
      "f:strategy": {},
    });
    const deleted = await call(s.url, "DELETE", `${CRDS}/${crd.metadata.name}`);
    assert.equal(deleted.status, 200, JSON.stringify(deleted.body));
    if (deleted.body.kind === "CustomResourceDefinition") {
      // Still held by the finalizer: marked, neither a grace period nor a new generation.
      assert.deepEqual(deleted.body.metadata.finalizers, [
        "customresourcecleanup.apiextensions.k8s.io",
      ]);
      assert.equal(deleted.body.metadata.deletionGracePeriodSeconds, undefined);
      assert.equal(deleted.body.metadata.generation, 1);
    }
  });
});
