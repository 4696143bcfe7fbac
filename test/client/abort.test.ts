/**
 * Every ResourceClient call takes an AbortSignal: aborting rejects the call with the signal's
 * reason, whether the request is on the wire or the client is waiting to retry, and sends
 * nothing more.
 */
import assert from "node:assert/strict";
import { once } from "node:events";
import { describe, it } from "node:test";
import { createClient } from "kontroller/client";
import { type ConfigMap, configMaps } from "kontroller/resources";
import { FakeClock } from "kontroller/testing";
import { sendJson, settle, startFakeServer, status } from "./fake-server.ts";

const cm: ConfigMap = { metadata: { name: "a", namespace: "default" } };

describe("ResourceClient: abort", () => {
  it("rejects a call the server has not answered with the signal's reason, and closes its connection", async () => {
    const closed: Promise<unknown>[] = [];
    await using server = await startFakeServer((_req, _res, raw) => {
      closed.push(once(raw.socket!, "close"));
    });
    await using client = createClient({ url: server.url });
    const cms = client.resource(configMaps, { namespace: "default" });
    const calls = [
      (signal: AbortSignal) => cms.get("a", { signal }),
      (signal: AbortSignal) => cms.list({ signal }),
      (signal: AbortSignal) => cms.create(cm, { signal }),
      (signal: AbortSignal) => cms.patch("a", "merge", {}, { signal }),
      (signal: AbortSignal) => cms.delete("a", { signal }),
    ];
    for (const [i, call] of calls.entries()) {
      const ac = new AbortController();
      const reason = new Error(`stop ${i}`);
      const pending = call(ac.signal);
      await server.received(i + 1);
      ac.abort(reason);
      await assert.rejects(pending, (e: unknown) => e === reason);
      await closed[i];
    }
  });

  it("rejects a read waiting to be retried, and sends it no more", async () => {
    await using server = await startFakeServer((_req, res) =>
      sendJson(res, 503, status(503, "ServiceUnavailable", "later")),
    );
    const clock = new FakeClock();
    await using client = createClient({ url: server.url, clock });
    const ac = new AbortController();
    const reason = new Error("shutting down");
    const listed = client.resource(configMaps).list({ signal: ac.signal });
    await settle(() => clock.pendingTimers === 1);
    ac.abort(reason);
    await assert.rejects(listed, (e: unknown) => e === reason);
    assert.equal(clock.pendingTimers, 0, "the retry timer is cancelled");
    await clock.advanceAsync(60_000);
    assert.equal(server.requests.length, 1);
  });

  it("sends nothing when the signal has already aborted", async () => {
    await using server = await startFakeServer();
    await using client = createClient({ url: server.url });
    const reason = new Error("too late");
    await assert.rejects(
      client.resource(configMaps, { namespace: "default" }).create(cm, {
        signal: AbortSignal.abort(reason),
      }),
      (e: unknown) => e === reason,
    );
    assert.equal(server.requests.length, 0);
  });
});
