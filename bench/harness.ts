/**
 * The benchmark harness. A suite is a module `bench/<name>.bench.ts` exporting `suite: Suite`;
 * `npm run bench -- <name> [--json] [--rounds N] [--quick]` runs it.
 *
 * Rules every suite follows: the subject and its baseline or peer run in the same process run,
 * interleaved round by round (the order rotates each round, so neither always runs warm or
 * cold), and each figure is the median over the rounds. Figures go out through `ctx.report`,
 * as one JSON line each with `--json`, or as a table otherwise. `KONTROLLER_BENCH_ROUNDS=1`
 * also prints every round's figures to stderr.
 *
 * Every comparison also reports, as impl `machine` and metric `steal_pct`, the share of the
 * machine's CPU time the hypervisor gave to others while it ran (Linux's steal time): on a
 * shared virtual machine that share decides how far wall-clock figures can be trusted — at
 * 15% steal, p99 latencies measure the hypervisor's pauses, not the code.
 */
import { readFileSync } from "node:fs";

/** One measured figure. `value` is the median over rounds. */
export interface Figure {
  suite: string;
  workload: string;
  impl: string;
  metric: string;
  value: number;
  unit: string;
}

/** What a suite gets from the harness. */
export interface SuiteContext {
  /** Rounds per comparison (`--rounds`, default 5; `--quick` makes it 1 and asks for small sizes). */
  readonly rounds: number;
  /** True with `--quick`: suites shrink their workloads (a smoke run, e.g. in CI). */
  readonly quick: boolean;
  /** Emits a figure. */
  report(figure: Omit<Figure, "suite">): void;
  /**
   * Runs `impls` interleaved for `rounds` rounds and reports the median of every metric. With
   * `warmupRounds`, every implementation first runs that many rounds whose figures are dropped
   * (for workloads whose single rounds are short enough that JIT warm-up shows in the first
   * measured ones).
   */
  compare(
    workload: string,
    impls: Record<string, Measure>,
    options?: {
      warmupRounds?: number;
      /**
       * At least this many measured rounds, whatever `--rounds` says (a workload of short rounds
       * that vary a lot buys a steadier median cheaply); `--quick` ignores it.
       */
      minRounds?: number;
    },
  ): Promise<Record<string, Measured>>;
}

/** A measurement: one round of one implementation, returning its metrics. */
export type Measure = () => Promise<Measured> | Measured;

/** Metric name → value and unit, e.g. `{ items_per_s: { value: 2.6e6, unit: "items/s" } }`. */
export type Measured = Record<string, { value: number; unit: string }>;

/** A benchmark suite. */
export interface Suite {
  name: string;
  description: string;
  run(ctx: SuiteContext): Promise<void>;
}

/** The median of `values` (the mean of the two middle ones for an even count). */
export function median(values: readonly number[]): number {
  if (values.length === 0) return Number.NaN;
  const s = [...values].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 === 1 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

/** The `p`-th percentile (0–100) of `values`, nearest-rank. */
export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const s = [...values].sort((a, b) => a - b);
  const rank = Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1));
  return s[rank]!;
}

/** Heap in use after a full collection (needs `--expose-gc`, which `npm run bench` passes). */
export function heapUsedAfterGc(): number {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (gc !== undefined) {
    gc();
    gc();
  }
  return process.memoryUsage().heapUsed;
}

/** Milliseconds since an arbitrary origin, sub-millisecond resolution. */
export function nowMs(): number {
  return performance.now();
}

/** Runs `fn` and returns its result and the elapsed milliseconds. */
export async function timed<T>(fn: () => Promise<T> | T): Promise<{ result: T; ms: number }> {
  const start = nowMs();
  const result = await fn();
  return { result, ms: nowMs() - start };
}

/** The machine's CPU time so far, in clock ticks: all of it, and the part stolen. */
export interface CpuTimes {
  total: number;
  steal: number;
}

/** Linux's CPU times (the `cpu` line of /proc/stat); undefined where there is none. */
export function procStatCpuTimes(): CpuTimes | undefined {
  let line: string | undefined;
  try {
    line = readFileSync("/proc/stat", "utf8").split("\n", 1)[0];
  } catch {
    return undefined;
  }
  const fields = line?.split(/\s+/);
  if (fields?.[0] !== "cpu") return undefined;
  // user nice system idle iowait irq softirq steal (guest time is inside user and nice)
  const ticks = fields.slice(1, 9).map(Number);
  if (ticks.some((t) => !Number.isFinite(t))) return undefined;
  return { total: ticks.reduce((a, b) => a + b, 0), steal: ticks[7] ?? 0 };
}

/** Builds the context a suite runs with; `emit` receives every figure. */
export function makeContext(
  suite: string,
  options: { rounds: number; quick: boolean; cpuTimes?: () => CpuTimes | undefined },
  emit: (f: Figure) => void,
): SuiteContext {
  const cpuTimes = options.cpuTimes ?? procStatCpuTimes;
  const report = (f: Omit<Figure, "suite">) => emit({ suite, ...f });
  return {
    rounds: options.rounds,
    quick: options.quick,
    report,
    async compare(workload, impls, { warmupRounds = 0, minRounds = 0 } = {}) {
      const rounds = options.quick ? options.rounds : Math.max(options.rounds, minRounds);
      const names = Object.keys(impls);
      const cpuBefore = cpuTimes();
      const samples = new Map<string, Map<string, { values: number[]; unit: string }>>();
      for (const n of names) samples.set(n, new Map());
      for (let round = -warmupRounds; round < rounds; round++) {
        // Rotate the order so that no implementation always goes first.
        const at = round + warmupRounds;
        const order = names.map((_, i) => names[(i + at) % names.length]!);
        for (const n of order) {
          const measured = await impls[n]!();
          if (round < 0) continue;
          if (process.env.KONTROLLER_BENCH_ROUNDS) {
            const values = Object.entries(measured).map(([m, v]) => `${m}=${v.value.toFixed(2)}`);
            console.error(`${workload} round ${round + 1} ${n}: ${values.join(" ")}`);
          }
          for (const [metric, { value, unit }] of Object.entries(measured)) {
            const m = samples.get(n)!;
            if (!m.has(metric)) m.set(metric, { values: [], unit });
            m.get(metric)!.values.push(value);
          }
        }
      }
      const out: Record<string, Measured> = {};
      for (const n of names) {
        out[n] = {};
        for (const [metric, { values, unit }] of samples.get(n)!) {
          const value = median(values);
          out[n][metric] = { value, unit };
          report({ workload, impl: n, metric, value, unit });
        }
      }
      const cpuAfter = cpuTimes();
      if (cpuBefore !== undefined && cpuAfter !== undefined && cpuAfter.total > cpuBefore.total) {
        const stolen = cpuAfter.steal - cpuBefore.steal;
        const value = (100 * stolen) / (cpuAfter.total - cpuBefore.total);
        report({ workload, impl: "machine", metric: "steal_pct", value, unit: "%" });
      }
      return out;
    },
  };
}
