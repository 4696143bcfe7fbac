import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { once } from "node:events";
import { describe, it } from "node:test";
import { conformanceCases } from "./conformance.ts";
import { queueConformance } from "./queue-conformance.ts";
import type { QueueSubject } from "./queue-conformance-setup.ts";
import { everything, losing, plain } from "./queue-subjects.test-helper.ts";
import { storageConformance } from "./storage-conformance.ts";

const needingNothing = queueConformance.cases.filter((c) => (c.needs ?? []).length === 0);

/** Runs the cases in a loop, as any runner would: how many passed, which failed. */
async function loop(subject: QueueSubject): Promise<{ passed: number; failed: string[] }> {
  let passed = 0;
  const failed: string[] = [];
  for (const c of conformanceCases(queueConformance, subject)) {
    if (c.skip !== undefined) continue;
    try {
      await c.run();
      passed++;
    } catch {
      failed.push(c.name);
    }
  }
  return { passed, failed };
}

/** Runs node with the sources' condition and `args`; resolves its stdout. */
async function runNode(args: string[]): Promise<string> {
  const env = { ...process.env };
  // Outside the test runner's context, so that the child may call node:test's run() itself.
  delete env.NODE_TEST_CONTEXT;
  const child = spawn(process.execPath, ["--conditions=kontroller-source", ...args], {
    stdio: ["ignore", "pipe", "pipe"],
    env,
  });
  let out = "";
  let err = "";
  child.stdout.on("data", (d: Buffer) => (out += d.toString()));
  child.stderr.on("data", (d: Buffer) => (err += d.toString()));
  const [code] = (await once(child, "exit")) as [number | null];
  assert.equal(code, 0, err);
  return out;
}

const url = (path: string) => JSON.stringify(new URL(path, import.meta.url).href);

describe("conformance suites as data", () => {
  it("run in a plain loop: every case passes on a queue that supports everything", async () => {
    assert.ok(
      queueConformance.cases.length > needingNothing.length,
      "the suite has optional cases",
    );
    assert.deepEqual(await loop(everything), {
      passed: queueConformance.cases.length,
      failed: [],
    });
  });

  it("mark the cases a subject does not declare as skipped, with the reason, and run the rest", async () => {
    const planned = conformanceCases(queueConformance, plain);
    const skipped = planned.filter((c) => c.skip !== undefined);
    assert.equal(skipped.length, queueConformance.cases.length - needingNothing.length);
    assert.match(skipped[0]!.skip!, /not applicable: Queue does not declare delaying in supports/);
    assert.deepEqual(await loop(plain), { passed: needingNothing.length, failed: [] });
  });

  it("fail on a queue that loses an item", async () => {
    const { failed } = await loop(losing);
    assert.ok(failed.length > 0, "some case notices the lost item");
    assert.ok(failed.includes("distinct items leave in the order they were first added"));
  });

  it("fail when a subject declares a capability its queue lacks", async () => {
    const { failed } = await loop({ ...plain, supports: ["delaying"] });
    assert.ok(failed.includes("a delay of zero or less adds at once"), failed.join("; "));
  });

  it("load and run without node:test", async () => {
    const script = `import { registerHooks } from "node:module";
      registerHooks({
        resolve(specifier, context, next) {
          if (specifier === "node:test") throw new Error("node:test was imported");
          return next(specifier, context);
        },
      });
      const { conformanceCases, queueConformance, storageConformance } = await import(${url("./index.ts")});
      const { RateLimitingQueue } = await import(${url("../workqueue/index.ts")});
      const { MemoryStorage } = await import(${url("../apiserver/index.ts")});
      let passed = 0;
      for (const c of conformanceCases(queueConformance, {
        name: "RateLimitingQueue",
        supports: ["delaying", "rateLimiting"],
        make: ({ clock, rateLimiter }) => new RateLimitingQueue({ clock, rateLimiter }),
      })) { await c.run(); passed++; }
      for (const c of conformanceCases(storageConformance, {
        name: "MemoryStorage",
        make: async () => new MemoryStorage(),
      })) { await c.run(); passed++; }
      console.log(passed);`;
    const out = await runNode(["--input-type=module", "-e", script]);
    assert.equal(Number(out), queueConformance.cases.length + storageConformance.cases.length);
  });
});

describe("runConformanceWithNodeTest", () => {
  it("registers every case as a test: passes, skips with the reason, and failures", async () => {
    type Outcome = { pass: number; skip: string[]; fail: number };
    const bySuite = new Map<string, Outcome>();
    let cases: Outcome = { pass: 0, skip: [], fail: 0 };
    const helper = new URL("./node-test-events.test-helper.ts", import.meta.url).pathname;
    const out = await runNode([helper]);
    type Event = { type: string; nesting: number; name: string; skip?: string | boolean };
    const events = out
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as Event);
    for (const event of events) {
      // A suite's cases (nesting 1) are reported before the suite itself (nesting 0).
      if (event.nesting === 0) {
        bySuite.set(event.name, cases);
        cases = { pass: 0, skip: [], fail: 0 };
      } else if (event.type === "test:fail") cases.fail++;
      else if (typeof event.skip === "string") cases.skip.push(event.skip);
      else cases.pass++;
    }
    const all = queueConformance.cases.length;
    const optional = all - needingNothing.length;
    const notApplicable = (reason: string) => /^not applicable: \w+ does not declare/.test(reason);
    const { pass, skip, fail } = bySuite.get("work queue conformance: RateLimitingQueue")!;
    assert.deepEqual([pass, skip, fail], [all, [], 0]);
    const q = bySuite.get("work queue conformance: Queue")!;
    assert.deepEqual([q.pass, q.skip.length, q.fail], [needingNothing.length, optional, 0]);
    assert.ok(q.skip.every(notApplicable), q.skip.join("; "));
    const losing = bySuite.get("work queue conformance: LosingQueue")!;
    assert.ok(losing.fail > 0, "the queue that loses an item fails some case");
    assert.equal(losing.pass + losing.fail, needingNothing.length);
    assert.equal(losing.skip.length, optional);
  });
});
