/**
 * The lint rules of lint/*.grit are enforced by Biome, and the rules are tested: each case writes
 * a small module into a scratch folder inside the repository (so that the repository's own
 * biome.json and its plugins apply), runs the linter on it and checks which lines it refuses.
 */
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { after, describe, it } from "node:test";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const biome = join(root, "node_modules", ".bin", "biome");
const scratch = mkdtempSync(join(root, "lint", ".case-"));
after(() => rmSync(scratch, { recursive: true, force: true }));

let n = 0;

/** Lints `text` as a module of the repository; returns the lines the plugin refused. */
function lint(text: string): Promise<{ ok: boolean; refused: number[]; output: string }> {
  const file = join(scratch, `case-${n++}.ts`);
  writeFileSync(file, text);
  const path = relative(root, file);
  return new Promise((resolve) => {
    execFile(
      biome,
      ["lint", "--max-diagnostics=100", path],
      { cwd: root },
      (err, stdout, stderr) => {
        const output = stdout + stderr;
        const at = new RegExp(`${path.replaceAll(".", "\\.")}:(\\d+):\\d+ plugin`, "g");
        const refused = [...output.matchAll(at)].map((m) => Number(m[1]));
        resolve({ ok: err === null, refused, output });
      },
    );
  });
}

describe("the error-cast lint rule", { concurrency: 4 }, () => {
  it("refuses casting a caught error to Error or NodeJS.ErrnoException", async () => {
    const r = await lint(
      [
        "export function f(err: unknown): unknown[] {",
        "  const message = (err as Error).message;",
        "  const code = (err as NodeJS.ErrnoException).code;",
        "  return [message, code];",
        "}",
        "",
      ].join("\n"),
    );
    assert.equal(r.ok, false, r.output);
    assert.deepEqual(r.refused, [2, 3], r.output);
    assert.match(r.output, /use a predicate or helper from kontroller\/core/);
  });

  it("refuses casting to an object type that reads code, message or errno, on one line or many", async () => {
    const r = await lint(
      [
        "export function f(err: unknown): unknown[] {",
        "  const status = (err as { code?: number }).code;",
        "  const text = (err as { message: string }).message;",
        "  const errno = (err as {",
        "    reason?: string;",
        "    errno?: number;",
        "  }).errno;",
        "  return [status, text, errno];",
        "}",
        "",
      ].join("\n"),
    );
    assert.equal(r.ok, false, r.output);
    assert.deepEqual(r.refused, [2, 3, 4], r.output);
  });

  it("accepts predicates, narrowing, and casts of objects that are not errors", async () => {
    const r = await lint(
      [
        "export function f(err: unknown, object: object): unknown[] {",
        "  const message = err instanceof Error ? err.message : String(err);",
        '  const code = typeof err === "object" && err !== null && "code" in err ? err.code : 0;',
        "  const status = (object as { status?: unknown }).status;",
        "  const codec = (object as { codec?: string }).codec;",
        "  return [message, code, status, codec];",
        "}",
        "",
      ].join("\n"),
    );
    assert.equal(r.ok, true, r.output);
    assert.deepEqual(r.refused, []);
  });
});
