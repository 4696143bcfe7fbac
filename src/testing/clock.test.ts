import { realClock } from "../core/index.ts";
import { clockConformance } from "./clock-conformance.ts";
import { FakeClock } from "./fake-clock.ts";

clockConformance("FakeClock", () => {
  const clock = new FakeClock();
  return { clock, elapse: (ms) => clock.advanceAsync(ms) };
});

clockConformance("realClock", () => ({
  clock: realClock,
  elapse: (ms) => new Promise<void>((resolve) => realClock.setTimer(ms, resolve)),
}));
