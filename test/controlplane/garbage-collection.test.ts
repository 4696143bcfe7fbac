/**
 * The garbage collector, black box: kubectl deletes owners with each cascade mode; dependents
 * of several kinds, custom resources included, go or stay as kube-controller-manager's would.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { createClient } from "kontroller/client";
import type { KubeObject } from "kontroller/core";
import { configMaps, type Deployment, deployments, pods, secrets } from "kontroller/resources";
import { startTestServer } from "kontroller/testing";
import { ClusterView, installCrds, kubectlFor, ownerRef, widgets } from "./helpers.ts";

const deploymentYaml = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: app
  namespace: default
spec:
  selector:
    matchLabels: {app: x}
  template:
    metadata:
      labels: {app: x}
    spec:
      containers:
      - name: c
        image: nginx:1
`;

/** Metadata of a dependent of `owners` in `default`, blocking their deletion unless told. */
function dependent(
  name: string,
  owners: KubeObject[],
  opts: { block?: boolean; finalizers?: string[] } = {},
) {
  return {
    name,
    namespace: "default",
    ownerReferences: owners.map((o) => ownerRef(o, { blockOwnerDeletion: opts.block ?? true })),
    ...(opts.finalizers ? { finalizers: opts.finalizers } : {}),
  };
}

const deleting = (o: KubeObject | undefined) => Boolean(o?.metadata?.deletionTimestamp);
const kinds = ["ConfigMap", "Secret", "Widget", "Pod"];

