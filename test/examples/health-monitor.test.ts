/**
 * The health-monitor example against the test server, with one worker on a fake clock: it
 * probes each monitor's URL and writes the result to status; an active monitor is probed
 * before the inactive ones that were queued first (the fast lane); after its interval each
 * monitor is probed again, and those re-checks wait in the slow lane.
 */
import assert from "node:assert/strict";
import { createServer, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { describe, it } from "node:test";
import { createClient } from "kontroller/client";
import { Manager } from "kontroller/controller";
import { toTime } from "kontroller/core";
import { customResourceDefinitions, isEstablished } from "kontroller/resources";
import { FakeClock, startTestServer, waitFor } from "kontroller/testing";
import { healthMonitorController, SLOW } from "../../examples/health-monitor/controller.ts";
import { HealthMonitor } from "../../examples/health-monitor/health-monitor.ts";

/** A logger that hands every line's fields and message to `onLine`. */
function logTo(onLine: (fields: Record<string, unknown>, message: string) => void) {
  const line = (fields: Record<string, unknown>, message: string) => onLine(fields, message);
  return { error: line, warn: line, info: line, debug() {} };
}

/**
 * A probe target that records which monitor probed it (`?m=`), in order: `/healthy` answers
 * 200, `/unhealthy` 503, `/block` holds its answer until `release()`.
 */
async function recordingTarget() {
  const probes: string[] = [];
  let held: ServerResponse | undefined;
  let onBlocked: (() => void) | undefined;
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://x");
    probes.push(url.searchParams.get("m") ?? "?");
    if (url.pathname === "/block") {
      held = res;
      onBlocked?.();
      return;
    }
    res.writeHead(url.pathname === "/healthy" ? 200 : 503).end();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    probes,
    url: (path: string, monitor: string) => `${base}${path}?m=${monitor}`,
    /** Resolves once a probe of `/block` is held. */
    blocked: () =>
      new Promise<void>((resolve) => {
        if (held !== undefined) resolve();
        else onBlocked = resolve;
      }),
    release() {
      held?.writeHead(200).end();
      held = undefined;
      onBlocked = undefined;
    },
    async [Symbol.asyncDispose]() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

describe("example: health-monitor", { timeout: 30_000 }, () => {
  it("probes into status, active monitors first, and re-checks in the slow lane after the interval", async (t) => {
    await using server = await startTestServer({ controllers: false });
    await using client = createClient({ url: server.url });
    await using target = await recordingTarget();
    await client.resource(customResourceDefinitions).create(HealthMonitor.crd());
    await waitFor(
      client.resource(customResourceDefinitions),
      "healthmonitors.example.com",
      (crd) => crd !== undefined && isEstablished(crd),
      { signal: t.signal },
    );
    const monitors = client.resource(HealthMonitor).inNamespace("default");
    const create = (name: string, path: string, active: boolean) =>
      monitors.create(
        HealthMonitor.object({
          metadata: { name, namespace: "default" },
          spec: { url: target.url(path, name), intervalSeconds: 10, active },
        }),
      );
    // Listed (by name) before the urgent one: FIFO would probe them first.
    const slow = ["a-slow-0", "a-slow-1", "a-slow-2", "a-slow-3"];
    for (const name of slow) await create(name, "/unhealthy", false);
    await create("z-urgent", "/healthy", true);

    const clock = new FakeClock();
    // The first reconcile after a monitor is deleted: how it ended.
    const afterDelete = Promise.withResolvers<string>();
    const logger = logTo((fields, message) => {
      if (String(fields.reason).startsWith("delete of HealthMonitor")) afterDelete.resolve(message);
    });
    const manager = new Manager({ client, logger, clock });
    const c = manager.add(
      healthMonitorController(manager, { concurrency: 1, now: () => clock.now() }),
    );
    const stop = new AbortController();
    const running = manager.start(stop.signal);
    try {
      const probed = (name: string, test: (m: HealthMonitor) => boolean) =>
        waitFor(monitors, name, (m) => m !== undefined && test(m), { signal: t.signal });
      const urgent = await probed("z-urgent", (m) => m.status?.healthy === true);
      assert.deepEqual(urgent?.status, {
        healthy: true,
        statusCode: 200,
        message: "HTTP 200",
        lastProbeTime: toTime(clock.now()),
        consecutiveFailures: 0,
      });
      for (const name of slow) {
        const m = await probed(name, (x) => x.status?.consecutiveFailures === 1);
        assert.equal(m?.status?.healthy, false);
        assert.equal(m?.status?.statusCode, 503);
      }
      assert.deepEqual(target.probes, ["z-urgent", ...slow], "the active monitor went first");

      // Hold the only worker, then let the interval pass: every monitor is due again.
      await create("blocker", "/block", true);
      await target.blocked();
      await clock.advanceAsync(10_000);
      const ready = c.snapshot().ready.map((r) => [r.item, r.priority]);
      assert.deepEqual(
        ready.sort(),
        [...slow, "z-urgent"].map((n) => [`default/${n}`, SLOW]),
        "the re-checks wait in the slow lane",
      );
      target.release();
      for (const name of slow) {
        await probed(name, (x) => x.status?.consecutiveFailures === 2);
      }
      const again = await probed(
        "z-urgent",
        (m) => m.status?.lastProbeTime === toTime(clock.now()),
      );
      assert.equal(again?.status?.consecutiveFailures, 0);
      assert.equal(target.probes.filter((m) => m === "z-urgent").length, 2);

      // A deleted monitor is simply not probed again: its reconcile ends at once, no error.
      await monitors.delete("a-slow-0");
      assert.equal(await afterDelete.promise, "reconciled");
    } finally {
      target.release();
      stop.abort();
      await running;
    }
  });
});
