/**
 * Volumes and storage classes read back as kube-apiserver 1.36 returns them: defaulted, created
 * Pending, protected by their finalizers, answered with the object when deleted. The
 * expectations are kube's answers to these requests; runs on both backends.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { startTestServer, type TestServer } from "kontroller/testing";
import { call } from "./helpers.ts";
import { checkKind, type KindCase, kindCases } from "./kind-defaults-rig.ts";

const STORAGE = "/apis/storage.k8s.io/v1";
const apiVersion = "storage.k8s.io/v1";
const claimSpec = { accessModes: ["ReadWriteOnce"], resources: { requests: { storage: "1Gi" } } };
const volumeSpec = { capacity: { storage: "1Gi" }, accessModes: ["ReadWriteOnce"] };

const volume: KindCase = {
  path: "/api/v1/persistentvolumes",
  apiVersion: "v1",
  kind: "PersistentVolume",
  body: { spec: { ...volumeSpec, hostPath: { path: "/tmp/v" } }, status: { phase: "Bound" } },
  want: {
    spec: {
      ...volumeSpec,
      hostPath: { path: "/tmp/v", type: "" },
      persistentVolumeReclaimPolicy: "Retain",
      volumeMode: "Filesystem",
    },
    metadata: { finalizers: ["kubernetes.io/pv-protection"] },
  },
  owns: [
    "f:spec.f:persistentVolumeReclaimPolicy",
    "f:spec.f:volumeMode",
    "f:spec.f:hostPath.f:type",
  ],
};

const claim: KindCase = {
  path: "/api/v1/namespaces/default/persistentvolumeclaims",
  apiVersion: "v1",
  kind: "PersistentVolumeClaim",
  body: { spec: claimSpec, status: { phase: "Bound" } },
  want: {
    spec: { ...claimSpec, volumeMode: "Filesystem" },
    status: { phase: "Pending" },
    metadata: { finalizers: ["kubernetes.io/pvc-protection"] },
  },
  owns: ["f:spec.f:volumeMode"],
};

const CASES: KindCase[] = [
  claim,
  {
    path: `${STORAGE}/storageclasses`,
    apiVersion,
    kind: "StorageClass",
    body: { provisioner: "d.example.com/disk" },
    want: {
      provisioner: "d.example.com/disk",
      reclaimPolicy: "Delete",
      volumeBindingMode: "Immediate",
    },
    owns: ["f:reclaimPolicy", "f:volumeBindingMode"],
  },
  {
    path: `${STORAGE}/csidrivers`,
    apiVersion,
    kind: "CSIDriver",
    body: { spec: {} },
    want: {
      spec: {
        attachRequired: true,
        podInfoOnMount: false,
        volumeLifecycleModes: ["Persistent"],
        storageCapacity: false,
        fsGroupPolicy: "ReadWriteOnceWithFSType",
        requiresRepublish: false,
        seLinuxMount: false,
      },
    },
    owns: ["f:spec.f:attachRequired", "f:spec.f:seLinuxMount"],
  },
  {
    path: `${STORAGE}/csinodes`,
    apiVersion,
    kind: "CSINode",
    body: { spec: { drivers: [{ name: "d.example.com", nodeID: "n1" }] } },
    want: { spec: { drivers: [{ name: "d.example.com", nodeID: "n1", topologyKeys: null }] } },
    owns: ['f:spec.f:drivers.k:{"name":"d.example.com"}.f:topologyKeys'],
  },
  {
    path: `${STORAGE}/volumeattachments`,
    apiVersion,
    kind: "VolumeAttachment",
    body: {
      spec: { attacher: "d.example.com", nodeName: "n", source: { persistentVolumeName: "v" } },
      status: { attached: true },
    },
    want: {
      spec: { attacher: "d.example.com", nodeName: "n", source: { persistentVolumeName: "v" } },
      status: { attached: false },
    },
  },
  {
    path: `${STORAGE}/volumeattributesclasses`,
    apiVersion,
    kind: "VolumeAttributesClass",
    body: { driverName: "d.example.com", parameters: { tier: "gold" } },
    want: {
      driverName: "d.example.com",
      parameters: { tier: "gold" },
      metadata: { finalizers: ["kubernetes.io/vac-protection"] },
    },
  },
];

describe("volumes and storage classes read back as kube-apiserver returns them", () => {
  let s: TestServer;
  before(async () => {
    s = await startTestServer({ controllers: false });
  });
  after(() => s.close());
  kindCases(() => s, CASES);

  it("creates a PersistentVolume Pending since its creation, whatever status it was sent", async () => {
    const pv = await checkKind(s, volume);
    assert.equal(pv.status.phase, "Pending");
    assert.equal(pv.status.lastPhaseTransitionTime, pv.metadata.creationTimestamp);
  });

  it("answers a DELETE with the object, which its protection finalizer keeps", async () => {
    await checkKind(s, claim, "held");
    const path = `${claim.path}/held`;
    const deleted = await call(s.url, "DELETE", path);
    assert.equal(deleted.status, 200);
    assert.equal(deleted.body.kind, "PersistentVolumeClaim");
    assert.ok(deleted.body.metadata.deletionTimestamp);
    assert.deepEqual(deleted.body.metadata.finalizers, ["kubernetes.io/pvc-protection"]);
    const released = await call(
      s.url,
      "PATCH",
      path,
      { metadata: { finalizers: null } },
      {
        "content-type": "application/merge-patch+json",
      },
    );
    assert.equal(released.status, 200);
    assert.equal((await call(s.url, "GET", path)).status, 404);

    const gone = await call(s.url, "DELETE", `${STORAGE}/storageclasses/k`);
    assert.equal(gone.status, 200);
    assert.equal(gone.body.kind, "StorageClass");
    assert.equal(gone.body.reclaimPolicy, "Delete");
  });

  it("refuses a VolumeAttributesClass without parameters, and a change to them", async () => {
    const path = `${STORAGE}/volumeattributesclasses`;
    const body = { apiVersion, kind: "VolumeAttributesClass", driverName: "d.example.com" };
    const empty = await call(s.url, "POST", path, { ...body, metadata: { name: "empty" } });
    assert.equal(empty.status, 422);
    assert.deepEqual(empty.body.details.causes, [
      {
        reason: "FieldValueRequired",
        message: "Required value: must contain at least one key/value pair",
        field: "parameters",
      },
    ]);
    const changed = await call(
      s.url,
      "PATCH",
      `${path}/k`,
      { parameters: { tier: "silver" } },
      {
        "content-type": "application/merge-patch+json",
      },
    );
    assert.equal(changed.status, 422);
    assert.deepEqual(
      changed.body.details.causes.map((c: { field: string }) => c.field),
      ["parameters"],
    );
  });
});
