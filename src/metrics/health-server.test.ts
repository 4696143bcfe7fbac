import assert from "node:assert/strict";
import { request } from "node:http";
import { describe, it } from "node:test";
import { HealthServer } from "./health-server.ts";

/** A /metrics whose exposition waits at a gate, so that a scrape can be held in flight. */
function heldMetrics() {
  let open: () => void = () => {};
  const gate = new Promise<void>((resolve) => {
    open = resolve;
  });
  let reached: () => void = () => {};
  const waiting = new Promise<void>((resolve) => {
    reached = resolve;
  });
  const metrics = {
    async expose() {
      reached();
      await gate;
      return { contentType: "text/plain; version=0.0.4", body: "up 1\n" };
    },
  };
  return { metrics, waiting, open };
}

/** GETs a path; resolves with the status code, or the error of a cut connection. */
function scrape(url: string): Promise<number | Error> {
  return new Promise((resolve) => {
    const req = request(`${url}/metrics`, (res) => {
      res.resume();
      res.on("end", () => resolve(res.statusCode ?? 0));
      res.on("error", resolve);
    });
    req.on("error", resolve);
    req.end();
  });
}

describe("HealthServer shutdown", () => {
  it("close() answers a scrape in flight before it resolves", async () => {
    const { metrics, waiting, open } = heldMetrics();
    const server = new HealthServer({ port: 0, host: "127.0.0.1", metrics });
    const url = await server.listen();
    const scraped = scrape(url);
    await waiting;
    let closed = false;
    const closing = server.close().then(() => {
      closed = true;
    });
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(closed, false, "close() waits for the scrape in flight");
    open();
    assert.equal(await scraped, 200);
    await closing;
  });

  it("destroy() cuts a scrape in flight", async () => {
    const { metrics, waiting, open } = heldMetrics();
    const server = new HealthServer({ port: 0, host: "127.0.0.1", metrics });
    const url = await server.listen();
    const scraped = scrape(url);
    await waiting;
    await server.destroy();
    assert.ok((await scraped) instanceof Error, "the scrape's connection was cut");
    open();
    await server.destroy();
  });
});
