/**
 * The fault proxy's two ways to stop: close() lifts its faults and lets what is in flight finish,
 * destroy() resets every connection.
 */
import assert from "node:assert/strict";
import { request } from "node:http";
import { describe, it } from "node:test";
import { FakeClock, startFaultProxy, startTestServer } from "kontroller/testing";

/** GETs a path; resolves with the status code, or the error of a reset connection. */
function get(url: string): Promise<number | Error> {
  return new Promise((resolve) => {
    const req = request(url, (res) => {
      res.resume();
      res.on("end", () => resolve(res.statusCode ?? 0));
      res.on("error", resolve);
    });
    req.on("error", resolve);
    req.end();
  });
}

describe("FaultProxy shutdown", () => {
  it("close() sends a delayed request on at once, answers it, ends open watches, then stops", async () => {
    await using server = await startTestServer({ controllers: false });
    const clock = new FakeClock();
    const proxy = await startFaultProxy({ target: server.url, clock });
    const watch = await fetch(`${proxy.url}/api/v1/namespaces?watch=1`);
    const watchEnded = watch.text();
    proxy.delayRequests({ ms: 60_000, match: (r) => !r.watch });
    const delayed = get(`${proxy.url}/api/v1/namespaces`);
    while (proxy.requests.length < 2) await new Promise((resolve) => setImmediate(resolve));
    await proxy.close();
    assert.equal(await delayed, 200, "the delayed request was forwarded and answered");
    await watchEnded;
    assert.equal(proxy.openWatches, 0);
    assert.ok((await get(`${proxy.url}/api/v1/namespaces`)) instanceof Error, "nothing listens");
  });

  it("destroy() resets a request in flight", async () => {
    await using server = await startTestServer({ controllers: false });
    const clock = new FakeClock();
    const proxy = await startFaultProxy({ target: server.url, clock });
    proxy.delayRequests({ ms: 60_000 });
    const delayed = get(`${proxy.url}/api/v1/namespaces`);
    while (proxy.requests.length < 1) await new Promise((resolve) => setImmediate(resolve));
    await proxy.destroy();
    assert.ok((await delayed) instanceof Error, "the request's connection was reset");
  });
});
