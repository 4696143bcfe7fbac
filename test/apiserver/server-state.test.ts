import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { startTestServer } from "kontroller/testing";
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
    await using a = await startTestServer({ controllers: false });
    await using b = await startTestServer({ controllers: false });
    const ipOf = async (url: string, name: string) => {
      const r = await call(url, "POST", SERVICES, service(name));
      assert.equal(r.status, 201, JSON.stringify(r.body));
      return r.body.spec.clusterIP as string;
    };
    assert.equal(await ipOf(a.url, "one"), "10.96.0.1");
    assert.equal(await ipOf(b.url, "one"), "10.96.0.1");
    assert.equal(await ipOf(a.url, "two"), "10.96.0.2");
    assert.equal(await ipOf(b.url, "two"), "10.96.0.2");
  });
});
