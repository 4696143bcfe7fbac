/**
 * The mini scheduler under faults: restarted mid-run (with bindings in flight) it double-binds
 * nothing and over-commits no node; failed bindings are forgotten and retried; a binding
 * refused because someone else bound the pod first frees the capacity at once; a pod deleted
 * during its binding is dropped; a request that cannot be read is reported. A watch checks
 * every change against the rules while it happens.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { createClient } from "kontroller/client";
import { EventRecorder } from "kontroller/controller";
import { ApiError } from "kontroller/core";
import { events, eventsV1, type Pod, pods } from "kontroller/resources";
import { startTestServer, waitFor } from "kontroller/testing";
import { type Binder, bindingSubresource } from "../../examples/mini-scheduler/binder.ts";
import {
  createNode,
  deadline,
  nodeObject,
  podObject,
  runScheduler,
  trackPlacements,
  waitForList,
} from "./mini-scheduler-helpers.ts";

/** Resolves when `n` calls happened. */
function counter() {
  let count = 0;
  const waiters: { n: number; resolve: () => void }[] = [];
  return {
    get count() {
      return count;
    },
    inc() {
      count++;
      for (const w of waiters.filter((w) => w.n <= count)) w.resolve();
    },
    reach(n: number): Promise<void> {
      if (count >= n) return Promise.resolve();
      return new Promise((resolve) => waiters.push({ n, resolve }));
    },
  };
}

async function cluster(nodeCount: number, cpu: string) {
  const server = await startTestServer({ controllers: false });
  const client = createClient({ url: server.url });
  const capacity = new Map<string, number>();
  for (let i = 0; i < nodeCount; i++) {
    const name = `node-${String(i).padStart(2, "0")}`;
    await createNode(client, nodeObject(name, cpu));
    capacity.set(name, Number.parseFloat(cpu) * (cpu.endsWith("m") ? 1 : 1000));
  }
  return {
    server,
    client,
    capacity,
    pods: client.resource(pods, { namespace: "default" }),
    async [Symbol.asyncDispose]() {
      await client.close();
      await server.close();
    },
  };
}

async function createPods(
  c: { pods: { create(p: Pod): Promise<Pod> } },
  names: string[],
  cpu: string,
) {
  for (let i = 0; i < names.length; i += 16) {
    await Promise.all(names.slice(i, i + 16).map((n) => c.pods.create(podObject(n, cpu))));
  }
}

const range = (n: number, prefix: string) =>
  Array.from({ length: n }, (_, i) => `${prefix}-${String(i).padStart(3, "0")}`);

