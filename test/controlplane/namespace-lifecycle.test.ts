/**
 * The namespace controller, black box: a deleted namespace is emptied of every namespaced
 * resource (custom ones too), reports what is left in its conditions, and goes once the last
 * finalizer is removed; faults on the way show in the conditions and heal.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { createClient } from "kontroller/client";
import { startControlPlane } from "kontroller/controlplane";
import type { KubeObject } from "kontroller/core";
import {
  configMaps,
  deployments,
  leases,
  type Namespace,
  namespaces,
  pods,
  secrets,
  serviceAccounts,
  services,
} from "kontroller/resources";
import { startFaultProxy, startTestServer } from "kontroller/testing";
import { ClusterView, gadgets, installCrds, kubectlFor, ownerRef, widgets } from "./helpers.ts";

type Condition = { type: string; status: string; reason: string; message: string };
const conditions = (ns: KubeObject | undefined): Record<string, Condition> =>
  Object.fromEntries(
    ((ns as Namespace | undefined)?.status?.conditions ?? []).map((c) => [c.type, c as Condition]),
  );

const NAMESPACED = [
  configMaps,
  secrets,
  services,
  serviceAccounts,
  pods,
  leases,
  deployments,
  widgets,
];

async function fill(url: string, ns: string): Promise<void> {
  await using client = createClient({ url });
  const m = (name: string, extra: Record<string, unknown> = {}) => ({
    metadata: { name, namespace: ns, ...extra },
  });
  await client.resource(namespaces).create({ metadata: { name: ns } });
  await client.resource(configMaps).create(m("cm"));
  await client.resource(secrets).create(m("secret"));
  await client.resource(serviceAccounts).create(m("sa"));
  await client.resource(services).create({ ...m("svc"), spec: { ports: [{ port: 80 }] } });
  await client
    .resource(pods)
    .create({ ...m("pod"), spec: { containers: [{ name: "c", image: "i" }] } });
  await client.resource(leases).create(m("lease"));
  await client.resource(deployments).create({
    ...m("deploy"),
    spec: {
      selector: { matchLabels: { a: "b" } },
      template: {
        metadata: { labels: { a: "b" } },
        spec: { containers: [{ name: "c", image: "i" }] },
      },
    },
  });
  await client
    .resource(widgets)
    .create({ apiVersion: "example.com/v1", kind: "Widget", ...m("w") });
  await client.resource(widgets).create({
    apiVersion: "example.com/v1",
    kind: "Widget",
    ...m("held", { finalizers: ["example.com/hold"] }),
  });
}

describe("namespace controller", { timeout: 60_000 }, () => {
  it("empties a deleted namespace of every kind, reports the held object, and finalizes it when released", async () => {
    await using s = await startTestServer();
    await using client = createClient({ url: s.url });
    await using kubectl = await kubectlFor(s.kubeconfigPath);
    await installCrds(client, widgets);
    await fill(s.url, "full");
    await using view = await ClusterView.start(s.url, [namespaces, ...NAMESPACED], "full");
    assert.equal(view.names("Widget").length, 2);

    await kubectl("delete", "namespace", "full", "--wait=false");
    const left = (kind: string) => (kind === "Widget" ? ["held"] : []);
    await view.until(
      () =>
        conditions(view.get("Namespace", "full")).NamespaceFinalizersRemaining?.status === "True" &&
        NAMESPACED.every((def) => view.names(def.kind).join() === left(def.kind).join()),
      "everything but the held widget to go, and the conditions to say so",
    );
    for (const def of NAMESPACED) {
      const { items } = await client.resource(def, { namespace: "full" }).list();
      assert.deepEqual(
        items.map((o) => o.metadata?.name),
        left(def.kind),
        def.kind,
      );
    }
    const ns = JSON.parse(await kubectl("get", "namespace", "full", "-o", "json"));
    assert.equal(ns.status.phase, "Terminating");
    assert.deepEqual(ns.spec.finalizers, ["kubernetes"]);
    const c = conditions(ns);
    assert.deepEqual(
      {
        status: c.NamespaceContentRemaining?.status,
        message: c.NamespaceContentRemaining?.message,
      },
      {
        status: "True",
        message: "Some resources are remaining: widgets.example.com has 1 resource instances",
      },
    );
    assert.equal(
      c.NamespaceFinalizersRemaining?.message,
      "Some content in the namespace has finalizers remaining: example.com/hold in 1 resource instances",
    );
    assert.equal(c.NamespaceDeletionDiscoveryFailure?.status, "False");
    assert.equal(c.NamespaceDeletionContentFailure?.reason, "ContentDeleted");

    await kubectl(
      "patch",
      "widget",
      "held",
      "-n",
      "full",
      "--type=merge",
      "-p",
      '{"metadata":{"finalizers":null}}',
    );
    await view.until(() => view.get("Namespace", "full") === undefined, "the namespace to go");
    await assert.rejects(kubectl("get", "namespace", "full"), /NotFound|not found/);
  });

  it("lets kubectl wait for an empty namespace to go", async () => {
    await using s = await startTestServer();
    await using kubectl = await kubectlFor(s.kubeconfigPath);
    await kubectl(
      "apply",
      "-f",
      await kubectl.file("ns.yaml", "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: empty\n"),
    );
    assert.match(await kubectl("delete", "namespace", "empty"), /namespace "empty" deleted/);
    await assert.rejects(kubectl("get", "namespace", "empty"), /not found/);
  });

  it("collects the dependents of a namespace, or orphans them with --cascade=orphan", async () => {
    await using s = await startTestServer();
    await using client = createClient({ url: s.url });
    await using kubectl = await kubectlFor(s.kubeconfigPath);
    await installCrds(client, gadgets);
    const nsApi = client.resource(namespaces);
    const gadget = (name: string, owner: KubeObject) =>
      client.resource(gadgets).create({
        apiVersion: "example.com/v1",
        kind: "Gadget",
        metadata: {
          name,
          ownerReferences: [ownerRef({ ...owner, apiVersion: "v1", kind: "Namespace" })],
        },
      });
    await gadget("of-a", await nsApi.create({ metadata: { name: "a" } }));
    await gadget("of-b", await nsApi.create({ metadata: { name: "b" } }));
    await using view = await ClusterView.start(s.url, [namespaces, gadgets]);

    await kubectl("delete", "namespace", "a", "--cascade=foreground");
    await view.until(() => view.get("Gadget", "of-a") === undefined, "the gadget of a to go");
    await kubectl("delete", "namespace", "b", "--cascade=orphan");
    // kubectl has seen b go; the view hears of it by its own watch, a moment later or not.
    await view.until(() => view.get("Namespace", "b") === undefined, "namespace b to go");
    const orphaned = await client.resource(gadgets).get("of-b");
    assert.deepEqual(orphaned.metadata?.ownerReferences ?? [], []);
  });

  it("reports failed discovery and failed deletions in the conditions, and recovers when they heal", async () => {
    await using s = await startTestServer({ controllers: false });
    await using proxy = await startFaultProxy({ target: s.url });
    await using cp = await startControlPlane({
      clientOptions: { url: proxy.url, retry: { maxRetries: 0 } },
      logger: { error() {}, warn() {}, info() {}, debug() {} },
    });
    assert.ok(cp.manager.controllers.some((c) => c.name === "namespace"));
    await using client = createClient({ url: s.url });
    await using view = await ClusterView.start(s.url, [namespaces]);
    const nsApi = client.resource(namespaces);
    const cms = client.resource(configMaps, { namespace: "faulty" });

    await nsApi.create({ metadata: { name: "faulty" } });
    await cms.create({ metadata: { name: "cm" } });
    proxy.failRequests({
      status: 503,
      match: (r) => r.method === "GET" && r.path === "/apis/apps/v1",
    });
    proxy.failRequests({
      status: 500,
      match: (r) => r.method === "DELETE" && r.path === "/api/v1/namespaces/faulty/configmaps",
    });
    await nsApi.delete("faulty");
    await view.until(() => {
      const c = conditions(view.get("Namespace", "faulty"));
      return (
        c.NamespaceDeletionDiscoveryFailure?.status === "True" &&
        c.NamespaceDeletionContentFailure?.status === "True"
      );
    }, "both failures in the conditions");
    const c = conditions(view.get("Namespace", "faulty"));
    assert.equal(c.NamespaceDeletionDiscoveryFailure?.reason, "DiscoveryFailed");
    assert.match(
      c.NamespaceDeletionDiscoveryFailure?.message ?? "",
      /^Discovery failed for some groups, 1 failing: apps\/v1: /,
    );
    assert.equal(c.NamespaceDeletionContentFailure?.reason, "ContentDeletionFailed");
    assert.match(
      c.NamespaceDeletionContentFailure?.message ?? "",
      /^Failed to delete all resource types, 1 remaining: configmaps\. /,
    );
    assert.equal((await cms.list()).items.length, 1, "what could not be deleted is still there");

    proxy.heal();
    proxy.failRequests({ status: 500, count: 2, match: (r) => r.path.endsWith("/finalize") });
    await view.until(
      () => view.get("Namespace", "faulty") === undefined,
      "the namespace to go once healed",
    );
    assert.equal((await cms.list()).items.length, 0);
    assert.equal(proxy.requests.filter((r) => r.path.endsWith("/finalize")).length >= 3, true);
  });
});
