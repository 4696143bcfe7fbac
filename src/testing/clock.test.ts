import { realClock } from "../core/index.ts";
import { clockConformance } from "./clock-conformance.ts";
import { FakeClock } from "./fake-clock.ts";
import { runConformanceWithNodeTest } from "./node-test.ts";

runConformanceWithNodeTest(clockConformance, {
  name: "FakeClock",
  make: () => {
    const clock = new FakeClock();
    return { clock, elapse: (ms) => clock.advanceAsync(ms) };
  },
});

runConformanceWithNodeTest(clockConformance, {
  name: "realClock",
  make: () => ({
    clock: realClock,
    elapse: (ms) => new Promise<void>((resolve) => realClock.setTimer(ms, resolve)),
  }),
});
