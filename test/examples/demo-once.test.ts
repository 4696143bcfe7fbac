/**
 * `kontroller demo --once` stops by itself: once the example controllers have brought every demo
 * object to its state, it says so, shuts down cleanly and exits 0 — what a script or CI needs.
 */
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { once } from "node:events";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "node:test";

const cli = new URL("../../src/cli/kontroller.ts", import.meta.url).pathname;

async function demo(args: string[]): Promise<{ code: number | null; out: string; err: string }> {
  const child = spawn(process.execPath, ["--conditions=kontroller-source", cli, "demo", ...args], {
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  let err = "";
  child.stdout.on("data", (d: Buffer) => (out += d.toString()));
  child.stderr.on("data", (d: Buffer) => (err += d.toString()));
  const [code] = (await once(child, "exit")) as [number | null];
  return { code, out, err };
}

// No suite timeout of its own: on a loaded machine a demo run can take most of a minute, and
// each test keeps the runner's per-test timeout.
describe("kontroller demo --once", () => {
  it("stops by itself with exit code 0 once the controllers have reconciled the demo's objects", async () => {
    const dir = await mkdtemp(join(tmpdir(), "kontroller-demo-once-"));
    try {
      const { code, out, err } = await demo([
        "--quiet",
        "--once",
        "--kubeconfig-out",
        join(dir, "kubeconfig"),
        "--data-dir",
        join(dir, "users"),
      ]);
      assert.equal(code, 0, err);
      assert.match(
        out,
        /every User is Ready, every HealthMonitor probed, every pod that fits bound\ndemo stopped\n$/,
      );
      assert.doesNotMatch(out, /reconciles/, "--quiet prints no progress line");
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("is described in the help", async () => {
    const { code, out } = await demo(["--help"]);
    assert.equal(code, 0);
    assert.match(out, /--once\s+stop by itself/);
  });
});
