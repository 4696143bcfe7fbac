/**
 * Owner references the garbage collector must judge: owners in another namespace, namespaced
 * owners of cluster-scoped objects, cluster-scoped owners of namespaced objects (valid), owners that never existed or were recreated, and owners of
 * a kind the server serves only later (discovery of a new CRD).
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { silentLogger } from "kontroller/cache";
import { createClient } from "kontroller/client";
import { startControlPlane } from "kontroller/controlplane";
import type { KubeObject } from "kontroller/core";
import {
  configMaps,
  customResourceDefinitions,
  type EventsV1Event,
  eventsV1,
  namespaces,
} from "kontroller/resources";
import { startTestServer } from "kontroller/testing";
import { ClusterView, gadgets, installCrds, ownerRef, widgets } from "./helpers.ts";

/** How the control plane names the widgets' resource in its logs. */
const WIDGETS = `${widgets.group}/${widgets.version}/${widgets.plural}`;

const warned = (view: ClusterView, name: string) =>
  view
    .list("Event")
    .some(
      (e) =>
        (e as EventsV1Event).reason === "OwnerRefInvalidNamespace" &&
        (e as EventsV1Event).regarding?.name === name &&
        (e as EventsV1Event).type === "Warning",
    );

describe("garbage collector: references", { timeout: 60_000 }, () => {
  it("treats an owner in another namespace as absent, and says so in a warning event", async () => {
    await using s = await startTestServer();
    await using client = createClient({ url: s.url });
    for (const name of ["a", "b"]) await client.resource(namespaces).create({ metadata: { name } });
    const inA = await client
      .resource(configMaps)
      .create({ metadata: { name: "owner", namespace: "a" } });
    const inB = await client
      .resource(configMaps)
      .create({ metadata: { name: "local", namespace: "b" } });
    await using view = await ClusterView.start(s.url, [configMaps, eventsV1], "b");
    const cms = client.resource(configMaps, { namespace: "b" });
    await cms.create({ metadata: { name: "cross", ownerReferences: [ownerRef(inA)] } });
    await cms.create({
      metadata: { name: "mixed", ownerReferences: [ownerRef(inA), ownerRef(inB)] },
    });

    await view.until(
      () =>
        view.get("ConfigMap", "cross") === undefined &&
        view.get("ConfigMap", "mixed")?.metadata?.ownerReferences?.length === 1 &&
        warned(view, "cross"),
      "the cross-namespace dependent to go, the other to lose that reference, and a warning",
    );
    assert.equal(view.get("ConfigMap", "mixed")?.metadata?.ownerReferences?.[0]?.name, "local");
    const event = view
      .list("Event")
      .find((e) => (e as EventsV1Event).regarding?.name === "cross") as EventsV1Event;
    assert.match(event.note ?? "", /does not exist in namespace "b"/);
    assert.equal(event.regarding?.namespace, "b");
    assert.ok(
      await client.resource(configMaps, { namespace: "a" }).get("owner"),
      "the owner is untouched",
    );
  });

  it("never collects a cluster-scoped object by a namespaced owner, and warns", async () => {
    await using s = await startTestServer();
    await using client = createClient({ url: s.url });
    await installCrds(client, gadgets);
    const owner = await client
      .resource(configMaps)
      .create({ metadata: { name: "owner", namespace: "default" } });
    await using view = await ClusterView.start(s.url, [gadgets, eventsV1]);
    await client.resource(gadgets).create({
      apiVersion: "example.com/v1",
      kind: "Gadget",
      metadata: { name: "g", ownerReferences: [ownerRef(owner)] },
    });
    await view.until(() => warned(view, "g"), "a warning about the gadget");
    // The warning comes from the check that decided to leave it.
    const g = await client.resource(gadgets).get("g");
    assert.equal(g.metadata?.deletionTimestamp, undefined);
    assert.equal(g.metadata?.ownerReferences?.[0]?.uid, owner.metadata?.uid);
  });

  it("lets namespaced objects in any namespace have a cluster-scoped owner, and collects them with it", async () => {
    await using s = await startTestServer();
    await using client = createClient({ url: s.url });
    await installCrds(client, gadgets);
    await client.resource(namespaces).create({ metadata: { name: "other" } });
    const owner = await client.resource(gadgets).create({
      apiVersion: "example.com/v1",
      kind: "Gadget",
      metadata: { name: "owner" },
    });
    const kept = await client.resource(gadgets).create({
      apiVersion: "example.com/v1",
      kind: "Gadget",
      metadata: { name: "kept" },
    });
    await using view = await ClusterView.start(s.url, [configMaps, gadgets, eventsV1]);
    for (const namespace of ["default", "other"]) {
      await client
        .resource(configMaps)
        .create({ metadata: { name: "dep", namespace, ownerReferences: [ownerRef(owner)] } });
      await client.resource(configMaps).create({
        metadata: { name: "two", namespace, ownerReferences: [ownerRef(owner), ownerRef(kept)] },
      });
    }
    await client.resource(gadgets).delete("owner");
    const inBoth = (name: string) =>
      view.list("ConfigMap").filter((o) => o.metadata?.name === name);
    await view.until(
      () =>
        inBoth("dep").length === 0 &&
        inBoth("two").every((o) => o.metadata?.ownerReferences?.length === 1),
      "the dependents of the deleted Gadget to go, in both namespaces; the shared ones to stay",
    );
    assert.deepEqual(
      inBoth("two").map((o) => [o.metadata?.namespace, o.metadata?.ownerReferences?.[0]?.name]),
      [
        ["default", "kept"],
        ["other", "kept"],
      ],
    );
    assert.equal(warned(view, "dep") || warned(view, "two"), false, "valid references: no warning");
  });

  it("collects dependents of owners that never existed or were replaced", async () => {
    await using s = await startTestServer();
    await using client = createClient({ url: s.url });
    const cms = client.resource(configMaps, { namespace: "default" });
    const live = await cms.create({ metadata: { name: "live" } });
    await using view = await ClusterView.start(s.url, [configMaps], "default");
    await cms.create({
      metadata: {
        name: "never",
        ownerReferences: [{ ...ownerRef(live), name: "ghost", uid: "no-such-uid" }],
      },
    });
    await cms.create({
      metadata: { name: "stale", ownerReferences: [{ ...ownerRef(live), uid: "an-earlier-live" }] },
    });
    await cms.create({ metadata: { name: "kept", ownerReferences: [ownerRef(live)] } });
    // The collector may delete "never" and "stale" before "kept" is even created (it did, on
    // kube-apiserver, once in a few runs): wait for the view to have seen "kept" too.
    await view.until(
      () =>
        view.get("ConfigMap", "never") === undefined &&
        view.get("ConfigMap", "stale") === undefined &&
        view.get("ConfigMap", "kept") !== undefined,
      "both dependents with absent owners to go, the one with a live owner to be there",
    );
    assert.deepEqual(view.names("ConfigMap"), ["kept", "live"]);
  });

  it("retries an owner of a kind not served yet, and judges it once discovery finds the CRD", async () => {
    await using s = await startTestServer();
    await using client = createClient({ url: s.url });
    const cms = client.resource(configMaps, { namespace: "default" });
    await using view = await ClusterView.start(s.url, [configMaps], "default");
    const owner: KubeObject = {
      apiVersion: "example.com/v1",
      kind: "Widget",
      metadata: { name: "w", uid: "uid-of-a-widget-to-come" },
    };
    await cms.create({ metadata: { name: "early", ownerReferences: [ownerRef(owner)] } });
    assert.ok(view.get("ConfigMap", "early") ?? (await cms.get("early")));
    assert.ok(!s.controlPlane?.monitoredResources.some((r) => r.plural === "widgets"));

    await installCrds(client, widgets);
    await view.until(
      () => view.get("ConfigMap", "early") === undefined,
      "the dependent to go once Widgets are served",
    );
    // The new resource is watched: its objects own things from now on.
    const w = await client.resource(widgets).create({
      apiVersion: "example.com/v1",
      kind: "Widget",
      metadata: { name: "w2", namespace: "default" },
    });
    await cms.create({ metadata: { name: "late", ownerReferences: [ownerRef(w)] } });
    await view.until(
      () => view.get("ConfigMap", "late") !== undefined,
      "the dependent of a widget",
    );
    await client.resource(widgets, { namespace: "default" }).delete("w2");
    await view.until(
      () => view.get("ConfigMap", "late") === undefined,
      "the dependent of the deleted widget to go",
    );
    assert.ok(s.controlPlane?.monitoredResources.some((r) => r.plural === "widgets"));
  });

  it("collects the dependents of custom resources when their CRD is deleted", async () => {
    await using s = await startTestServer({ controllers: false });
    await using client = createClient({ url: s.url });
    // The monitor of the widgets goes once discovery no longer serves them. kube-apiserver
    // deletes a CRD's objects before the CRD (their dependents may go first, as any owner's
    // do), so the test waits for the control plane to say it stopped watching them.
    let unwatched!: () => void;
    const widgetsUnwatched = new Promise<void>((resolve) => {
      unwatched = resolve;
    });
    await using controlPlane = await startControlPlane({
      clientOptions: { url: s.url },
      logger: {
        ...silentLogger,
        info: (fields, message) => {
          const removed = fields.removed as string[] | undefined;
          if (message === "monitored resources changed" && removed?.includes(WIDGETS)) {
            unwatched();
          }
        },
      },
    });
    await installCrds(client, widgets);
    const w = await client.resource(widgets).create({
      apiVersion: "example.com/v1",
      kind: "Widget",
      metadata: { name: "w", namespace: "default" },
    });
    const cms = client.resource(configMaps, { namespace: "default" });
    await using view = await ClusterView.start(s.url, [configMaps], "default");
    await cms.create({ metadata: { name: "of-w", ownerReferences: [ownerRef(w)] } });
    await cms.create({
      metadata: {
        name: "of-w-and-more",
        ownerReferences: [ownerRef(w), ownerRef(await cms.create({ metadata: { name: "more" } }))],
      },
    });
    await client.resource(customResourceDefinitions).delete("widgets.example.com");
    await view.until(
      () =>
        view.get("ConfigMap", "of-w") === undefined &&
        view.get("ConfigMap", "of-w-and-more")?.metadata?.ownerReferences?.length === 1,
      "the dependent of the widget to go, and the other to lose that reference",
    );
    await widgetsUnwatched;
    assert.ok(!controlPlane.monitoredResources.some((r) => r.plural === "widgets"));
  });
});
