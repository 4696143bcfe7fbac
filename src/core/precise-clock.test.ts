import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { once } from "node:events";
import { describe, it } from "node:test";
import { clockConformance } from "../testing/index.ts";
import { runConformanceWithNodeTest } from "../testing/node-test.ts";
import { preciseClock } from "./precise-clock.ts";

runConformanceWithNodeTest(clockConformance, {
  name: "preciseClock",
  make: () => ({
    clock: preciseClock,
    elapse: (ms) => new Promise<void>((resolve) => preciseClock.setTimer(ms, resolve)),
  }),
});

describe("preciseClock", () => {
  it("reads the time since the epoch with a fraction, close to Date.now()", () => {
    const a = preciseClock.now();
    assert.ok(Math.abs(a - Date.now()) < 1000);
    let b = a;
    for (let i = 0; i < 1000; i++) b = preciseClock.now();
    assert.ok(b >= a);
  });

  it("fires a timer at or after its due time on the monotonic clock, for fractional delays", async () => {
    const late: number[] = [];
    await Promise.all(
      [0.3, 1.7, 2.2, 5].map(
        (ms) =>
          new Promise<void>((resolve) => {
            const due = performance.now() + ms;
            preciseClock.setTimer(ms, () => {
              late.push(performance.now() - due);
              resolve();
            });
          }),
      ),
    );
    for (const l of late) assert.ok(l >= 0, `fired ${-l} ms early`);
  });

  it("never fires a cancelled timer, whether cancelled at once or just before it is due", async () => {
    const fired: string[] = [];
    preciseClock.setTimer(0.5, () => fired.push("short"))();
    const cancelLong = preciseClock.setTimer(3, () => fired.push("long"));
    // A timer due earlier cancels it from its callback; timers fire in due order, so this runs
    // first however late the event loop is.
    preciseClock.setTimer(2.9, () => cancelLong());
    await new Promise<void>((resolve) => preciseClock.setTimer(5, resolve));
    assert.deepEqual(fired, []);
  });
});

describe("preciseClock and the process", () => {
  it("lets the process exit once its only timer, an hour away, is cancelled outside a wake-up", async () => {
    const source = new URL("./precise-clock.ts", import.meta.url).href;
    const script = `import { preciseClock } from ${JSON.stringify(source)};
      const cancel = preciseClock.setTimer(3_600_000, () => console.log("fired"));
      setImmediate(cancel);`;
    const child = spawn(process.execPath, ["--input-type=module", "-e", script], {
      stdio: ["ignore", "pipe", "inherit"],
    });
    let out = "";
    child.stdout.on("data", (d: Buffer) => (out += d.toString()));
    const [code] = (await once(child, "exit")) as [number | null];
    assert.equal(code, 0);
    assert.equal(out, "");
  });
});
