import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { ApiError, InvalidOptionError } from "../core/index.ts";
import { type CustomResourceDefinition, customResourceDefinitions } from "../resources/index.ts";
import { startFaultProxy, startTestServer } from "../testing/index.ts";
import { createClient } from "./client.ts";
import { DiscoveryClient } from "./discovery.ts";

const widgetsCrd: CustomResourceDefinition = {
  apiVersion: "apiextensions.k8s.io/v1",
  kind: "CustomResourceDefinition",
  metadata: { name: "widgets.example.com" },
  spec: {
    group: "example.com",
    scope: "Namespaced",
    names: { plural: "widgets", singular: "widget", kind: "Widget", shortNames: ["wd"] },
    versions: [
      {
        name: "v1beta1",
        served: true,
        storage: false,
        schema: {
          openAPIV3Schema: { type: "object", "x-kubernetes-preserve-unknown-fields": true },
        },
      },
      {
        name: "v1",
        served: true,
        storage: true,
        subresources: { status: {} },
        schema: {
          openAPIV3Schema: { type: "object", "x-kubernetes-preserve-unknown-fields": true },
        },
      },
    ],
  },
};

/** Creates a CRD and resolves once the server says it is Established (served). */
async function establish(url: string, crd: CustomResourceDefinition): Promise<void> {
  await using client = createClient({ url });
  const crds = client.resource(customResourceDefinitions);
  const created = await crds.create(crd);
  const established = (o: CustomResourceDefinition) =>
    o.status?.conditions?.some((c) => c.type === "Established" && c.status === "True") ?? false;
  const ac = new AbortController();
  try {
    for await (const e of crds.watch({
      fieldSelector: `metadata.name=${crd.metadata!.name}`,
      resourceVersion: created.metadata!.resourceVersion!,
      signal: ac.signal,
    })) {
      if (e.type !== "BOOKMARK" && established(e.object)) return;
    }
  } finally {
    ac.abort();
  }
}

describe("DiscoveryClient", () => {
  it("lists the groups, core first, each with its preferred version first", async () => {
    await using s = await startTestServer({ controllers: false });
    await using client = createClient({ url: s.url });
    const groups = await new DiscoveryClient({ client }).groups();
    assert.deepEqual(groups[0], { name: "", versions: ["v1"], preferredVersion: "v1" });
    const names = groups.map((g) => g.name);
    for (const g of ["apps", "coordination.k8s.io", "events.k8s.io", "apiextensions.k8s.io"]) {
      assert.ok(names.includes(g), `${g} is listed`);
    }
  });

  it("describes each resource of a group version: scope, verbs, names, subresources", async () => {
    await using s = await startTestServer({ controllers: false });
    await using client = createClient({ url: s.url });
    const core = await new DiscoveryClient({ client: client.transport }).resourcesFor("v1");
    const ns = core.find((r) => r.plural === "namespaces")!;
    assert.equal(ns.kind, "Namespace");
    assert.equal(ns.scope, "Cluster");
    assert.equal(ns.group, "");
    assert.equal(ns.version, "v1");
    assert.ok(ns.verbs.includes("delete") && !ns.verbs.includes("deletecollection"));
    assert.deepEqual([...ns.subresources].sort(), ["finalize", "status"]);
    const cm = core.find((r) => r.plural === "configmaps")!;
    assert.equal(cm.scope, "Namespaced");
    assert.deepEqual(cm.shortNames, ["cm"]);
    assert.equal(cm.listKind, "ConfigMapList");
    assert.ok(cm.verbs.includes("deletecollection"));
    assert.ok(!core.some((r) => r.plural.includes("/")), "subresources are folded in");
    // A discovered resource is a definition: a typed client can use it.
    const listed = await client.resource(ns).list();
    assert.ok(listed.items.some((n) => n.metadata?.name === "default"));
  });

  it("discovers custom resources at every served version and prefers the preferred one", async () => {
    await using s = await startTestServer({ controllers: false });
    await establish(s.url, widgetsCrd);
    await using client = createClient({ url: s.url });
    const d = await new DiscoveryClient({ client }).discover();
    assert.equal(d.failed.size, 0);
    const widgets = d.resources.filter((r) => r.group === "example.com");
    assert.deepEqual(widgets.map((r) => r.version).sort(), ["v1", "v1beta1"]);
    const preferred = d.preferred.filter((r) => r.group === "example.com");
    assert.equal(preferred.length, 1);
    assert.equal(preferred[0]!.version, "v1");
    assert.deepEqual(preferred[0]!.subresources, ["status"]);
    assert.deepEqual(preferred[0]!.shortNames, ["wd"]);
    // One preferred entry per group and resource.
    const keys = d.preferred.map((r) => `${r.group}/${r.plural}`);
    assert.equal(new Set(keys).size, keys.length);
    assert.ok(keys.includes("/configmaps") && keys.includes("apps/deployments"));
  });

  it("reports a group version that fails and keeps the others", async () => {
    await using s = await startTestServer({ controllers: false });
    await using proxy = await startFaultProxy({ target: s.url });
    proxy.failRequests({ status: 503, match: (r) => r.path === "/apis/apps/v1" });
    await using client = createClient({ url: proxy.url });
    const d = await new DiscoveryClient({ client, retry: { maxRetries: 0 } }).discover();
    assert.deepEqual([...d.failed.keys()], ["apps/v1"]);
    const err = d.failed.get("apps/v1");
    assert.ok(err instanceof ApiError && err.code === 503);
    assert.ok(!d.resources.some((r) => r.group === "apps"));
    assert.ok(d.preferred.some((r) => r.plural === "configmaps"));
  });

  it("rejects when the group list itself cannot be read", async () => {
    await using s = await startTestServer({ controllers: false });
    await using proxy = await startFaultProxy({ target: s.url });
    proxy.failRequests({ status: 500, match: (r) => r.path === "/apis" });
    await using client = createClient({ url: proxy.url });
    const discovery = new DiscoveryClient({ client, retry: { maxRetries: 0 } });
    await assert.rejects(
      discovery.discover(),
      (err) => err instanceof ApiError && err.code === 500,
    );
  });

  it("retries a failed read by the client's policy", async () => {
    await using s = await startTestServer({ controllers: false });
    await using proxy = await startFaultProxy({ target: s.url });
    proxy.failRequests({ status: 503, count: 1, match: (r) => r.path === "/api/v1" });
    await using client = createClient({ url: proxy.url });
    const discovery = new DiscoveryClient({ client, retry: { initialDelayMs: 1, maxRetries: 2 } });
    const core = await discovery.resourcesFor("v1");
    assert.ok(core.some((r) => r.plural === "pods"));
  });

  it("stops at an aborted signal, and refuses what is not a client", async () => {
    await using s = await startTestServer({ controllers: false });
    await using client = createClient({ url: s.url });
    const ac = new AbortController();
    const reason = new Error("stop");
    ac.abort(reason);
    await assert.rejects(new DiscoveryClient({ client }).discover({ signal: ac.signal }), reason);
    assert.throws(() => new DiscoveryClient({} as never), InvalidOptionError);
    assert.throws(
      () => new DiscoveryClient({ client, retry: { maxRetries: -1 } }),
      /retry\.maxRetries/,
    );
  });
});