describe("example: mini-scheduler under faults", () => {
  it("restarted mid-run with bindings in flight, binds each pod once and over-commits nothing", async () => {
    await using c = await cluster(20, "1");
    const log = await trackPlacements(c.client, c.capacity);
    // Room for 100 pods of 200m; 150 wait. The first scheduler binds 30, then its bindings hang.
    await createPods(c, range(150, "pod"), "200m");
    const real = bindingSubresource(c.client);
    const passed = counter();
    const held = counter();
    let release!: () => void;
    const gate = new Promise<void>((r) => {
      release = r;
    });
    let completedHeld = 0;
    const gated: Binder = {
      async bind(pod, node, signal) {
        if (passed.count >= 30) {
          held.inc();
          await gate;
          await real.bind(pod, node, signal);
          completedHeld++;
          return;
        }
        await real.bind(pod, node, signal);
        passed.inc();
      },
    };
    // Stopping flushes the recorder last: by then every binding in flight must have finished.
    let completedAtClose = -1;
    class ClosingRecorder extends EventRecorder {
      override flush(): Promise<void> {
        if (completedAtClose < 0) completedAtClose = completedHeld;
        return super.flush();
      }
    }
    const recorder = new ClosingRecorder({
      events: c.client.resource(eventsV1),
      reportingController: "mini-scheduler",
      reportingInstance: "first",
    });
    const first = runScheduler(c.client, { binder: gated, maxInFlightBinds: 8, recorder });
    await held.reach(8);
    const stopping = first.stop();
    release();
    await stopping;
    assert.equal(completedAtClose, held.count, "stopping waited for the bindings in flight");
    const boundByFirst = first.scheduler.stats.bound;
    assert.ok(boundByFirst >= 38 && boundByFirst < 100, `first bound ${boundByFirst}`);

    const second = runScheduler(c.client, { initialBackoffMs: 60_000, maxBackoffMs: 60_000 });
    try {
      await second.scheduler.whenIdle(deadline());
      const all = (await c.pods.list()).items;
      assert.equal(all.filter((p) => p.spec?.nodeName).length, 100);
      assert.equal(second.scheduler.stats.bound, 100 - boundByFirst);
      assert.equal(second.scheduler.stats.bindFailures, 0, "it never tried to bind a bound pod");
      assert.equal(second.scheduler.unschedulableCount, 50);
      await waitForList(c.pods, (ps) => ps.filter((p) => p.spec?.nodeName).length === 100);
      assert.equal(log.boundTo.size, 100);
      assert.deepEqual(log.violations, []);
    } finally {
      log.stop();
      await second.stop();
    }
  });

  it("forgets a binding that failed and retries it; the capacity it held is not lost", async () => {
    await using c = await cluster(5, "1");
    const log = await trackPlacements(c.client, c.capacity);
    const names = range(25, "pod"); // exactly full
    await createPods(c, names, "200m");
    const real = bindingSubresource(c.client);
    const failedOnce = new Set<string>();
    const flaky: Binder = {
      async bind(pod, node, signal) {
        const name = pod.metadata?.name ?? "";
        if (names.indexOf(name) % 3 === 0 && !failedOnce.has(name)) {
          failedOnce.add(name);
          throw ApiError.of("InternalError", "etcd is having a bad day");
        }
        await real.bind(pod, node, signal);
      },
    };
    const running = runScheduler(c.client, {
      binder: flaky,
      initialBackoffMs: 20,
      maxBackoffMs: 20,
    });
    try {
      const placed = await waitForList(c.pods, (ps) => ps.every((p) => p.spec?.nodeName));
      assert.equal(placed.length, 25);
      assert.equal(running.scheduler.stats.bindFailures, 9);
      const rejected = await waitForList(
        c.client.resource(events, { namespace: "default" }),
        (es) => es.length === 9,
        { fieldSelector: "reason=FailedScheduling" },
      );
      assert.match(rejected[0]?.message ?? "", /^Binding rejected: etcd is having a bad day/);
      assert.deepEqual(log.violations, []);
    } finally {
      log.stop();
      await running.stop();
    }
  });

  it("drops a pod someone else bound first, and frees its capacity for the others at once", async () => {
    await using c = await cluster(1, "1");
    await createNode(c.client, nodeObject("rival", "8", "8Gi", { unschedulable: true }));
    const log = await trackPlacements(c.client, new Map([...c.capacity, ["rival", 8000]]));
    // The rival pods come first in the initial list and take 2 of node-00's 5 slots, as
    // assumptions; the others then see 3 slots, until the rival bindings fail.
    await createPods(c, ["a-rival-0", "a-rival-1", ...range(5, "pod")], "200m");
    const real = bindingSubresource(c.client);
    const racing: Binder = {
      async bind(pod, node, signal) {
        if (pod.metadata?.name?.startsWith("a-rival")) await real.bind(pod, "rival");
        await real.bind(pod, node, signal);
      },
    };
    const running = runScheduler(c.client, {
      binder: racing,
      initialBackoffMs: 60_000,
      maxBackoffMs: 60_000,
    });
    try {
      const placed = await waitForList(
        c.pods,
        (ps) => ps.length === 7 && ps.every((p) => p.spec?.nodeName),
      );
      const where = new Map(placed.map((p) => [p.metadata?.name, p.spec?.nodeName]));
      assert.equal(where.get("a-rival-0"), "rival");
      assert.equal(where.get("a-rival-1"), "rival");
      for (const n of range(5, "pod")) assert.equal(where.get(n), "node-00", n);
      await running.scheduler.whenIdle(deadline());
      assert.equal(running.scheduler.stats.bindFailures, 2);
      const failed = await c.client.resource(events, { namespace: "default" }).list({
        fieldSelector: "reason=FailedScheduling,involvedObject.name=a-rival-0",
      });
      assert.equal(failed.items.length, 0, "a conflict is not reported as a failure");
      assert.deepEqual(log.violations, []);
    } finally {
      log.stop();
      await running.stop();
    }
  });

  it("drops a pod deleted while its binding is in flight", async () => {
    await using c = await cluster(1, "1");
    const real = bindingSubresource(c.client);
    const arrived = counter();
    let release!: () => void;
    const gate = new Promise<void>((r) => {
      release = r;
    });
    const slow: Binder = {
      async bind(pod, node, signal) {
        arrived.inc();
        await gate;
        await real.bind(pod, node, signal);
      },
    };
    await c.pods.create(podObject("doomed", "100m"));
    const running = runScheduler(c.client, { binder: slow });
    try {
      await arrived.reach(1);
      await c.pods.delete("doomed");
      await waitFor(c.pods, "doomed", (p) => p === undefined, { signal: deadline() });
      release();
      await running.scheduler.whenIdle(deadline());
      assert.equal(running.scheduler.stats.bindFailures, 1);
      assert.equal(running.scheduler.stats.bound, 0);
    } finally {
      await running.stop();
    }
  });

  it("reports a pod whose request it cannot read, and schedules the others", async () => {
    await using c = await cluster(1, "1");
    await c.pods.create(podObject("huge", "1e99"));
    await c.pods.create(podObject("fine", "100m"));
    const running = runScheduler(c.client, { initialBackoffMs: 60_000, maxBackoffMs: 60_000 });
    try {
      await running.scheduler.whenIdle(deadline());
      assert.equal((await c.pods.get("fine")).spec?.nodeName, "node-00");
      assert.equal((await c.pods.get("huge")).spec?.nodeName, undefined);
      const [event] = await waitForList(
        c.client.resource(events, { namespace: "default" }),
        (es) => es.length > 0,
        { fieldSelector: "reason=FailedScheduling,involvedObject.name=huge" },
      );
      assert.match(event?.message ?? "", /quantity "1e99" is out of range/);
    } finally {
      await running.stop();
    }
  });
});
