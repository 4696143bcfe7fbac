/**
 * `npm run bench -- <suite>... [--json] [--rounds N] [--quick]`, or `npm run bench -- --list`.
 * Suites are the files `bench/<name>.bench.ts` that export `suite`.
 */
import { readdirSync } from "node:fs";
import { parseArgs } from "node:util";
import { type Figure, makeContext, type Suite } from "./harness.ts";

const SUFFIX = ".bench.ts";

function available(): string[] {
  return readdirSync(new URL(".", import.meta.url))
    .filter((f) => f.endsWith(SUFFIX))
    .map((f) => f.slice(0, -SUFFIX.length))
    .sort();
}

function formatValue(v: number): string {
  if (!Number.isFinite(v)) return String(v);
  if (Math.abs(v) >= 1000) return Math.round(v).toLocaleString("en-US");
  return v.toPrecision(4);
}

function printTable(figures: Figure[]): void {
  const rows = figures.map((f) => [f.workload, f.impl, f.metric, formatValue(f.value), f.unit]);
  const head = ["workload", "impl", "metric", "value", "unit"];
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (r: string[]) =>
    r.map((c, i) => (i === 3 ? c.padStart(widths[i]!) : c.padEnd(widths[i]!))).join("  ");
  process.stdout.write(`${line(head)}\n${widths.map((w) => "-".repeat(w)).join("  ")}\n`);
  for (const r of rows) process.stdout.write(`${line(r)}\n`);
}

async function main(): Promise<number> {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: {
      json: { type: "boolean", default: false },
      quick: { type: "boolean", default: false },
      rounds: { type: "string" },
      list: { type: "boolean", default: false },
    },
  });
  const suites = available();
  if (values.list || positionals.length === 0) {
    process.stdout.write(
      `suites: ${suites.join(", ")}\nusage: npm run bench -- <suite>... [--json] [--rounds N] [--quick]\n`,
    );
    return values.list ? 0 : 2;
  }
  const rounds = values.rounds === undefined ? (values.quick ? 1 : 5) : Number(values.rounds);
  if (!Number.isInteger(rounds) || rounds < 1) {
    process.stderr.write(`bench: --rounds must be a whole number >= 1, got ${values.rounds}\n`);
    return 2;
  }
  for (const name of positionals) {
    if (!suites.includes(name)) {
      process.stderr.write(
        `bench: unknown suite ${JSON.stringify(name)}; suites: ${suites.join(", ")}\n`,
      );
      return 2;
    }
  }
  for (const name of positionals) {
    const { suite } = (await import(`./${name}${SUFFIX}`)) as { suite: Suite };
    const figures: Figure[] = [];
    const emit = (f: Figure) => {
      figures.push(f);
      if (values.json) process.stdout.write(`${JSON.stringify(f)}\n`);
    };
    if (!values.json) process.stdout.write(`\n# ${suite.name}: ${suite.description}\n\n`);
    await suite.run(makeContext(suite.name, { rounds, quick: values.quick }, emit));
    if (!values.json) printTable(figures);
  }
  return 0;
}

process.exitCode = await main();
