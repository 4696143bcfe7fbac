/**
 * `kontroller demo` runs the control plane: deleting a User takes its namespace with it (the
 * namespace is owned by the User: the garbage collector deletes it, the namespace controller
 * empties and finalizes it).
 */
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "node:test";
import { createClient } from "kontroller/client";
import { namespaces, resourceDefinition } from "kontroller/resources";
import { waitFor } from "kontroller/testing";

const cli = new URL("../../src/cli/kontroller.ts", import.meta.url).pathname;
const users = resourceDefinition({
  group: "example.com",
  version: "v1",
  kind: "User",
  plural: "users",
  scope: "Cluster",
});

function demo(args: string[]) {
  const child = spawn(process.execPath, ["--conditions=kontroller-source", cli, "demo", ...args], {
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  let err = "";
  child.stderr.on("data", (d: Buffer) => {
    err += d;
  });
  const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
  const ready = new Promise<void>((resolve, reject) => {
    child.stdout.on("data", (d: Buffer) => {
      out += d;
      if (out.includes("Ctrl-C stops the demo.")) resolve();
    });
    void exited.then((code) => reject(new Error(`demo exited ${code}: ${err}`)));
  });
  return { child, ready, exited, stderr: () => err };
}

describe("kontroller demo runs the control plane", { timeout: 60_000 }, () => {
  it("deletes a User's namespace with the User", async () => {
    const dir = await mkdtemp(join(tmpdir(), "kontroller-demo-cp-"));
    const kubeconfig = join(dir, "kubeconfig");
    const d = demo(["--port", "0", "--quiet", "--kubeconfig-out", kubeconfig]);
    try {
      await d.ready;
      await using client = createClient({ kubeconfig });
      await waitFor(client.resource(namespaces), "user-ann", (n) => n !== undefined);
      await client.resource(users).delete("ann");
      await waitFor(client.resource(users), "ann", (u) => u === undefined);
      await waitFor(client.resource(namespaces), "user-ann", (n) => n === undefined);
      d.child.kill("SIGINT");
      assert.equal(await d.exited, 0);
    } finally {
      d.child.kill("SIGKILL");
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("refuses a bad --controllers value with exit code 2", async () => {
    const d = demo(["--controllers=maybe"]);
    d.ready.catch(() => {});
    assert.equal(await d.exited, 2);
    assert.match(d.stderr(), /--controllers must be all or none, got maybe/);
  });
});
