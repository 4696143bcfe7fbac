import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import {
  CoreV1Api,
  KubeConfig,
  type KubernetesObject,
  KubernetesObjectApi,
  ListWatch,
  PatchStrategy,
  type V1ConfigMap,
  Watch,
} from "@kubernetes/client-node";
import { startFaultProxy, startTestServer, type TestServer } from "kontroller/testing";
import { watch } from "./helpers.ts";

/** @kubernetes/client-node, the peer client, against the test server (with its control plane). */
describe("@kubernetes/client-node against the test server", () => {
  let s: TestServer;
  let kc: KubeConfig;
  let core: CoreV1Api;
  before(async () => {
    s = await startTestServer();
    kc = new KubeConfig();
    kc.loadFromString(s.kubeconfig);
    core = kc.makeApiClient(CoreV1Api);
  });
  after(() => s.close());

  it("creates, reads and lists", async () => {
    await core.createNamespacedConfigMap({
      namespace: "default",
      body: { metadata: { name: "a" }, data: { x: "1" } },
    });
    const got = await core.readNamespacedConfigMap({ namespace: "default", name: "a" });
    assert.equal(got.data?.x, "1");
    const list = await core.listNamespacedConfigMap({ namespace: "default" });
    assert.deepEqual(
      list.items.map((i) => i.metadata?.name),
      ["a"],
    );
    assert.ok(list.metadata?.resourceVersion);
    await assert.rejects(
      core.readNamespacedConfigMap({ namespace: "default", name: "nope" }),
      (err: { code?: number }) => err.code === 404,
    );
  });

  it("watches from a list's resourceVersion", async () => {
    const rv = (await core.listNamespacedConfigMap({ namespace: "default" })).metadata
      ?.resourceVersion;
    const events: string[] = [];
    let resolve: () => void = () => {};
    const two = new Promise<void>((r) => {
      resolve = r;
    });
    const ctl = await new Watch(kc).watch(
      "/api/v1/namespaces/default/configmaps",
      { resourceVersion: rv },
      (type, obj: V1ConfigMap) => {
        events.push(`${type} ${obj.metadata?.name}`);
        if (events.length === 2) resolve();
      },
      () => {},
    );
    await core.createNamespacedConfigMap({
      namespace: "default",
      body: { metadata: { name: "b" } },
    });
    await core.deleteNamespacedConfigMap({ namespace: "default", name: "b" });
    await two;
    ctl.abort();
    assert.deepEqual(events, ["ADDED b", "DELETED b"]);
  });

  it("creates, reads, patches and deletes a custom resource through KubernetesObjectApi", async () => {
    // KubernetesObjectApi finds the resource by kind in GET /apis/{group}/{version}.
    const objects = KubernetesObjectApi.makeApiClient(kc);
    await objects.create({
      apiVersion: "apiextensions.k8s.io/v1",
      kind: "CustomResourceDefinition",
      metadata: { name: "gizmos.js.example.com" },
      spec: {
        group: "js.example.com",
        scope: "Namespaced",
        names: { plural: "gizmos", kind: "Gizmo" },
        versions: [
          {
            name: "v1",
            served: true,
            storage: true,
            // client-node serializes a CRD through its typed model, whose property names differ
            // from the wire's: this one goes out as x-kubernetes-preserve-unknown-fields.
            schema: {
              openAPIV3Schema: { type: "object", x_kubernetes_preserve_unknown_fields: true },
            },
          },
        ],
      },
    } as KubernetesObject);
    const w = await watch(
      s.url,
      "/apis/apiextensions.k8s.io/v1/customresourcedefinitions?watch=1&fieldSelector=metadata.name%3Dgizmos.js.example.com",
    );
    for (;;) {
      const e = await w.next();
      assert.ok(e !== undefined, "the CRD watch ended");
      const established = e.object.status?.conditions?.some(
        (c: { type: string; status: string }) => c.type === "Established" && c.status === "True",
      );
      if (established) break;
    }
    w.close();
    type Gizmo = KubernetesObject & { spec?: { size?: number } };
    const created = await objects.create<Gizmo>({
      apiVersion: "js.example.com/v1",
      kind: "Gizmo",
      metadata: { name: "g1" },
      spec: { size: 1 },
    });
    assert.equal(created.metadata?.namespace, "default", "the client's default namespace");
    const read = await objects.read<Gizmo>({
      apiVersion: "js.example.com/v1",
      kind: "Gizmo",
      metadata: { name: "g1", namespace: "default" },
    });
    assert.equal(read.spec?.size, 1);
    const patched = await objects.patch<Gizmo>(
      {
        apiVersion: "js.example.com/v1",
        kind: "Gizmo",
        metadata: { name: "g1", namespace: "default" },
        spec: { size: 2 },
      },
      undefined,
      undefined,
      undefined,
      undefined,
      PatchStrategy.MergePatch,
    );
    assert.equal(patched.spec?.size, 2);
    await assert.rejects(
      objects.patch({
        apiVersion: "js.example.com/v1",
        kind: "Gizmo",
        metadata: { name: "g1", namespace: "default" },
      }),
      (err: { code?: number }) => err.code === 415,
      "its default, strategic merge patch, is refused for custom resources as kube does",
    );
    await objects.delete({
      apiVersion: "js.example.com/v1",
      kind: "Gizmo",
      metadata: { name: "g1", namespace: "default" },
    });
    await assert.rejects(
      objects.read({
        apiVersion: "js.example.com/v1",
        kind: "Gizmo",
        metadata: { name: "g1", namespace: "default" },
      }),
      (err: { code?: number }) => err.code === 404,
    );
  });

  it("applies server-side through KubernetesObjectApi.patch (ServerSideApply): creates, conflicts, forces", async () => {
    const objects = KubernetesObjectApi.makeApiClient(kc);
    const cm = (manager: string, data: Record<string, string>, force = false) =>
      objects.patch(
        {
          apiVersion: "v1",
          kind: "ConfigMap",
          metadata: { name: "ssa", namespace: "default" },
          data,
        },
        undefined,
        undefined,
        manager,
        force,
        PatchStrategy.ServerSideApply,
      ) as Promise<V1ConfigMap>;
    const created = await cm("js-app", { a: "1" });
    assert.deepEqual(created.data, { a: "1" });
    assert.equal(created.metadata?.managedFields?.[0]?.manager, "js-app");
    assert.equal(created.metadata?.managedFields?.[0]?.operation, "Apply");
    await assert.rejects(cm("js-other", { a: "2" }), (err: { code?: number; body?: unknown }) => {
      const body = typeof err.body === "string" ? JSON.parse(err.body) : err.body;
      return err.code === 409 && /conflict with "js-app": \.data\.a/.test(body.message);
    });
    const forced = await cm("js-other", { a: "2" }, true);
    assert.deepEqual(forced.data, { a: "2" });
    // The client reads managedFields back (time as a Date) and can send them with an update.
    const read = await core.readNamespacedConfigMap({ namespace: "default", name: "ssa" });
    assert.ok(read.metadata?.managedFields?.every((e) => e.time instanceof Date));
    const replaced = await core.replaceNamespacedConfigMap({
      namespace: "default",
      name: "ssa",
      body: { ...read, data: { ...read.data, b: "3" } },
      fieldManager: "js-editor",
    });
    assert.deepEqual(
      replaced.metadata?.managedFields?.map((e) => `${e.manager} ${e.operation}`).sort(),
      ["js-editor Update", "js-other Apply"],
      "js-app lost its only field to the forced apply, and with it its entry",
    );
    await core.deleteNamespacedConfigMap({ namespace: "default", name: "ssa" });
  });

  it("keeps an informer in sync, across a watch cut on its way from the server", async (t) => {
    // The watch is cut between the two, where a load balancer or a restart would cut it.
    await using proxy = await startFaultProxy({ target: s.url });
    const viaProxy = new KubeConfig(); // plain HTTP: client-node wants skipTLSVerify for that
    viaProxy.loadFromClusterAndUser(
      { name: "proxy", server: proxy.url, skipTLSVerify: true },
      {
        name: "anonymous",
      },
    );
    const informer = new ListWatch<V1ConfigMap>(
      "/api/v1/namespaces/default/configmaps",
      new Watch(viaProxy),
      () => core.listNamespacedConfigMap({ namespace: "default" }),
      false,
      undefined,
      undefined,
      { delayFn: async () => {} },
    );
    const added: string[] = [];
    const waiters: [string, () => void][] = [];
    informer.on("add", (o) => {
      const name = o.metadata?.name ?? "";
      added.push(name);
      for (const [n, r] of waiters) if (n === name) r();
    });
    const connects: number[] = [];
    informer.on("connect", () => connects.push(1));
    const addedP = (name: string) =>
      added.includes(name) ? Promise.resolve() : new Promise<void>((r) => waiters.push([name, r]));
    await informer.start();
    t.after(() => informer.stop());
    await addedP("a");
    await core.createNamespacedConfigMap({
      namespace: "default",
      body: { metadata: { name: "before-cut" } },
    });
    await addedP("before-cut");
    proxy.cutWatches();
    await core.createNamespacedConfigMap({
      namespace: "default",
      body: { metadata: { name: "after-cut" } },
    });
    await addedP("after-cut");
    assert.ok(connects.length >= 2, "the informer reconnected");
    assert.deepEqual(
      informer
        .list()
        .map((o) => o.metadata?.name)
        .sort(),
      ["a", "after-cut", "before-cut"],
    );
  });
});
