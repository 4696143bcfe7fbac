import assert from "node:assert/strict";
import { getEventListeners } from "node:events";
import { describe, it } from "node:test";
import { errorMessage, type KubeObject, type WatchEvent } from "../core/index.ts";
import { DeltaFIFO, FifoClosedError, TransformOutputError } from "./delta-fifo.ts";

const obj = (name: string, rv: string): KubeObject => ({ metadata: { name, resourceVersion: rv } });
const ev = (type: "ADDED" | "MODIFIED" | "DELETED", name: string, rv: string): WatchEvent => ({
  type,
  object: obj(name, rv),
});

describe("DeltaFIFO", () => {
  it("keeps one entry per event in arrival order, coalescing nothing", async () => {
    const q = new DeltaFIFO();
    q.pushEvents([ev("ADDED", "a", "1"), ev("MODIFIED", "a", "2")]);
    q.pushEvents([ev("MODIFIED", "a", "3"), ev("DELETED", "a", "4")]);
    const out = await q.pop(10);
    assert.deepEqual(
      out.map((d) => d.type),
      ["ADDED", "MODIFIED", "MODIFIED", "DELETED"],
    );
    assert.equal(q.size, 0);
  });

  it("queues a relist as one REPLACED entry, between the events around it", async () => {
    const q = new DeltaFIFO();
    q.pushEvents([ev("ADDED", "a", "1")]);
    q.replace([obj("a", "5"), obj("b", "5")], "5");
    q.pushEvents([ev("DELETED", "b", "6")]);
    const out = await q.pop(2);
    assert.deepEqual(out[1], {
      type: "REPLACED",
      objects: [obj("a", "5"), obj("b", "5")],
      resourceVersion: "5",
    });
    assert.equal(q.size, 1, "pop takes at most max entries");
  });

  it("transforms each object once as it is queued, never bookmarks, and queues the original if it throws", async () => {
    const seen: string[] = [];
    const q = new DeltaFIFO<KubeObject>({
      transform: (o) => {
        if (o.metadata?.name === "bad") throw new Error("nope");
        seen.push(o.metadata!.name!);
        return { ...o, kind: "T" };
      },
      onTransformError: (o, e) => seen.push(`error ${o.metadata?.name} ${errorMessage(e)}`),
    });
    const bookmark: WatchEvent = {
      type: "BOOKMARK",
      object: { metadata: { resourceVersion: "9" } },
    };
    q.pushEvents([ev("ADDED", "a", "1"), bookmark, ev("ADDED", "bad", "2")]);
    q.replace([obj("b", "3")], "3");
    const out = await q.pop(10);
    assert.deepEqual(seen, ["a", "error bad nope", "b"]);
    assert.equal((out[0] as { object: KubeObject }).object.kind, "T");
    assert.equal(out[1], bookmark);
    assert.equal((out[2] as { object: KubeObject }).object.kind, undefined);
    assert.equal((out[3] as unknown as { objects: KubeObject[] }).objects[0]!.kind, "T");
  });

  it("queues the original object when the transform returns something that is not it", async () => {
    const errors: string[] = [];
    const q = new DeltaFIFO<KubeObject>({
      // A transform that edits in place and forgets to return, one that renames, one that
      // drops the resourceVersion.
      transform: (o) =>
        o.metadata?.name === "a"
          ? (undefined as unknown as KubeObject)
          : o.metadata?.name === "b"
            ? { metadata: { name: "other", resourceVersion: o.metadata.resourceVersion } }
            : { metadata: { name: o.metadata!.name } },
      onTransformError: (o, e) =>
        errors.push(
          `${o.metadata?.name}: ${e instanceof TransformOutputError ? "output" : "?"} ${errorMessage(e)}`,
        ),
    });
    q.pushEvents([ev("ADDED", "a", "1"), ev("ADDED", "b", "2")]);
    q.replace([obj("c", "3")], "3");
    const out = await q.pop(10);
    assert.deepEqual((out[0] as { object: KubeObject }).object, obj("a", "1"));
    assert.deepEqual((out[1] as { object: KubeObject }).object, obj("b", "2"));
    assert.deepEqual((out[2] as unknown as { objects: KubeObject[] }).objects, [obj("c", "3")]);
    assert.deepEqual(
      errors.map((e) => e.slice(0, e.indexOf(";"))),
      [
        "a: output the transform returned undefined",
        'b: output the transform returned an object named "other"',
        "c: output the transform returned an object at resourceVersion undefined",
      ],
    );
  });

  it("wakes a waiting pop on push, rejects it on abort, and fails it once closed and drained", async () => {
    const q = new DeltaFIFO();
    const waiting = q.pop(10);
    q.pushEvents([ev("ADDED", "a", "1")]);
    assert.equal((await waiting).length, 1);

    const ac = new AbortController();
    const aborted = q.pop(10, ac.signal);
    ac.abort(new Error("stop"));
    await assert.rejects(aborted, /stop/);

    q.pushEvents([ev("ADDED", "b", "2")]);
    const blocked = q.pop(10);
    q.close();
    q.close();
    assert.equal((await blocked).length, 1, "entries queued before close are still delivered");
    await assert.rejects(q.pop(10), FifoClosedError);
    q.pushEvents([ev("ADDED", "c", "3")]);
    assert.equal(q.size, 0, "a closed queue takes nothing");
  });

  it("keeps one abort listener on the signal pop is given, moves it to a new one, and drops it when closed", async () => {
    const q = new DeltaFIFO();
    const a = new AbortController();
    for (let i = 0; i < 5; i++) {
      const waiting = q.pop(10, a.signal);
      q.pushEvents([ev("ADDED", `o${i}`, String(i + 1))]);
      assert.equal((await waiting).length, 1);
    }
    assert.equal(getEventListeners(a.signal, "abort").length, 1, "one listener for five waits");

    const b = new AbortController();
    const onB = q.pop(10, b.signal);
    assert.equal(getEventListeners(a.signal, "abort").length, 0);
    assert.equal(getEventListeners(b.signal, "abort").length, 1);
    a.abort(new Error("the old signal"));
    q.pushEvents([ev("ADDED", "x", "9")]);
    assert.equal(
      (await onB).length,
      1,
      "the old signal's abort does not reach a pop waiting with another",
    );

    const c = new AbortController();
    const woken = q.pop(10, c.signal);
    q.pushEvents([ev("ADDED", "y", "10")]);
    await woken;
    const unsignalled = q.pop(10);
    c.abort(new Error("after its pop returned"));
    q.pushEvents([ev("ADDED", "z", "11")]);
    assert.equal((await unsignalled).length, 1, "a pop without a signal is not rejected");

    const d = new AbortController();
    const last = q.pop(10, d.signal);
    q.close();
    await assert.rejects(last, FifoClosedError);
    assert.equal(getEventListeners(d.signal, "abort").length, 0, "closing drops the listener");
  });
});
