/**
 * The protection controllers, black box: the API server puts `kubernetes.io/pvc-protection` on
 * a claim and `kubernetes.io/pv-protection` on a volume as they are created (kube's default
 * admission); a deleted claim stays while a running pod uses it and goes once none does, a
 * deleted volume goes once it is not Bound, and a namespace holding a claim can be deleted.
 * Runs on both backends (kube-apiserver runs no controllers: the control plane is kontroller's).
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { createClient } from "kontroller/client";
import { namespaces, pods, resourceDefinition } from "kontroller/resources";
import { startTestServer, waitFor } from "kontroller/testing";

const claims = resourceDefinition({
  group: "",
  version: "v1",
  kind: "PersistentVolumeClaim",
  plural: "persistentvolumeclaims",
  scope: "Namespaced",
});
const volumes = resourceDefinition({
  group: "",
  version: "v1",
  kind: "PersistentVolume",
  plural: "persistentvolumes",
  scope: "Cluster",
});

const claim = (namespace: string, name: string) => ({
  metadata: { name, namespace },
  spec: { accessModes: ["ReadWriteOnce"], resources: { requests: { storage: "1Gi" } } },
});
const podUsing = (namespace: string, name: string, claimName: string) => ({
  metadata: { name, namespace },
  spec: {
    containers: [{ name: "c", image: "busybox" }],
    volumes: [{ name: "data", persistentVolumeClaim: { claimName } }],
  },
});

describe("volume protection", () => {
  it("keeps a deleted claim while a pod uses it, and lets it go once none does", async () => {
    await using s = await startTestServer();
    await using client = createClient({ url: s.url });
    await client.resource(namespaces).create({ metadata: { name: "vp-claims" } });
    const pvcs = client.resource(claims).inNamespace("vp-claims");
    const created = await pvcs.create(claim("vp-claims", "data"));
    assert.deepEqual(created.metadata?.finalizers, ["kubernetes.io/pvc-protection"]);
    await client
      .resource(pods)
      .inNamespace("vp-claims")
      .create(podUsing("vp-claims", "app", "data"));
    await pvcs.delete("data");
    const held = await pvcs.get("data");
    assert.ok(held.metadata?.deletionTimestamp, "marked for deletion");
    assert.deepEqual(held.metadata?.finalizers, ["kubernetes.io/pvc-protection"]);
    await client.resource(pods).inNamespace("vp-claims").delete("app");
    await waitFor(pvcs, "data", (c) => c === undefined);
  });

  it("lets a namespace holding a claim and its pod be deleted", async () => {
    await using s = await startTestServer();
    await using client = createClient({ url: s.url });
    await client.resource(namespaces).create({ metadata: { name: "vp-ns" } });
    await client.resource(claims).inNamespace("vp-ns").create(claim("vp-ns", "data"));
    await client
      .resource(pods)
      .inNamespace("vp-ns")
      .create(podUsing("vp-ns", "app", "data"));
    await client.resource(namespaces).delete("vp-ns");
    await waitFor(client.resource(namespaces), "vp-ns", (ns) => ns === undefined);
  });

  it("lets a deleted volume go, as it is not Bound", async () => {
    await using s = await startTestServer();
    await using client = createClient({ url: s.url });
    const pvs = client.resource(volumes);
    const volume = {
      metadata: { name: "vp-volume" },
      spec: {
        capacity: { storage: "1Gi" },
        accessModes: ["ReadWriteOnce"],
        hostPath: { path: "/tmp/vp" },
      },
    };
    const created = await pvs.create(volume);
    assert.deepEqual(created.metadata?.finalizers, ["kubernetes.io/pv-protection"]);
    await pvs.delete("vp-volume");
    await waitFor(pvs, "vp-volume", (v) => v === undefined);
  });
});
