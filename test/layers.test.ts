/**
 * The layer rule is enforced by a tool, and the tool is tested: each case builds a small tree
 * with the repository's own .dependency-cruiser.cjs and checks that the linter accepts or
 * refuses it, naming the rule.
 */
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { after, describe, it } from "node:test";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const depcruise = join(root, "node_modules", ".bin", "depcruise");
const scratch = mkdtempSync(join(tmpdir(), "kontroller-layers-"));
after(() => rmSync(scratch, { recursive: true, force: true }));

let n = 0;

/** Writes `files` into a fresh tree with the real config and runs the linter over it. */
function lint(files: Record<string, string>): Promise<{ ok: boolean; output: string }> {
  const dir = join(scratch, `case-${n++}`);
  mkdirSync(dir);
  cpSync(join(root, ".dependency-cruiser.cjs"), join(dir, ".dependency-cruiser.cjs"));
  writeFileSync(
    join(dir, "tsconfig.json"),
    JSON.stringify({
      compilerOptions: { module: "nodenext", allowImportingTsExtensions: true, noEmit: true },
    }),
  );
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
  const targets = ["src", "examples"].filter((t) =>
    Object.keys(files).some((p) => p.startsWith(`${t}/`)),
  );
  return new Promise((resolve) => {
    execFile(
      depcruise,
      ["--config", ".dependency-cruiser.cjs", ...targets],
      { cwd: dir },
      (err, stdout, stderr) => {
        resolve({ ok: err === null, output: stdout + stderr });
      },
    );
  });
}

const core = {
  "src/core/index.ts": 'export { heap } from "./heap.ts";\n',
  "src/core/heap.ts": "export const heap = 1;\n",
};

