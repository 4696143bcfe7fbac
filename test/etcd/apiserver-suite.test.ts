/**
 * The whole black-box API server suite (test/apiserver), run again with every test server on
 * its own throwaway etcd instead of memory: `KONTROLLER_TEST_STORAGE=etcd` makes
 * `startTestServer` start one. Files that start no test server (the CLI's) are left out.
 */
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { once } from "node:events";
import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { it } from "node:test";

const root = join(import.meta.dirname, "..", "..");
const suite = join(root, "test", "apiserver");

// A whole suite in one test: each of its tests is bounded by the child's own per-test timeout, so
// this one is bounded by their number, not by the runner's per-test 120 s.
it("passes the API server black-box suite on etcd", { timeout: 900_000 }, async () => {
  const files: string[] = [];
  for (const name of (await readdir(suite)).sort()) {
    if (!name.endsWith(".test.ts")) continue;
    const text = await readFile(join(suite, name), "utf8");
    // A suite starts its servers itself or through the kubectl rig.
    if (/startTestServer|kubectlRig\(/.test(text)) files.push(join("test", "apiserver", name));
  }
  assert.ok(files.length >= 5, `found only ${files.length} suite files in ${suite}`);
  const child = spawn(
    process.execPath,
    // The same per-test timeout as npm test: a test that hangs fails instead of holding CI.
    [
      "--conditions=kontroller-source",
      "--test",
      "--test-concurrency=2",
      "--test-timeout=120000",
      ...files,
    ],
    {
      cwd: root,
      env: { ...process.env, KONTROLLER_TEST_STORAGE: "etcd", NODE_TEST_CONTEXT: undefined },
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
  let out = "";
  child.stdout.setEncoding("utf8").on("data", (s: string) => {
    out += s;
  });
  child.stderr.setEncoding("utf8").on("data", (s: string) => {
    out += s;
  });
  const [code] = (await once(child, "exit")) as [number | null];
  const summary = /ℹ tests (\d+)[\s\S]*ℹ pass (\d+)[\s\S]*ℹ fail (\d+)/.exec(out);
  assert.ok(summary, `no test summary from the suite:\n${out.slice(-4000)}`);
  const failures = out
    .split("\n")
    .filter((l) => /^\s*✖/.test(l))
    .join("\n");
  assert.equal(summary[3], "0", `failed on etcd:\n${failures}\n\n${out.slice(-6000)}`);
  assert.equal(code, 0, out.slice(-4000));
  assert.ok(Number(summary[2]) >= 40, `only ${summary[2]} tests ran:\n${out.slice(-2000)}`);
});