describe("garbage collector, with kubectl", { timeout: 60_000 }, () => {
  it("--cascade=background: the owner goes at once, then its dependents of every kind", async () => {
    await using s = await startTestServer();
    await using client = createClient({ url: s.url });
    await using kubectl = await kubectlFor(s.kubeconfigPath);
    await installCrds(client, widgets);
    await kubectl("apply", "-f", await kubectl.file("app.yaml", deploymentYaml));
    const app = (await client
      .resource(deployments, { namespace: "default" })
      .get("app")) as Deployment;
    await client.resource(configMaps).create({ metadata: dependent("app-config", [app]) });
    await client.resource(secrets).create({ metadata: dependent("app-secret", [app]) });
    await client.resource(widgets).create({
      apiVersion: "example.com/v1",
      kind: "Widget",
      metadata: dependent("app-widget", [app]),
    });
    await client.resource(pods).create({
      metadata: dependent("app-pod", [app], { block: false }),
      spec: { containers: [{ name: "c", image: "nginx:1" }] },
    });
    await using view = await ClusterView.start(
      s.url,
      [configMaps, secrets, widgets, pods],
      "default",
    );
    assert.deepEqual(
      kinds.map((k) => view.names(k).length),
      [1, 1, 1, 1],
    );

    assert.match(await kubectl("delete", "deployment", "app", "--cascade=background"), /deleted/);
    await view.until(
      () => kinds.every((k) => view.names(k).length === 0),
      "every dependent to be collected",
    );
    assert.deepEqual(
      view.events
        .filter((e) => e.type === "delete")
        .map((e) => e.name)
        .sort(),
      ["app-config", "app-pod", "app-secret", "app-widget"],
    );
  });

  it("--cascade=foreground: the owner waits for its blocking dependents, a held one included", async () => {
    await using s = await startTestServer();
    await using client = createClient({ url: s.url });
    await using kubectl = await kubectlFor(s.kubeconfigPath);
    await installCrds(client, widgets);
    const parent = await client.resource(widgets).create({
      apiVersion: "example.com/v1",
      kind: "Widget",
      metadata: { name: "parent", namespace: "default" },
    });
    await client.resource(configMaps).create({ metadata: dependent("blocking", [parent]) });
    await client
      .resource(secrets)
      .create({ metadata: dependent("held", [parent], { finalizers: ["example.com/hold"] }) });
    await client.resource(widgets).create({
      apiVersion: "example.com/v1",
      kind: "Widget",
      metadata: dependent("loose", [parent], { block: false }),
    });
    await using view = await ClusterView.start(s.url, [configMaps, secrets, widgets], "default");

    await kubectl("delete", "widget", "parent", "--cascade=foreground", "--wait=false");
    await view.until(
      () =>
        view.names("ConfigMap").length === 0 &&
        view.names("Widget").join() === "parent" &&
        deleting(view.get("Secret", "held")),
      "the free dependents to go and the held one to be deleting",
    );
    const waiting = JSON.parse(await kubectl("get", "widget", "parent", "-o", "json"));
    assert.ok(waiting.metadata.deletionTimestamp, "the owner is being deleted");
    assert.deepEqual(waiting.metadata.finalizers, ["foregroundDeletion"], "and waits");

    await kubectl(
      "patch",
      "secret",
      "held",
      "--type=merge",
      "-p",
      '{"metadata":{"finalizers":null}}',
    );
    await view.until(
      () => view.names("Widget").length === 0 && view.names("Secret").length === 0,
      "the owner to go once its last blocking dependent went",
    );
  });

  it("--cascade=orphan: dependents stay and lose their reference to the owner, and only that one", async () => {
    await using s = await startTestServer();
    await using client = createClient({ url: s.url });
    await using kubectl = await kubectlFor(s.kubeconfigPath);
    await installCrds(client, widgets);
    const cms = client.resource(configMaps, { namespace: "default" });
    const owner = await cms.create({ metadata: { name: "owner" } });
    const other = await cms.create({ metadata: { name: "other" } });
    await client.resource(secrets).create({ metadata: dependent("s", [owner]) });
    await client
      .resource(widgets)
      .create({ apiVersion: "example.com/v1", kind: "Widget", metadata: dependent("w", [owner]) });
    await cms.create({ metadata: dependent("two-owners", [owner, other]) });

    // kubectl waits for the owner to go: the collector must orphan, then drop the finalizer.
    assert.match(await kubectl("delete", "configmap", "owner", "--cascade=orphan"), /deleted/);
    const refs = async (o: Promise<KubeObject>) =>
      ((await o).metadata?.ownerReferences ?? []).map((r) => r.name);
    assert.deepEqual(await refs(client.resource(secrets, { namespace: "default" }).get("s")), []);
    assert.deepEqual(await refs(client.resource(widgets, { namespace: "default" }).get("w")), []);
    assert.deepEqual(await refs(cms.get("two-owners")), ["other"]);
    assert.deepEqual((await cms.list()).items.map((o) => o.metadata?.name).sort(), [
      "other",
      "two-owners",
    ]);
  });

  it("follows a chain owner → child → grandchild: foreground bottom up, background top down", async () => {
    await using s = await startTestServer();
    await using client = createClient({ url: s.url });
    await using kubectl = await kubectlFor(s.kubeconfigPath);
    const cms = client.resource(configMaps, { namespace: "default" });
    const chain = async (prefix: string) => {
      const root = await cms.create({ metadata: { name: `${prefix}-root` } });
      const child = await cms.create({ metadata: dependent(`${prefix}-child`, [root]) });
      await cms.create({ metadata: dependent(`${prefix}-grandchild`, [child]) });
    };
    await chain("fg");
    await chain("bg");
    await using view = await ClusterView.start(s.url, [configMaps], "default");

    // Waits for the root to go, which needs the whole chain gone first.
    await kubectl("delete", "configmap", "fg-root", "--cascade=foreground");
    const deleted = (prefix: string) =>
      view.events
        .filter((e) => e.type === "delete" && e.name.startsWith(prefix))
        .map((e) => e.name);
    await view.until(() => deleted("fg").length === 3, "the foreground chain to go");
    assert.deepEqual(deleted("fg"), ["fg-grandchild", "fg-child", "fg-root"]);

    await kubectl("delete", "configmap", "bg-root");
    await view.until(() => deleted("bg").length === 3, "the background chain to go");
    assert.deepEqual(deleted("bg"), ["bg-root", "bg-child", "bg-grandchild"]);
    assert.deepEqual(view.names("ConfigMap"), []);
  });
});
