/**
 * Discovery as kube-apiserver 1.36 serves it, on either backend: every subresource of every
 * built-in resource (the generated table, itself checked against a real kube-apiserver in
 * builtin-resources.test.ts), the storage version hashes of resources kube stores at another
 * version than it serves, and a custom resource's verbs in kube's order.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { BUILTIN_RESOURCES } from "kontroller/resources";
import { startTestServer, type TestServer } from "kontroller/testing";
import { call, crdUntil, type Loose } from "./helpers.ts";

let s: TestServer;
before(async () => {
  s = await startTestServer({ controllers: false });
});
after(() => s.close());

const AGGREGATED = "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList";

describe("discovery", () => {
  it("lists every resource's verbs and subresources as kube-apiserver does", async () => {
    const served = new Map<string, string[]>();
    for (const root of ["/api", "/apis"]) {
      const doc = (await call(s.url, "GET", root, undefined, { accept: AGGREGATED })).body;
      for (const g of doc.items) {
        for (const v of g.versions) {
          for (const r of v.resources) {
            served.set(`${g.metadata.name ?? ""}/${v.version}/${r.resource}`, [
              `verbs=${[...r.verbs].sort()}`,
              ...(r.subresources ?? []).map(
                (sub: Loose) =>
                  `${sub.subresource}=${sub.responseKind.group}/${sub.responseKind.version}/${sub.responseKind.kind}:${[...sub.verbs].sort()}`,
              ),
            ]);
          }
        }
      }
    }
    for (const r of BUILTIN_RESOURCES) {
      const expected = [
        `verbs=${[...r.verbs].sort()}`,
        ...r.subresources.map(
          (sub) => `${sub.name}=${sub.group}/${sub.version}/${sub.kind}:${[...sub.verbs].sort()}`,
        ),
      ];
      const key = `${r.group}/${r.version}/${r.plural}`;
      assert.deepEqual(served.get(key)?.sort(), expected.sort(), key);
    }
  });

  it("writes the core resource list without an apiVersion, a group's with one", async () => {
    const core = (await call(s.url, "GET", "/api/v1")).body;
    assert.deepEqual(
      [core.kind, core.apiVersion, core.groupVersion],
      ["APIResourceList", undefined, "v1"],
    );
    const apps = (await call(s.url, "GET", "/apis/apps/v1")).body;
    assert.deepEqual(
      [apps.kind, apps.apiVersion, apps.groupVersion],
      ["APIResourceList", "v1", "apps/v1"],
    );
  });

  it("hashes where kube stores a resource: events.k8s.io Events as core ones, CRDs at v1beta1", async () => {
    const hash = async (path: string, name: string) =>
      (await call(s.url, "GET", path)).body.resources.find((r: Loose) => r.name === name)
        .storageVersionHash;
    assert.equal(await hash("/apis/events.k8s.io/v1", "events"), await hash("/api/v1", "events"));
    assert.equal(
      await hash("/apis/apiextensions.k8s.io/v1", "customresourcedefinitions"),
      "jfWCUB31mvA=", // apiextensions.k8s.io/v1beta1/CustomResourceDefinition
    );
    assert.equal(
      await hash("/apis/admissionregistration.k8s.io/v1", "mutatingadmissionpolicies"),
      "LYmCf+UMVdg=", // admissionregistration.k8s.io/v1beta1/MutatingAdmissionPolicy
    );
    assert.equal(await hash("/api/v1", "configmaps"), "qFsyl6wFWjQ="); // /v1/ConfigMap
  });

  it("lists a custom resource's verbs in kube's order", async () => {
    const created = await call(
      s.url,
      "POST",
      "/apis/apiextensions.k8s.io/v1/customresourcedefinitions",
      {
        apiVersion: "apiextensions.k8s.io/v1",
        kind: "CustomResourceDefinition",
        metadata: { name: "gizmos.verbs.example.com" },
        spec: {
          group: "verbs.example.com",
          scope: "Namespaced",
          names: { plural: "gizmos", singular: "gizmo", kind: "Gizmo" },
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
      },
    );
    assert.equal(created.status, 201, JSON.stringify(created.body));
    await crdUntil(s.url, "gizmos.verbs.example.com", (o) =>
      (o.status?.conditions ?? []).some(
        (c: Loose) => c.type === "Established" && c.status === "True",
      ),
    );
    // kube-apiserver's discovery follows an established CRD a moment later: each attempt is a
    // request, answered once the group is listed.
    let resources: Loose[] | undefined;
    for (let attempt = 0; attempt < 200 && resources === undefined; attempt++) {
      const r = await call(s.url, "GET", "/apis/verbs.example.com/v1");
      if (r.status === 200) resources = r.body.resources;
    }
    assert.deepEqual(resources?.find((r) => r.name === "gizmos")?.verbs, [
      "delete",
      "deletecollection",
      "get",
      "list",
      "patch",
      "create",
      "update",
      "watch",
    ]);
  });
});
