/**
 * The caching of /openapi/v3 that kubectl's HTTP cache (~/.kube/cache/http) relies on, as
 * kube-openapi serves it: a document asked for by its current hash is immutable, an old hash
 * redirects to the current one, ETags revalidate (304), and a document's hash changes when, and
 * only when, what it describes changes.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { startTestServer, type TestServer } from "kontroller/testing";
import { call, cond, crdUntil, watch } from "./helpers.ts";

const CRDS = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions";

function crd(group: string, sizeType: string) {
  return {
    apiVersion: "apiextensions.k8s.io/v1",
    kind: "CustomResourceDefinition",
    metadata: { name: `gizmos.${group}` },
    spec: {
      group,
      scope: "Namespaced",
      names: { plural: "gizmos", singular: "gizmo", kind: "Gizmo" },
      versions: [
        {
          name: "v1",
          served: true,
          storage: true,
          schema: {
            openAPIV3Schema: {
              type: "object",
              properties: { spec: { type: "object", properties: { size: { type: sizeType } } } },
            },
          },
        },
      ],
    },
  };
}

describe("/openapi/v3 caching", () => {
  let s: TestServer;
  const urls = async () => (await call(s.url, "GET", "/openapi/v3")).body.paths;

  before(async () => {
    s = await startTestServer();
  });
  after(() => s.close());

  it("serves a document asked for by its hash as immutable, with the hash as its ETag", async () => {
    const url: string = (await urls())["api/v1"].serverRelativeURL;
    const hash = url.slice(url.indexOf("hash=") + 5);
    const r = await call(s.url, "GET", url);
    assert.equal(r.status, 200);
    assert.equal(r.headers.get("content-type"), "application/json");
    assert.equal(r.headers.get("etag"), `"${hash}"`);
    assert.equal(r.headers.get("cache-control"), "public, immutable");
    const expires = Date.parse(r.headers.get("expires") ?? "");
    assert.ok(expires > Date.now() + 300 * 24 * 3600 * 1000, "expires about a year on");
    assert.ok(r.body.components.schemas["io.k8s.api.core.v1.Pod"]);
    // Without the hash: the same bytes, to be revalidated (no immutable caching).
    const plain = await call(s.url, "GET", "/openapi/v3/api/v1");
    assert.equal(plain.headers.get("etag"), `"${hash}"`);
    assert.equal(plain.headers.get("cache-control"), null);
    assert.deepEqual(plain.body, r.body);
  });

  it("answers 304 with no body when If-None-Match has the current ETag", async () => {
    const url: string = (await urls())["apis/apps/v1"].serverRelativeURL;
    const etag = (await call(s.url, "GET", url)).headers.get("etag")!;
    for (const header of [etag, `W/${etag}`, `"other", ${etag}`, "*"]) {
      const r = await fetch(s.url + url, { headers: { "if-none-match": header } });
      assert.equal(r.status, 304, header);
      assert.equal(await r.text(), "");
    }
    const stale = await fetch(s.url + url, { headers: { "if-none-match": '"other"' } });
    assert.equal(stale.status, 200);
    // The index revalidates the same way.
    const index = await fetch(`${s.url}/openapi/v3`);
    const indexTag = index.headers.get("etag")!;
    assert.match(indexTag, /^"[0-9A-F]{128}"$/);
    const again = await fetch(`${s.url}/openapi/v3`, { headers: { "if-none-match": indexTag } });
    assert.equal(again.status, 304);
  });

  it("redirects an old hash to the current document (301), which is never cached", async () => {
    const r = await fetch(`${s.url}/openapi/v3/api/v1?hash=0123`, { redirect: "manual" });
    assert.equal(r.status, 301);
    assert.equal(r.headers.get("location"), (await urls())["api/v1"].serverRelativeURL);
    assert.equal(r.headers.get("cache-control"), "no-cache, no-store");
    const missing = await call(s.url, "GET", "/openapi/v3/apis/nothing.example.com/v1");
    assert.equal(missing.status, 404);
  });

  it("changes a group-version's hash when its CRD's schema changes, and no other", async () => {
    const group = "cache.example.com";
    assert.equal((await call(s.url, "POST", CRDS, crd(group, "integer"))).status, 201);
    await crdUntil(s.url, `gizmos.${group}`, (o) => cond(o, "Established")?.status === "True");
    const before = await urls();
    const gv = `apis/${group}/v1`;
    assert.ok(before[gv], "the CRD's group-version is listed");
    // Asking again changes nothing: the documents are cached, not rebuilt with other bytes.
    assert.deepEqual(await urls(), before);

    // A new storage schema gets a new watch cache: the end of a watch on the old one says
    // the new version is served (a signal, not a sleep).
    const gizmos = `/apis/${group}/v1/namespaces/default/gizmos`;
    const served = await watch(s.url, `${gizmos}?watch=1`);
    const current = (await call(s.url, "GET", `${CRDS}/gizmos.${group}`)).body;
    current.spec.versions[0].schema.openAPIV3Schema.properties.spec.properties.size.type = "string";
    assert.equal((await call(s.url, "PUT", `${CRDS}/gizmos.${group}`, current)).status, 200);
    await served.ended();
    const after = await urls();
    assert.notEqual(after[gv].serverRelativeURL, before[gv].serverRelativeURL);
    for (const other of Object.keys(before).filter((k) => k !== gv)) {
      assert.equal(after[other].serverRelativeURL, before[other].serverRelativeURL, other);
    }
    const doc = (await call(s.url, "GET", after[gv].serverRelativeURL)).body;
    const size =
      doc.components.schemas["com.example.cache.v1.Gizmo"].properties.spec.properties.size;
    assert.equal(size.type, "string");
    const old = await fetch(s.url + before[gv].serverRelativeURL, { redirect: "manual" });
    assert.equal(old.status, 301);
    assert.equal(old.headers.get("location"), after[gv].serverRelativeURL);

    const last = await watch(s.url, `${gizmos}?watch=1`);
    assert.equal((await call(s.url, "DELETE", `${CRDS}/gizmos.${group}`)).status, 200);
    await last.ended();
    assert.equal((await urls())[gv], undefined, "a removed group-version leaves the index");
  });
});
