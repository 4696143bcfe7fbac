/**
 * Deletions in flight survive restarts: the control plane stopped midway and started again
 * (a new process, as after a crash or a leader change), or the API server restarted under it.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { ApiServer, MemoryStorage } from "kontroller/apiserver";
import { silentLogger } from "kontroller/cache";
import { type Client, createClient } from "kontroller/client";
import { startControlPlane } from "kontroller/controlplane";
import type { KubeObject } from "kontroller/core";
import { configMaps, namespaces, secrets } from "kontroller/resources";
import { embeddedOnly, startTestServer } from "kontroller/testing";
import { ClusterView, ownerRef } from "./helpers.ts";

const HOLD = "example.com/hold";
const release = { metadata: { finalizers: null } };

/** An owner with a held blocking dependent and a free one, in `default`. */
async function family(client: Client, prefix: string): Promise<KubeObject> {
  const cms = client.resource(configMaps, { namespace: "default" });
  const owner = await cms.create({ metadata: { name: `${prefix}-owner` } });
  const refs = [ownerRef(owner, { blockOwnerDeletion: true })];
  await client
    .resource(secrets, { namespace: "default" })
    .create({ metadata: { name: `${prefix}-held`, ownerReferences: refs, finalizers: [HOLD] } });
  await cms.create({ metadata: { name: `${prefix}-free`, ownerReferences: refs } });
  return owner;
}

const deleting = (o: KubeObject | undefined) => Boolean(o?.metadata?.deletionTimestamp);

describe("control plane restarts", { timeout: 60_000 }, () => {
  it("a new control plane finishes what a stopped one started, and what happened while none ran", async () => {
    await using s = await startTestServer({ controllers: false });
    await using client = createClient({ url: s.url });
    const cms = client.resource(configMaps, { namespace: "default" });
    const held = client.resource(secrets, { namespace: "default" });
    await using view = await ClusterView.start(s.url, [configMaps, secrets, namespaces]);
    const cp1 = await startControlPlane({ clientOptions: { url: s.url }, logger: silentLogger });

    await family(client, "fg");
    await cms.delete("fg-owner", { propagationPolicy: "Foreground" });
    await view.until(
      () =>
        view.get("ConfigMap", "fg-free") === undefined && deleting(view.get("Secret", "fg-held")),
      "the foreground deletion to reach the held dependent",
    );
    await cp1.stop();

    // With no control plane: a release, an orphaning, a background delete, a namespace.
    await held.patch("fg-held", "merge", release);
    const orphanOwner = await cms.create({ metadata: { name: "or-owner" } });
    await cms.create({ metadata: { name: "or-dep", ownerReferences: [ownerRef(orphanOwner)] } });
    await cms.delete("or-owner", { propagationPolicy: "Orphan" });
    const bgOwner = await cms.create({ metadata: { name: "bg-owner" } });
    await cms.create({ metadata: { name: "bg-dep", ownerReferences: [ownerRef(bgOwner)] } });
    await cms.delete("bg-owner");
    await client.resource(namespaces).create({ metadata: { name: "gone" } });
    await client.resource(configMaps, { namespace: "gone" }).create({ metadata: { name: "x" } });
    await client.resource(namespaces).delete("gone");
    assert.ok(deleting(await cms.get("fg-owner")), "nothing ran meanwhile");
    assert.ok(deleting(await cms.get("or-owner")));

    await using cp2 = await startControlPlane({
      clientOptions: { url: s.url },
      logger: silentLogger,
    });
    await view.until(
      () =>
        view.get("ConfigMap", "fg-owner") === undefined &&
        view.get("ConfigMap", "or-owner") === undefined &&
        view.get("ConfigMap", "bg-dep") === undefined &&
        view.get("Namespace", "gone") === undefined,
      "every deletion to finish",
    );
    assert.deepEqual(view.get("ConfigMap", "or-dep")?.metadata?.ownerReferences ?? [], []);
    assert.ok(cp2.graph.size > 0);
  });

  it("converges when the API server restarts mid-deletion", {
    skip: embeddedOnly("restarting the API server in-process on the same storage"),
  }, async () => {
    const storage = new MemoryStorage();
    let server = new ApiServer({ storage, compactionIntervalMs: 0 });
    const url = await server.listen();
    const port = Number(new URL(url).port);
    try {
      await using client = createClient({ url });
      await using cp = await startControlPlane({ clientOptions: { url }, logger: silentLogger });
      assert.ok(cp.monitoredResources.length > 0);
      await family(client, "fg");
      await client.resource(configMaps, { namespace: "default" }).delete("fg-owner", {
        propagationPolicy: "Foreground",
      });
      {
        await using view = await ClusterView.start(url, [configMaps, secrets], "default");
        await view.until(
          () =>
            view.get("ConfigMap", "fg-free") === undefined &&
            deleting(view.get("Secret", "fg-held")),
          "the foreground deletion to reach the held dependent",
        );
      }

      await server.close();
      server = new ApiServer({ storage, port, compactionIntervalMs: 0 });
      await server.listen();

      await using view = await ClusterView.start(url, [configMaps, secrets], "default");
      await client.resource(secrets, { namespace: "default" }).patch("fg-held", "merge", release);
      const cms = client.resource(configMaps, { namespace: "default" });
      const bg = await cms.create({ metadata: { name: "bg-owner" } });
      await cms.create({ metadata: { name: "bg-dep", ownerReferences: [ownerRef(bg)] } });
      await cms.delete("bg-owner");
      await view.until(
        () => view.names("ConfigMap").length === 0 && view.names("Secret").length === 0,
        "both deletions to finish after the restart",
      );
    } finally {
      await server.close();
      await storage.close();
    }
  });
});
