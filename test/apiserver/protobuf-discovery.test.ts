/**
 * Discovery in Kubernetes protobuf (run on both backends): the legacy documents (/api, /apis, a
 * group's, a group version's) for a client that asks for protobuf, and aggregated discovery v2 —
 * each decoding to the very document the JSON answer holds.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { decodeObject } from "kontroller/resources";
import { startTestServer, type TestServer } from "kontroller/testing";

const PB = "application/vnd.kubernetes.protobuf";
const AGGREGATED = "g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList";

let s: TestServer;

before(async () => {
  s = await startTestServer({ controllers: false });
});

after(() => s.close());

async function get(path: string, accept: string): Promise<{ type: string; bytes: Buffer }> {
  const res = await fetch(s.url + path, { headers: { accept } });
  assert.equal(res.status, 200, path);
  return {
    type: res.headers.get("content-type") ?? "",
    bytes: Buffer.from(await res.arrayBuffer()),
  };
}

/** The ServerAddressByClientCIDRs of /api name the address the request came to: left out. */
function comparable(doc: Record<string, unknown>): Record<string, unknown> {
  const { serverAddressByClientCIDRs: _, ...rest } = doc;
  return rest;
}

describe("discovery in protobuf", () => {
  for (const path of ["/api", "/apis", "/api/v1", "/apis/apps", "/apis/apps/v1"]) {
    it(`answers ${path} in protobuf, the JSON answer's document`, async () => {
      const pb = await get(path, `${PB}, application/json`);
      assert.equal(pb.type, PB);
      const json = JSON.parse((await get(path, "application/json")).bytes.toString("utf8"));
      assert.deepEqual(comparable(decodeObject(pb.bytes)), comparable(json));
    });
  }

  for (const path of ["/api", "/apis"]) {
    it(`answers ${path} as aggregated discovery v2 in protobuf`, async () => {
      const pb = await get(path, `${PB};${AGGREGATED},application/json`);
      assert.equal(pb.type, `${PB};${AGGREGATED}`);
      const json = await get(path, `application/json;${AGGREGATED}`);
      assert.deepEqual(decodeObject(pb.bytes), JSON.parse(json.bytes.toString("utf8")));
    });
  }

  it("answers v2beta1 asked in protobuf with the next range it can serve: plain JSON", async () => {
    const r = await get(
      "/apis",
      `${PB};g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList,application/json`,
    );
    assert.equal(r.type, "application/json");
    assert.equal(JSON.parse(r.bytes.toString("utf8")).kind, "APIGroupList");
  });
});
