import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { dirname, join } from "node:path";
import { describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import {
  type Figure,
  makeContext,
  median,
  percentile,
  procStatCpuTimes,
} from "../bench/harness.ts";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");

describe("bench harness", () => {
  it("reports the share of CPU time stolen from the machine during a comparison", async () => {
    const figures: Figure[] = [];
    const times = [
      { total: 1000, steal: 10 },
      { total: 1400, steal: 70 },
    ];
    const ctx = makeContext("s", { rounds: 1, quick: false, cpuTimes: () => times.shift() }, (f) =>
      figures.push(f),
    );
    await ctx.compare("w", { a: () => ({ speed: { value: 1, unit: "x/s" } }) });
    assert.deepEqual(figures.at(-1), {
      suite: "s",
      workload: "w",
      impl: "machine",
      metric: "steal_pct",
      value: 15,
      unit: "%",
    });
  });

  it("reads the machine's CPU times where Linux has them", () => {
    const t = procStatCpuTimes();
    if (process.platform !== "linux") return;
    assert.ok(t !== undefined && t.total > 0 && t.steal >= 0 && t.steal <= t.total);
  });

  it("runs at least minRounds measured rounds, except with --quick", async () => {
    for (const [quick, want] of [
      [false, 4],
      [true, 1],
    ] as const) {
      let calls = 0;
      const ctx = makeContext(
        "s",
        { rounds: quick ? 1 : 2, quick, cpuTimes: () => undefined },
        () => {},
      );
      await ctx.compare("w", { a: () => ({ n: { value: ++calls, unit: "" } }) }, { minRounds: 4 });
      assert.equal(calls, want);
    }
  });

  it("median and percentile", () => {
    assert.equal(median([3, 1, 2]), 2);
    assert.equal(median([4, 1, 3, 2]), 2.5);
    assert.ok(Number.isNaN(median([])));
    const xs = Array.from({ length: 100 }, (_, i) => i + 1);
    assert.equal(percentile(xs, 50), 50);
    assert.equal(percentile(xs, 99), 99);
    assert.equal(percentile(xs, 100), 100);
    assert.equal(percentile([7], 99), 7);
  });

  it("interleaves implementations, rotating the order each round, and reports medians", async () => {
    const figures: Figure[] = [];
    const calls: string[] = [];
    const ctx = makeContext("s", { rounds: 3, quick: false, cpuTimes: () => undefined }, (f) =>
      figures.push(f),
    );
    let a = 0;
    const result = await ctx.compare("w", {
      a: () => {
        calls.push("a");
        a += 10;
        return { speed: { value: a, unit: "x/s" } };
      },
      b: async () => {
        calls.push("b");
        return { speed: { value: 1, unit: "x/s" } };
      },
    });
    assert.deepEqual(calls, ["a", "b", "b", "a", "a", "b"]);
    assert.equal(result.a!.speed!.value, 20);
    assert.deepEqual(figures, [
      { suite: "s", workload: "w", impl: "a", metric: "speed", value: 20, unit: "x/s" },
      { suite: "s", workload: "w", impl: "b", metric: "speed", value: 1, unit: "x/s" },
    ]);
  });

  it("drops the figures of warm-up rounds, which run interleaved like the others", async () => {
    const figures: Figure[] = [];
    const calls: string[] = [];
    const ctx = makeContext("s", { rounds: 3, quick: false, cpuTimes: () => undefined }, (f) =>
      figures.push(f),
    );
    let a = 0;
    await ctx.compare(
      "w",
      {
        a: () => {
          calls.push("a");
          a += 10; // 10 and 20 are the warm-up's
          return { speed: { value: a, unit: "x/s" } };
        },
        b: () => {
          calls.push("b");
          return { speed: { value: 1, unit: "x/s" } };
        },
      },
      { warmupRounds: 2 },
    );
    assert.deepEqual(calls, ["a", "b", "b", "a", "a", "b", "b", "a", "a", "b"]);
    assert.equal(figures.find((f) => f.impl === "a")!.value, 40);
  });

  it("runs a suite from the command line as JSON lines, and refuses an unknown one", async () => {
    const run = (args: string[]) =>
      new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
        execFile(
          join(root, "node_modules", ".bin", "node"),
          ["--conditions=kontroller-source", "bench/run.ts", ...args],
          { cwd: root },
          (err, stdout, stderr) =>
            resolve({ code: err ? (err.code as number) : 0, stdout, stderr }),
        );
      });
    const ok = await run(["core", "--quick", "--json"]);
    assert.equal(ok.code, 0, ok.stderr);
    const lines = ok.stdout
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as Figure);
    assert.ok(lines.length >= 4);
    for (const f of lines) {
      assert.deepEqual(Object.keys(f), ["suite", "workload", "impl", "metric", "value", "unit"]);
      assert.equal(f.suite, "core");
      // A machine's steal may be 0; every measured figure is positive.
      assert.ok(f.impl === "machine" ? f.value >= 0 : f.value > 0, JSON.stringify(f));
    }
    const bad = await run(["nope"]);
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /unknown suite "nope"/);
    const rounds = await run(["core", "--rounds", "0"]);
    assert.equal(rounds.code, 2);
    assert.match(rounds.stderr, /--rounds must be a whole number >= 1/);
  });
});
