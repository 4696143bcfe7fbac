/**
 * The SharedInformer's processing loop: the order in which a relist reaches handlers, and what
 * happens to objects the cache cannot take (a transform's bad output, a custom ListerWatcher's
 * nameless object): reported, never the end of the loop.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { DeletedFinalStateUnknown, type KubeObject } from "../core/index.ts";
import { FakeClock, FakeListerWatcher } from "../testing/index.ts";
import { TransformOutputError } from "./delta-fifo.ts";
import type { Logger } from "./logger.ts";
import { SharedInformer, type SharedInformerOptions } from "./shared-informer.ts";

interface Cm extends KubeObject {
  metadata: { name: string; namespace: string; resourceVersion?: string };
  data?: Record<string, string>;
}

const cm = (name: string, data: Record<string, string> = {}): Cm => ({
  kind: "ConfigMap",
  apiVersion: "v1",
  metadata: { name, namespace: "ns" },
  data,
});

async function until(done: () => boolean, what = "condition"): Promise<void> {
  for (let i = 0; i < 5000; i++) {
    if (done()) return;
    await new Promise((r) => setImmediate(r));
  }
  throw new Error(`timed out waiting for ${what}`);
}

function setup(options: Partial<SharedInformerOptions<Cm>> = {}) {
  const lw = new FakeListerWatcher<Cm>();
  const clock = new FakeClock();
  const errorsLogged: { message: string; fields: Record<string, unknown> }[] = [];
  const logger: Logger = {
    error: (fields, message) => void errorsLogged.push({ message, fields }),
    warn() {},
    info() {},
    debug() {},
  };
  const informer = new SharedInformer<Cm>({
    listerWatcher: lw,
    clock,
    logger,
    onWatchError: () => {},
    random: () => 0,
    backoff: { random: () => 0 },
    ...options,
  });
  return { lw, clock, informer, errorsLogged };
}

describe("SharedInformer: relists and bad objects", () => {
  it("delivers a relist as tombstones first, then updates and adds, with the new content already cached", async () => {
    const { lw, clock, informer } = setup();
    for (const n of ["a", "b", "c"]) lw.upsert(cm(n));
    const log: string[] = [];
    informer.addEventHandler({
      onAdd: (o) => void log.push(`add ${o.metadata.name} cache=${informer.store.size}`),
      onUpdate: (_old, o) => void log.push(`update ${o.metadata.name}`),
      onDelete: (o) => {
        const gone = o instanceof DeletedFinalStateUnknown ? o.key : "not a tombstone";
        const cached = informer.store.listKeys().sort().join(",");
        log.push(`delete ${gone} cache=${cached}`);
      },
    });
    const running = informer.run();
    await informer.waitForSync();
    await until(() => log.length === 3);
    log.length = 0;
    lw.endWatches(new Error("network down"));
    await until(() => clock.pendingTimers > 0, "the backoff");
    lw.delete("ns/a");
    lw.upsert(cm("d"));
    lw.upsert(cm("b", { v: "2" }));
    lw.delete("ns/c");
    lw.compact();
    await clock.runNextAsync();
    await until(() => log.length === 4, "the relist");
    assert.deepEqual(log, [
      "delete ns/a cache=ns/b,ns/d",
      "delete ns/c cache=ns/b,ns/d",
      "update b",
      "add d cache=2",
    ]);
    await informer.stop();
    await running;
  });

  it("keeps the cached instance of an object a relist finds unchanged, so its next update's old is the one handlers saw", async () => {
    // The transform copies, so every list and watch event brings a new instance.
    const { lw, clock, informer } = setup({ transform: (o) => ({ ...o }) });
    lw.upsert(cm("a"));
    lw.upsert(cm("b"));
    const seen = new Map<string, Cm>();
    const problems: string[] = [];
    informer.addEventHandler({
      onAdd: (o) => void seen.set(o.metadata.name, o),
      onUpdate: (old, o) => {
        if (seen.get(o.metadata.name) !== old)
          problems.push(`update ${o.metadata.name}: old unseen`);
        seen.set(o.metadata.name, o);
      },
    });
    const running = informer.run();
    await informer.waitForSync();
    await until(() => seen.size === 2);
    const cachedA = informer.store.get("ns/a");
    lw.endWatches(new Error("network down"));
    await until(() => clock.pendingTimers > 0, "the backoff");
    lw.upsert(cm("b", { v: "2" }));
    lw.compact(); // the watch cannot resume: a relist
    await clock.runNextAsync();
    await until(() => seen.get("b")?.data?.v === "2", "the relist");
    assert.equal(informer.store.get("ns/a"), cachedA, "a is unchanged: the same instance");
    lw.upsert(cm("a", { v: "2" }));
    await until(() => seen.get("a")?.data?.v === "2", "the update of a");
    assert.deepEqual(problems, []);
    await informer.stop();
    await running;
  });

  it("caches an object as it came when the transform returns something else, and keeps going", async () => {
    const { lw, informer, errorsLogged } = setup({
      // Edits in place and forgets to return for "bad".
      transform: (o) => {
        if (o.metadata.name !== "bad") return { ...o, data: {} };
        o.data = {};
        return undefined as unknown as Cm;
      },
    });
    lw.upsert(cm("a", { k: "v" }));
    const running = informer.run();
    await informer.waitForSync();
    lw.upsert(cm("bad", { k: "v" }));
    lw.upsert(cm("after", { k: "v" }));
    await until(() => informer.store.size === 3, "every object cached");
    assert.deepEqual(informer.store.get("ns/a")?.data, {});
    assert.ok(informer.store.has("ns/bad"));
    assert.deepEqual(informer.store.get("ns/after")?.data, {});
    assert.equal(errorsLogged.length, 1);
    assert.equal(errorsLogged[0]!.fields.key, "ns/bad");
    assert.ok(errorsLogged[0]!.fields.err instanceof TransformOutputError);
    await informer.stop();
    await running;
  });

  it("drops and reports an object the cache cannot take (no name, from a custom ListerWatcher), and keeps going", async () => {
    const { lw, informer, errorsLogged } = setup();
    const running = informer.run();
    await informer.waitForSync();
    const nameless = { metadata: { namespace: "ns", resourceVersion: "50" } } as unknown as Cm;
    lw.inject([{ type: "ADDED", object: nameless }]);
    lw.upsert(cm("after"));
    await until(() => informer.store.has("ns/after"), "the next event");
    assert.equal(informer.store.size, 1);
    assert.deepEqual(
      errorsLogged.map((e) => [e.message, e.fields.delta]),
      [["a change could not be applied to the cache; dropped", "ADDED"]],
    );
    await informer.stop();
    assert.equal(await running, undefined, "run resolves: the loop never died");
  });
});
