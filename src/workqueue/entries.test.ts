import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { EntryTable, GONE, QUEUED } from "./entries.ts";

describe("EntryTable", () => {
  it("keeps finished entries only until a sweep, bounded by the live ones", () => {
    const table = new EntryTable<string>();
    const live = Array.from({ length: 100 }, (_, i) => table.create(`live-${i}`, QUEUED));
    let maxSize = 0;
    for (let i = 0; i < 100_000; i++) {
      const e = table.create(`k${i}`, QUEUED);
      e.state = GONE;
      table.finished();
      maxSize = Math.max(maxSize, table.size);
    }
    assert.equal(table.live, 100);
    assert.ok(maxSize <= 100 + 1025 + 300 + 1, `held ${maxSize} entries for 100 live`);
    for (const e of live) assert.equal(table.get(e.item), e, "a sweep keeps live entries");
    assert.deepEqual(
      [...table.values()].map((e) => e.item),
      live.map((e) => e.item),
    );
  });

  it("revives a finished entry in place until it is swept", () => {
    const table = new EntryTable<string>();
    const other = table.create("other", QUEUED);
    const e = table.create("a", QUEUED);
    e.state = GONE;
    table.finished();
    assert.equal(table.live, 1);
    assert.equal(table.get("a"), e);
    e.state = QUEUED;
    table.revived();
    assert.equal(table.live, 2);
    assert.deepEqual([...table.values()], [other, e]);
  });

  it("forgets every entry at once when the last live one finishes", () => {
    const table = new EntryTable<string>();
    const entries = ["a", "b", "c"].map((k) => table.create(k, QUEUED));
    for (const e of entries) {
      e.state = GONE;
      table.finished();
    }
    assert.deepEqual([table.live, table.size, table.get("a")], [0, 0, undefined]);
  });
});
