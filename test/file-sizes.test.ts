/**
 * Small modules: no source file under src/ grows past 450 lines (data files such as the
 * generated schema and type tables — a file whose opening comment says it is generated — are
 * not source). A module that needs more is split by concern.
 */
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { it } from "node:test";

const MAX_LINES = 450;
const src = join(import.meta.dirname, "..", "src");

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sources(path);
    return entry.name.endsWith(".ts") && !generated(path) ? [path] : [];
  });
}

/** True for a generated data table: its first lines say "Generated". */
function generated(path: string): boolean {
  return /^(\/\/|\/\*)[^\n]*\n?[^\n]*Generated/.test(readFileSync(path, "utf8").slice(0, 200));
}

it(`keeps every source file under src/ at ${MAX_LINES} lines or fewer`, () => {
  const files = sources(src);
  assert.ok(files.length > 100, `found only ${files.length} files under ${src}`);
  const long = files
    .map((path) => ({ path, lines: readFileSync(path, "utf8").split("\n").length - 1 }))
    .filter((f) => f.lines > MAX_LINES)
    .map((f) => `${relative(src, f.path)}: ${f.lines} lines`);
  assert.deepEqual(long, []);
});
