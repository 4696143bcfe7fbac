/**
 * A custom resource written and read back as kube-apiserver writes it, on either backend: its
 * metadata's emptied maps and lists left out (kube reads metadata into Go's ObjectMeta), and its
 * lists' unstructured metadata, which always carries a continue token; and a new CRD's status
 * written in kube's two steps.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { startTestServer, type TestServer } from "kontroller/testing";
import { call, crdUntil, type Loose, watch } from "./helpers.ts";

const GROUP = "encoding.example.com";
const PATH = `/apis/${GROUP}/v1/namespaces/default/gadgets`;

let s: TestServer;
before(async () => {
  s = await startTestServer({ controllers: false });
  const crd = await call(s.url, "POST", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", {
    apiVersion: "apiextensions.k8s.io/v1",
    kind: "CustomResourceDefinition",
    metadata: { name: `gadgets.${GROUP}` },
    spec: {
      group: GROUP,
      scope: "Namespaced",
      names: { plural: "gadgets", singular: "gadget", kind: "Gadget" },
      versions: [
        {
          name: "v1",
          served: true,
          storage: true,
          schema: {
            openAPIV3Schema: { type: "object", "x-kubernetes-preserve-unknown-fields": true },
          },
        },
      ],
    },
  });
  assert.equal(crd.status, 201, JSON.stringify(crd.body));
  await crdUntil(s.url, `gadgets.${GROUP}`, (o) =>
    (o.status?.conditions ?? []).some(
      (c: Loose) => c.type === "Established" && c.status === "True",
    ),
  );
  // kube-apiserver serves an established CRD's resources a moment later: each attempt is a
  // request, answered once they are served.
  for (let attempt = 0; attempt < 200; attempt++) {
    if ((await call(s.url, "GET", PATH)).status === 200) break;
  }
});
after(() => s.close());

const gadget = (metadata: Record<string, unknown>) => ({
  apiVersion: `${GROUP}/v1`,
  kind: "Gadget",
  metadata,
  spec: { size: 1 },
});

describe("custom resources encoded as kube encodes them", () => {
  it("leave out emptied metadata maps and lists, and record no ownership of them", async () => {
    const created = await call(
      s.url,
      "POST",
      `${PATH}?fieldManager=writer`,
      gadget({ name: "empty", labels: {}, annotations: {}, finalizers: [], ownerReferences: [] }),
    );
    assert.equal(created.status, 201, JSON.stringify(created.body));
    const meta = created.body.metadata;
    for (const key of ["labels", "annotations", "finalizers", "ownerReferences"]) {
      assert.equal(meta[key], undefined, key);
    }
    assert.deepEqual(meta.managedFields[0].fieldsV1, { "f:spec": { ".": {}, "f:size": {} } });

    const labelled = await call(s.url, "PUT", `${PATH}/empty`, {
      ...created.body,
      metadata: { ...meta, labels: { a: "b" } },
    });
    assert.deepEqual(labelled.body.metadata.labels, { a: "b" });
    const unlabelled = await call(s.url, "PUT", `${PATH}/empty`, {
      ...labelled.body,
      metadata: { ...labelled.body.metadata, labels: {} },
    });
    assert.equal(unlabelled.status, 200, JSON.stringify(unlabelled.body));
    assert.equal(unlabelled.body.metadata.labels, undefined);
  });

  it("list with an empty continue token on the last page, and the token and count before it", async () => {
    for (const name of ["page-a", "page-b"]) {
      const r = await call(s.url, "POST", PATH, gadget({ name, labels: { page: "yes" } }));
      assert.equal(r.status, 201, JSON.stringify(r.body));
    }
    const all = await call(s.url, "GET", `${PATH}?labelSelector=page`);
    assert.deepEqual(Object.keys(all.body.metadata), ["continue", "resourceVersion"]);
    assert.equal(all.body.metadata.continue, "");
    const first = await call(s.url, "GET", `${PATH}?limit=1`);
    assert.deepEqual(Object.keys(first.body.metadata), [
      "continue",
      "remainingItemCount",
      "resourceVersion",
    ]);
    assert.equal(first.body.metadata.remainingItemCount, 2);
    const builtin = await call(s.url, "GET", "/api/v1/namespaces/default/configmaps");
    assert.equal(builtin.body.metadata.continue, undefined, "a built-in list writes none");
  });
});

describe("a new CRD's status", () => {
  it("says Installing once its names are accepted, then Established once it is served", async () => {
    const crds = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions";
    const name = `doohickeys.${GROUP}`;
    const created = await call(s.url, "POST", crds, {
      apiVersion: "apiextensions.k8s.io/v1",
      kind: "CustomResourceDefinition",
      metadata: { name },
      spec: {
        group: GROUP,
        scope: "Cluster",
        names: { plural: "doohickeys", singular: "doohickey", kind: "Doohickey" },
        versions: [
          {
            name: "v1",
            served: true,
            storage: true,
            schema: {
              openAPIV3Schema: { type: "object", "x-kubernetes-preserve-unknown-fields": true },
            },
          },
        ],
      },
    });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    // From the create on: a watch from "now" may wait on kube's cache of CRDs, which hears of
    // no revision past the last CRD write.
    const rv = created.body.metadata.resourceVersion;
    const w = await watch(
      s.url,
      `${crds}?watch=1&resourceVersion=${rv}&fieldSelector=metadata.name%3D${name}`,
    );
    try {
      const established: string[] = [];
      for (;;) {
        const e = await w.next();
        assert.ok(e !== undefined, "the watch ended");
        const c = (e.object.status?.conditions ?? []).find((c: Loose) => c.type === "Established");
        if (c === undefined) continue;
        const state = `${c.status}/${c.reason}/${c.message}`;
        if (established.at(-1) !== state) established.push(state);
        if (c.status === "True") break;
      }
      assert.deepEqual(established, [
        "False/Installing/the initial names have been accepted",
        "True/InitialNamesAccepted/the initial names have been accepted",
      ]);
    } finally {
      w.close();
    }
  });
});
