import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { InformerFactory, silentLogger } from "../cache/index.ts";
import { createClient } from "../client/index.ts";
import {
  type ControllerMetrics,
  type KubeObject,
  noopControllerMetrics,
  TerminalError,
} from "../core/index.ts";
import { configMaps, type Secret, secrets } from "../resources/index.ts";
import { FakeClock, startTestServer } from "../testing/index.ts";
import { ItemExponentialFailureRateLimiter } from "../workqueue/index.ts";
import { controller } from "./builder.ts";
import { Controller } from "./controller.ts";
import { Calls, setup } from "./controller-fixtures.test.ts";
import { setControllerReference } from "./owner-references.ts";

describe("Controller", () => {
  it("reconciles the initial list at low priority, then fresh events, saying why", async () => {
    const calls = new Calls();
    await using t = await setup(
      (request, ctx) => {
        calls.push(request, ctx);
      },
      {},
      undefined,
      undefined,
      (cms) => cms.create({ metadata: { name: "before" } }),
    );
    await t.c.start();
    await calls.until((s) => s.length >= 1);
    assert.deepEqual(calls.seen[0]!.request, { namespace: "default", name: "before" });
    assert.equal(calls.seen[0]!.ctx.reason.type, "event");
    assert.equal((calls.seen[0]!.ctx.reason as { event: string }).event, "initial");
    await t.cms.create({ metadata: { name: "after" } });
    await calls.until((s) => s.some((c) => c.request.name === "after"));
    const after = calls.seen.find((c) => c.request.name === "after")!;
    assert.deepEqual(after.ctx.reason, {
      type: "event",
      event: "add",
      source: "self",
      object: { kind: "ConfigMap", namespace: "default", name: "after" },
    });
    assert.ok(after.ctx.waitedMs >= 0);
    assert.match(after.ctx.reconcileId, /^[0-9a-f-]{36}$/);
  });

  it("maps an owned child to its controller owner, and a watched object through the mapper", async () => {
    const calls = new Calls();
    await using t = await setup(
      (request, ctx) => {
        calls.push(request, ctx);
      },
      {
        owns: [secrets],
        watches: [
          {
            resource: secrets,
            map: (s: KubeObject) =>
              s.metadata?.labels?.for
                ? { namespace: "default", name: s.metadata.labels.for }
                : undefined,
          },
        ],
      },
    );
    await t.c.start();
    const owner = await t.cms.create({ metadata: { name: "owner" } });
    await calls.until((s) => s.some((c) => c.request.name === "owner"));
    const child: Secret = {
      apiVersion: "v1",
      kind: "Secret",
      metadata: { name: "child", namespace: "default" },
    };
    setControllerReference(owner, child);
    await t.client.resource(secrets, { namespace: "default" }).create(child);
    await calls.until((s) =>
      s.some(
        (c) =>
          c.request.name === "owner" &&
          c.ctx.reasons.some((r) => r.type === "event" && r.source === "owned"),
      ),
    );
    await t.client
      .resource(secrets, { namespace: "default" })
      .create({ metadata: { name: "mapped", labels: { for: "target" } } });
    await calls.until((s) => s.some((c) => c.request.name === "target"));
    const mapped = calls.seen.find((c) => c.request.name === "target")!;
    assert.equal(mapped.ctx.reason.type === "event" && mapped.ctx.reason.source, "watch");
  });

  it("retries failures with backoff, resets after success, never retries a TerminalError", async () => {
    const calls = new Calls();
    let failures = 2;
    const outcomes: string[] = [];
    const metrics: ControllerMetrics = {
      ...noopControllerMetrics,
      reconciled: (o) => outcomes.push(o),
      terminalError: () => outcomes.push("terminal"),
    };
    await using t = await setup(
      (request, ctx) => {
        calls.push(request, ctx);
        if (request.name === "flaky" && failures-- > 0) throw new Error("transient");
        if (request.name === "doomed") throw new TerminalError("bad spec");
      },
      { rateLimiter: new ItemExponentialFailureRateLimiter({ baseDelayMs: 1, maxDelayMs: 10 }) },
      metrics,
    );
    await t.c.start();
    await t.cms.create({ metadata: { name: "flaky" } });
    await calls.until((s) => s.filter((c) => c.request.name === "flaky").length === 3);
    const flaky = calls.seen.filter((c) => c.request.name === "flaky");
    assert.deepEqual(
      flaky.map((c) => c.ctx.reason.type),
      ["event", "retry", "retry"],
    );
    assert.deepEqual(flaky[2]!.ctx.reason, { type: "retry", attempt: 2, error: "transient" });
    await t.cms.create({ metadata: { name: "doomed" } });
    await calls.until((s) => s.some((c) => c.request.name === "doomed"));
    // A later event still reconciles it, and nothing retried it in between.
    await t.cms.patch("doomed", "merge", { data: { x: "1" } });
    await calls.until((s) => s.filter((c) => c.request.name === "doomed").length === 2);
    const doomed = calls.seen.filter((c) => c.request.name === "doomed");
    assert.equal(doomed[1]!.ctx.reason.type, "event");
    assert.ok(outcomes.includes("terminal"));
  });

  it("never reconciles one key in two workers at once", async () => {
    let running = 0;
    let maxParallelSameKey = 0;
    const perKey = new Map<string, number>();
    const calls = new Calls();
    await using t = await setup(
      async (request, ctx) => {
        const n = (perKey.get(request.name) ?? 0) + 1;
        perKey.set(request.name, n);
        maxParallelSameKey = Math.max(maxParallelSameKey, n);
        running++;
        await new Promise((r) => setImmediate(r));
        running--;
        perKey.set(request.name, n - 1);
        calls.push(request, ctx);
      },
      { concurrency: 4 },
    );
    await t.c.start();
    await Promise.all(["a", "b", "c"].map((n) => t.cms.create({ metadata: { name: n } })));
    for (let i = 0; i < 20; i++) await t.cms.patch("a", "merge", { data: { i: String(i) } });
    await t.cms.patch("c", "merge", { data: { last: "1" } });
    await calls.until((s) => s.filter((c) => c.request.name === "c").length >= 2);
    assert.equal(maxParallelSameKey, 1);
    assert.equal(running, 0);
  });

  it("contains misbehaving reconcilers: non-Error throws, sync throws, rejections, and ones that never settle", async () => {
    const clock = new FakeClock();
    const calls = new Calls();
    const outcomes: string[] = [];
    let timeouts = 0;
    const never = new Promise<void>(() => {});
    await using t = await setup(
      (request, ctx) => {
        calls.push(request, ctx);
        const n = calls.seen.filter((c) => c.request.name === request.name).length;
        if (n > 1) return; // the retry succeeds
        switch (request.name) {
          case "string":
            throw "just a string";
          case "sync":
            throw new Error("sync");
          case "rejects":
            return Promise.reject(new Error("async"));
          case "hangs":
            return never;
        }
        return undefined;
      },
      {
        reconcileTimeoutMs: 1000,
        rateLimiter: new ItemExponentialFailureRateLimiter({ baseDelayMs: 1, maxDelayMs: 1 }),
      },
      {
        ...noopControllerMetrics,
        reconciled: (o) => outcomes.push(o),
        reconcileTimeout: () => timeouts++,
      },
      clock,
    );
    await t.c.start();
    for (const name of ["string", "sync", "rejects"]) await t.cms.create({ metadata: { name } });
    // Retries are delayed on the fake clock.
    const twice = (name: string) => (s: Calls["seen"]) =>
      s.filter((c) => c.request.name === name).length >= 2;
    for (const name of ["string", "sync", "rejects"]) {
      await calls.until((s) => s.some((c) => c.request.name === name));
    }
    await clock.advanceAsync(10);
    for (const name of ["string", "sync", "rejects"]) await calls.until(twice(name));
    const firstString = calls.seen.find((c) => c.request.name === "string")!;
    assert.equal(firstString.ctx.signal.aborted, false);
    const retry = calls.seen.filter((c) => c.request.name === "string")[1]!;
    assert.deepEqual(retry.ctx.reason, { type: "retry", attempt: 1, error: "just a string" });

    await t.cms.create({ metadata: { name: "hangs" } });
    await calls.until((s) => s.some((c) => c.request.name === "hangs"));
    const hung = calls.seen.find((c) => c.request.name === "hangs")!;
    await clock.advanceAsync(1000);
    assert.equal(hung.ctx.signal.aborted, true, "the timeout aborts the signal");
    assert.equal(timeouts, 1);
    // Its promise never settles, so the key is never reconciled again (no overlap), but the
    // worker is free: other keys still go through.
    await t.cms.create({ metadata: { name: "other" } });
    await calls.until((s) => s.some((c) => c.request.name === "other"));
    await clock.advanceAsync(1000);
    assert.equal(calls.seen.filter((c) => c.request.name === "hangs").length, 1);
  });

  it("requeues after the asked delay, and stops cleanly", async () => {
    const clock = new FakeClock();
    const calls = new Calls();
    await using t = await setup(
      (request, ctx) => {
        calls.push(request, ctx);
        return { requeueAfterMs: 5000 };
      },
      {},
      undefined,
      clock,
    );
    await t.c.start();
    await t.cms.create({ metadata: { name: "periodic" } });
    await calls.until((s) => s.length === 1);
    await clock.advanceAsync(4999);
    assert.equal(calls.seen.length, 1);
    await clock.advanceAsync(1);
    await calls.until((s) => s.length === 2);
    assert.deepEqual(calls.seen[1]!.ctx.reason, { type: "requeue-after", afterMs: 5000 });
    await t.c.stop();
    await clock.advanceAsync(10_000);
    assert.equal(calls.seen.length, 2, "nothing runs after stop");
  });

  it("reports a throwing mapper, predicate or priority function, and keeps going", async () => {
    const calls = new Calls();
    let handlerErrors = 0;
    const bug = (where: string, name: string) => (obj: KubeObject) => {
      if (obj.metadata?.name === name) throw new Error(`${where} bug`);
      return true;
    };
    await using t = await setup(
      (request, ctx) => {
        calls.push(request, ctx);
      },
      {
        watches: [
          {
            resource: secrets,
            map: () => {
              throw new Error("mapper bug");
            },
          },
        ],
        predicates: [{ create: bug("predicate", "bad-predicate") }],
        priority: ({ object }) => (bug("priority", "bad-priority")(object) ? undefined : 0),
      },
      { ...noopControllerMetrics, handlerError: () => handlerErrors++ },
    );
    await t.c.start();
    await t.client.resource(secrets, { namespace: "default" }).create({ metadata: { name: "s" } });
    for (const name of ["bad-predicate", "bad-priority", "still-works"]) {
      await t.cms.create({ metadata: { name } });
    }
    await calls.until((s) => s.some((c) => c.request.name === "still-works"));
    assert.equal(handlerErrors, 3);
    // One worker, one priority: what was enqueued before "still-works" ran before it.
    assert.deepEqual(
      calls.seen.map((c) => c.request.name),
      ["bad-priority", "still-works"],
      "an event whose predicate threw is skipped; one whose priority threw keeps the default",
    );
  });

  it("runs without a `for` kind, on keys from watches and enqueue()", async () => {
    const calls = new Calls();
    const server = await startTestServer({ controllers: false });
    await using client = createClient({ url: server.url });
    const factory = new InformerFactory({ client, logger: silentLogger });
    const spec = controller({
      name: "keyed",
      watches: [
        { resource: secrets, map: (s: KubeObject) => ({ name: `from-${s.metadata?.name}` }) },
      ],
      reconcile: (request, ctx) => {
        calls.push(request, ctx);
      },
    });
    const c = new Controller({ spec, factory, logger: silentLogger });
    c.connect();
    const stop = new AbortController();
    factory.start(stop.signal);
    await c.start();
    c.enqueue("by-hand", { type: "requeue" });
    await client.resource(secrets, { namespace: "default" }).create({ metadata: { name: "s" } });
    await calls.until(
      (s) =>
        s.some((x) => x.request.name === "by-hand") && s.some((x) => x.request.name === "from-s"),
    );
    await c.stop({ graceMs: 100 });
    stop.abort();
    await factory.shutdown();
    await server.close();
    assert.throws(
      () => controller({ name: "bad", owns: [secrets], reconcile: () => {} }),
      /option owns .*needs `for`/,
    );
  });

  it("refuses bad options at build time", () => {
    const ok = { name: "x", for: configMaps, reconcile: () => {} };
    const bad: [Record<string, unknown>, RegExp][] = [
      [{ name: "Bad Name" }, /option name/],
      [{ concurrency: 0 }, /option concurrency must be a whole number >= 1, got 0/],
      [{ for: { plural: "x" } }, /option for must be a resource definition/],
      [{ owns: [42] }, /option owns\[0\]/],
      [{ reconcile: "no" }, /option reconcile must be a function/],
      [{ queue: "lifo" }, /option queue must be/],
      [{ reconcileTimeoutMs: -1 }, /option reconcileTimeoutMs/],
      [{ watches: [{ resource: secrets }] }, /option watches\[0\]\.map must be a function/],
    ];
    for (const [override, message] of bad) {
      assert.throws(
        () => controller({ ...ok, ...override } as Parameters<typeof controller>[0]),
        message,
      );
    }
  });
});