describe("layer linter", { concurrency: 4 }, () => {
  it("accepts imports that follow the table, through index.ts", async () => {
    const r = await lint({
      ...core,
      "src/client/index.ts":
        'import { heap } from "../core/index.ts";\nexport const client = heap;\n',
      "src/workqueue/queue.test.ts":
        'import { clock } from "../testing/index.ts";\nexport const t = clock;\n',
      "src/testing/index.ts":
        'import { heap } from "../core/index.ts";\nexport const clock = heap;\n',
    });
    assert.equal(r.ok, true, r.output);
  });

  it("refuses an import that goes the wrong way", async () => {
    const r = await lint({
      ...core,
      "src/core/bad.ts": 'import { client } from "../client/index.ts";\nexport const x = client;\n',
      "src/client/index.ts": "export const client = 1;\n",
    });
    assert.equal(r.ok, false);
    assert.match(r.output, /layer-core: src\/core\/bad\.ts → src\/client\/index\.ts/);
  });

  it("refuses the API server importing the client", async () => {
    const r = await lint({
      "src/apiserver/index.ts":
        'import { client } from "../client/index.ts";\nexport const x = client;\n',
      "src/client/index.ts": "export const client = 1;\n",
    });
    assert.equal(r.ok, false);
    assert.match(r.output, /layer-apiserver/);
  });

  it("refuses reaching into another layer past its index.ts", async () => {
    const r = await lint({
      ...core,
      "src/client/index.ts":
        'import { heap } from "../core/heap.ts";\nexport const client = heap;\n',
    });
    assert.equal(r.ok, false);
    assert.match(r.output, /through-index-only: src\/client\/index\.ts → src\/core\/heap\.ts/);
  });

  it("refuses a module that imports testing (only tests may)", async () => {
    const r = await lint({
      ...core,
      "src/workqueue/queue.ts":
        'import { clock } from "../testing/index.ts";\nexport const q = clock;\n',
      "src/testing/index.ts": "export const clock = 1;\n",
    });
    assert.equal(r.ok, false);
    assert.match(r.output, /layer-workqueue: src\/workqueue\/queue\.ts → src\/testing\/index\.ts/);
  });

  it("refuses metrics importing another layer than core, its types included", async () => {
    const types = await lint({
      "src/metrics/index.ts":
        'import type { Provider } from "../workqueue/index.ts";\nexport type P = Provider;\n',
      "src/workqueue/index.ts": "export interface Provider { x: number }\n",
    });
    assert.equal(types.ok, false);
    assert.match(types.output, /layer-metrics/);
    const values = await lint({
      "src/metrics/index.ts":
        'import { provider } from "../workqueue/index.ts";\nexport const p = provider;\n',
      "src/workqueue/index.ts": "export const provider = 1;\n",
    });
    assert.equal(values.ok, false);
    assert.match(values.output, /layer-metrics/);
  });

  it("refuses an example importing the sources instead of the package", async () => {
    const r = await lint({
      ...core,
      "examples/app.ts": 'import { heap } from "../src/core/index.ts";\nexport const x = heap;\n',
    });
    assert.equal(r.ok, false);
    assert.match(r.output, /by-package-name/);
  });

  it("refuses an import cycle, also one closed only by type imports", async () => {
    const cycle = await lint({
      "src/core/index.ts": 'export { a } from "./a.ts";\n',
      "src/core/a.ts": 'import { b } from "./b.ts";\nexport const a = b;\n',
      "src/core/b.ts": 'import { a } from "./a.ts";\nexport const b = () => a;\n',
    });
    assert.equal(cycle.ok, false);
    assert.match(cycle.output, /no-circular/);
    const typeCycle = await lint({
      "src/core/index.ts": 'export { a } from "./a.ts";\n',
      "src/core/a.ts": 'import type { B } from "./b.ts";\nexport const a: B | 1 = 1;\n',
      "src/core/b.ts": 'import type { a } from "./a.ts";\nexport type B = typeof a;\n',
    });
    assert.equal(typeCycle.ok, false, typeCycle.output);
    assert.match(typeCycle.output, /no-circular/);
  });

  it("accepts API server sub-layers importing those before them, types included", async () => {
    const r = await lint({
      "src/apiserver/storage/storage.ts": "export interface KeyValue { key: string }\n",
      "src/apiserver/registry/store.ts":
        'import type { KeyValue } from "../storage/storage.ts";\nexport const key = (kv: KeyValue) => kv.key;\n',
      "src/apiserver/http/server.ts":
        'import { key } from "../registry/store.ts";\nexport const serve = key;\n',
    });
    assert.equal(r.ok, true, r.output);
  });

  it("refuses an upward import inside the API server, as between layers", async () => {
    const r = await lint({
      "src/apiserver/storage/memory.ts":
        'import { Registry } from "../registry/registry.ts";\nexport const m = Registry;\n',
      "src/apiserver/registry/registry.ts": "export const Registry = 1;\n",
    });
    assert.equal(r.ok, false);
    assert.match(
      r.output,
      /apiserver-storage: src\/apiserver\/storage\/memory\.ts → src\/apiserver\/registry\/registry\.ts/,
    );
  });

  it("refuses an upward import inside the API server even when it is type-only", async () => {
    const r = await lint({
      "src/apiserver/registry/store.ts":
        'import type { FieldManager } from "../managedfields/field-manager.ts";\nexport type F = FieldManager;\n',
      "src/apiserver/managedfields/field-manager.ts": "export interface FieldManager { x: 1 }\n",
    });
    assert.equal(r.ok, false);
    assert.match(r.output, /apiserver-registry: src\/apiserver\/registry\/store\.ts/);
  });

  it("refuses a folder under src/apiserver that is not a sub-layer", async () => {
    const r = await lint({
      "src/apiserver/storage/storage.ts": "export const s = 1;\n",
      "src/apiserver/util/x.ts":
        'import { s } from "../storage/storage.ts";\nexport const x = s;\n',
    });
    assert.equal(r.ok, false);
    assert.match(r.output, /apiserver-no-unknown-sublayer/);
  });

  it("refuses a folder under src/ that is not a layer", async () => {
    const r = await lint({
      ...core,
      "src/utils/index.ts": 'import { heap } from "../core/index.ts";\nexport const u = heap;\n',
    });
    assert.equal(r.ok, false);
    assert.match(r.output, /no-unknown-layer/);
  });
});
