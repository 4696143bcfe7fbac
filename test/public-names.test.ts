/**
 * One name, one meaning: across every entry point of package.json's "exports", a name (a value
 * or a type) that two entry points export must be the same declaration — `GetOptions` cannot be
 * a queue's options in kontroller/workqueue and a request's in kontroller/client. And what is
 * published is only what the entry points export: core's internals are not among them.
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import ts from "typescript";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const pkg = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as {
  exports: Record<string, string | Record<string, string>>;
};

/** The source module of each published entry point, by its subpath (`./core`). */
const entries = Object.entries(pkg.exports).flatMap(([subpath, target]) =>
  typeof target === "object" && target["kontroller-source"] !== undefined
    ? [{ subpath, file: join(root, target["kontroller-source"]) }]
    : [],
);

/** Every exported name of every entry point, with the declarations it stands for. */
function exportedNames(): Map<string, Map<string, string[]>> {
  const config = ts.getParsedCommandLineOfConfigFile(
    join(root, "tsconfig.json"),
    {},
    { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => {} },
  );
  assert.ok(config, "tsconfig.json parses");
  const program = ts.createProgram({
    rootNames: entries.map((e) => e.file),
    options: { ...config.options, noEmit: true },
  });
  const checker = program.getTypeChecker();
  const names = new Map<string, Map<string, string[]>>();
  for (const { subpath, file } of entries) {
    const source = program.getSourceFile(file);
    assert.ok(source, `${file} is in the program`);
    const module = checker.getSymbolAtLocation(source);
    assert.ok(module, `${file} is a module`);
    for (const exported of checker.getExportsOfModule(module)) {
      const target =
        exported.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(exported) : exported;
      const where = (target.declarations ?? [])
        .map((d) => `${relative(root, d.getSourceFile().fileName)}:${d.getStart()}`)
        .sort()
        .join(" + ");
      const byDeclaration = names.get(exported.name) ?? new Map<string, string[]>();
      byDeclaration.set(where, [...(byDeclaration.get(where) ?? []), subpath]);
      names.set(exported.name, byDeclaration);
    }
  }
  return names;
}

describe("the public names", () => {
  const names = exportedNames();

  it("reads every entry point", () => {
    assert.ok(entries.length >= 10, `entry points: ${entries.map((e) => e.subpath).join(", ")}`);
    assert.ok(names.has("createClient") && names.has("Queue") && names.has("ApiServer"));
  });

  it("give each exported name one declaration across all entry points", () => {
    const clashes = [...names]
      .filter(([, byDeclaration]) => byDeclaration.size > 1)
      .map(
        ([name, byDeclaration]) =>
          `${name}: ${[...byDeclaration].map(([where, from]) => `${from.join(", ")} (${where})`).join(" vs ")}`,
      );
    assert.deepEqual(clashes, []);
  });

  it("leave core's internals (heap, ring buffer) out of kontroller/core", () => {
    const core = [...names]
      .filter(([, byDeclaration]) => [...byDeclaration.values()].some((s) => s.includes("./core")))
      .map(([name]) => name);
    for (const internal of ["Heap", "HeapNode", "RingBuffer", "RingBufferOptions"]) {
      assert.ok(!core.includes(internal), `kontroller/core exports ${internal}`);
    }
  });
});
