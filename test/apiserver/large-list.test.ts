/**
 * Lists large enough to be streamed in chunks, over HTTP: the body is the same JSON the server
 * sent whole before (items in order, nothing added), without a Content-Length.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { startTestServer, type TestServer } from "kontroller/testing";
import { call, configMap } from "./helpers.ts";

const cms = "/api/v1/namespaces/default/configmaps";
const COUNT = 400;
const name = (i: number) => `big-${String(i).padStart(4, "0")}`;

async function get(url: string, path: string, headers: Record<string, string> = {}) {
  const res = await fetch(url + path, { headers });
  return { res, text: await res.text() };
}

describe("API server over HTTP: large lists", () => {
  let s: TestServer;
  before(async () => {
    s = await startTestServer({ controllers: false });
    // About 1.7 MB of ConfigMaps (some data outside ASCII), several chunks.
    const data = { k: `${"é".repeat(1000)}${"x".repeat(2000)}` };
    let next = 0;
    await Promise.all(
      Array.from({ length: 16 }, async () => {
        for (let i = next++; i < COUNT; i = next++)
          assert.equal((await call(s.url, "POST", cms, configMap(name(i), { data }))).status, 201);
      }),
    );
    await call(s.url, "POST", "/api/v1/namespaces/kube-public/configmaps", configMap("small"));
  });
  after(() => s.close());

  it("streams a large list: chunked, items in order, byte for byte the list's JSON", async () => {
    const { res, text } = await get(s.url, cms);
    assert.equal(res.status, 200);
    assert.equal(res.headers.get("content-type"), "application/json");
    assert.equal(res.headers.get("content-length"), null);
    assert.equal(res.headers.get("transfer-encoding"), "chunked");
    const list = JSON.parse(text);
    assert.equal(JSON.stringify(list), text, "nothing but the list's JSON, as one string had it");
    assert.deepEqual(Object.keys(list), ["kind", "apiVersion", "metadata", "items"]);
    assert.equal(list.kind, "ConfigMapList");
    assert.deepEqual(
      list.items.map((i: { metadata: { name: string } }) => i.metadata.name),
      Array.from({ length: COUNT }, (_, i) => name(i)),
    );
    assert.ok(list.items.every((i: { data: { k: string } }) => i.data.k.startsWith("éé")));
    // The same bytes whatever the read: from the cache (rv 0) and across namespaces.
    assert.equal((await get(s.url, `${cms}?resourceVersion=0`)).text.length, text.length);
    const everywhere = JSON.parse((await get(s.url, "/api/v1/configmaps")).text);
    assert.equal(everywhere.items.length, COUNT + 1);
  });

  it("sends a small list whole, with its Content-Length", async () => {
    const { res, text } = await get(s.url, "/api/v1/namespaces/kube-public/configmaps");
    assert.equal(res.headers.get("content-length"), String(Buffer.byteLength(text)));
    const list = JSON.parse(text);
    assert.equal(JSON.stringify(list), text);
    assert.deepEqual(
      list.items.map((i: { metadata: { name: string } }) => i.metadata.name),
      ["small"],
    );
  });

  it("streams a large page from storage the same way", async () => {
    const { res, text } = await get(s.url, `${cms}?limit=${COUNT - 1}`);
    assert.equal(res.headers.get("content-length"), null);
    const page = JSON.parse(text);
    assert.equal(JSON.stringify(page), text);
    assert.equal(page.items.length, COUNT - 1);
    assert.equal(page.metadata.remainingItemCount, 1);
    const rest = JSON.parse(
      (await get(s.url, `${cms}?limit=10&continue=${page.metadata.continue}`)).text,
    );
    assert.deepEqual(
      rest.items.map((i: { metadata: { name: string } }) => i.metadata.name),
      [name(COUNT - 1)],
    );
  });

  it("still answers Tables and metadata lists of a large list whole", async () => {
    const table = await get(s.url, cms, { accept: "application/json;as=Table;v=v1;g=meta.k8s.io" });
    assert.equal(table.res.headers.get("content-length"), String(Buffer.byteLength(table.text)));
    assert.equal(JSON.parse(table.text).rows.length, COUNT);
    const meta = await get(s.url, cms, {
      accept: "application/json;as=PartialObjectMetadataList;v=v1;g=meta.k8s.io",
    });
    assert.equal(JSON.parse(meta.text).items.length, COUNT);
  });
});
