import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { InvalidOptionError } from "../core/index.ts";
import { FairStrategy } from "./fair-strategy.ts";
import { Queue } from "./queue.ts";

const byNamespace = () => new FairStrategy<string>({ tenantOf: (k) => k.split("/")[0]! });

describe("FairStrategy", () => {
  it("serves tenants in turn, FIFO within a tenant", () => {
    const s = byNamespace();
    for (const k of ["a/1", "a/2", "a/3", "b/1", "c/1", "c/2"]) s.push(k);
    assert.deepEqual([s.size, s.tenants], [6, 3]);
    const expected = ["a/1", "b/1", "c/1", "a/2", "c/2", "a/3"];
    assert.deepEqual([...s.values()], expected);
    assert.deepEqual(
      expected.map(() => s.pop()),
      expected,
    );
    assert.deepEqual([s.size, s.tenants], [0, 0]);
  });

  it("a tenant with 100 000 keys does not starve a tenant with one", async () => {
    const q = new Queue<string>({ strategy: byNamespace() });
    for (let i = 0; i < 100_000; i++) q.add(`big/${i}`);
    const first = await q.get();
    q.add("small/only");
    assert.equal(await q.get(), "big/1");
    assert.equal(await q.get(), "small/only", "served within one round");
    q.done(first!);
  });

  it("a tenant that ran out joins the round at the back", () => {
    const s = byNamespace();
    s.push("a/1");
    s.push("b/1");
    s.push("b/2");
    assert.equal(s.pop(), "a/1");
    s.push("c/1");
    s.push("a/2");
    assert.deepEqual([...s.values()], ["b/1", "c/1", "a/2", "b/2"]);
  });

  it("touch keeps the item's place", () => {
    const s = byNamespace();
    s.push("a/1");
    s.push("a/2");
    s.touch("a/1");
    assert.deepEqual([...s.values()], ["a/1", "a/2"]);
  });

  it("requires tenantOf", () => {
    assert.throws(
      () => new FairStrategy({ tenantOf: "ns" } as never),
      (e: unknown) =>
        e instanceof InvalidOptionError && e.option === "tenantOf" && e.value === "ns",
    );
  });
});
