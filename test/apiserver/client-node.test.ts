import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { CoreV1Api, KubeConfig, ListWatch, type V1ConfigMap, Watch } from "@kubernetes/client-node";
import { startTestServer, type TestServer } from "kontroller/testing";

/** @kubernetes/client-node, the peer client, against the embedded server (with its control plane). */
describe("@kubernetes/client-node against the embedded API server", () => {
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

  it("keeps an informer in sync, across a watch cut by the server", async () => {
    const informer = new ListWatch<V1ConfigMap>(
      "/api/v1/namespaces/default/configmaps",
      new Watch(kc),
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
    await addedP("a");
    await core.createNamespacedConfigMap({
      namespace: "default",
      body: { metadata: { name: "before-cut" } },
    });
    await addedP("before-cut");
    s.server.cutWatches();
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
    await informer.stop();
  });
});
