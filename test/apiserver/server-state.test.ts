import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { ApiServer } from "kontroller/apiserver";
import { call } from "./helpers.ts";

const SERVICES = "/api/v1/namespaces/default/services";

const service = (name: string) => ({
  apiVersion: "v1",
  kind: "Service",
  metadata: { name },
  spec: { ports: [{ port: 80 }] },
});

describe("API server state is owned by each server", () => {
  it("two servers in one process hand out cluster IPs independently", async () => {
    await using a = new ApiServer();
    await using b = new ApiServer();
    const urls = { a: await a.listen(), b: await b.listen() };
    const ipOf = async (url: string, name: string) => {
      const r = await call(url, "POST", SERVICES, service(name));
      assert.equal(r.status, 201, JSON.stringify(r.body));
      return r.body.spec.clusterIP as string;
    };
    assert.equal(await ipOf(urls.a, "one"), "10.96.0.1");
    assert.equal(await ipOf(urls.b, "one"), "10.96.0.1");
    assert.equal(await ipOf(urls.a, "two"), "10.96.0.2");
    assert.equal(await ipOf(urls.b, "two"), "10.96.0.2");
  });
});
