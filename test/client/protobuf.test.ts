/**
 * The client with `contentType: "protobuf"` (run on both backends): built-in kinds are read,
 * listed, watched, created and updated in Kubernetes protobuf and come out as the JSON client's
 * objects; errors keep their Status; custom resources stay JSON.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { createClient } from "kontroller/client";
import { isAlreadyExists, isNotFound } from "kontroller/core";
import { type ConfigMap, configMaps, pods } from "kontroller/resources";
import { startTestServer, type TestServer } from "kontroller/testing";

const NS = "pbclient";
let s: TestServer;

before(async () => {
  s = await startTestServer({ controllers: false });
  await using json = createClient({ url: s.url });
  await json.resource("Namespace").create({ metadata: { name: NS } });
});
after(() => s?.close());

describe('createClient({ contentType: "protobuf" })', () => {
  it("creates, reads, lists and updates built-in objects, equal to what the JSON client reads", async () => {
    await using pb = createClient({ url: s.url, contentType: "protobuf" });
    await using json = createClient({ url: s.url });
    const cms = pb.resource(configMaps, { namespace: NS });
    const created = await cms.create({
      metadata: { name: "a", labels: { app: "pb" } },
      data: { k: "v", empty: "" },
      binaryData: { bin: "AAEC" },
      immutable: false,
    });
    assert.equal(created.kind, "ConfigMap");
    assert.deepEqual(created.data, { k: "v", empty: "" });
    assert.equal(created.immutable, false);
    const viaJson = await json.resource(configMaps, { namespace: NS }).get("a");
    assert.deepEqual(await cms.get("a"), viaJson);
    for (let i = 0; i < 5; i++) await cms.create({ metadata: { name: `b${i}` } });
    const page = await cms.list({ limit: 2 });
    assert.deepEqual(
      page.items.map((o) => [o.kind, o.apiVersion, o.metadata?.name]),
      [
        ["ConfigMap", "v1", "a"],
        ["ConfigMap", "v1", "b0"],
      ],
    );
    assert.equal(page.remainingItemCount, 4);
    const all = await cms.listAll({ pageSize: 2 });
    assert.equal(all.items.length, 6);
    assert.deepEqual(
      all.items[0],
      (await json.resource(configMaps, { namespace: NS }).list()).items[0],
    );
    const updated = await cms.update({ ...viaJson, data: { k: "w" } } as ConfigMap);
    assert.deepEqual(updated.data, { k: "w" });
  });

  it("reads an error's Status from protobuf", async () => {
    await using pb = createClient({ url: s.url, contentType: "protobuf" });
    const cms = pb.resource(configMaps, { namespace: NS });
    await assert.rejects(cms.get("missing"), (err) => isNotFound(err));
    await cms.create({ metadata: { name: "dup" } });
    await assert.rejects(cms.create({ metadata: { name: "dup" } }), (err) => isAlreadyExists(err));
  });

  it("watches in protobuf frames", async () => {
    await using pb = createClient({ url: s.url, contentType: "protobuf" });
    const podClient = pb.resource(pods, { namespace: NS });
    const first = await podClient.create({
      metadata: { name: "p0" },
      spec: { containers: [{ name: "c", image: "busybox" }] },
    });
    const ac = new AbortController();
    const events = await podClient.openWatch({
      resourceVersion: first.metadata?.resourceVersion,
      signal: ac.signal,
    });
    await podClient.create({
      metadata: { name: "p1" },
      spec: { containers: [{ name: "c", image: "busybox", ports: [{ containerPort: 80 }] }] },
    });
    const { value } = await events.next();
    ac.abort();
    const event = value?.[0];
    assert.equal(event?.type, "ADDED");
    assert.equal(event?.object.kind, "Pod");
    assert.equal(event?.object.metadata?.name, "p1");
    assert.equal(event?.object.spec?.containers[0]?.ports?.[0]?.protocol, "TCP");
  });
});
