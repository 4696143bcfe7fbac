/**
 * `kontroller demo` runs the mini scheduler: `kubectl get pods -o wide` shows where each demo
 * pod landed (the database on the SSD node, nothing on the cordoned one, the oversized batch
 * job Pending), and a pod made with `kubectl run` (scheduler `default-scheduler`) is placed too.
 */
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import { createClient } from "kontroller/client";
import { pods } from "kontroller/resources";
import { waitFor } from "kontroller/testing";
import { deadline, kubectl, waitForList } from "./mini-scheduler-helpers.ts";

const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..");

describe("kontroller demo: the mini scheduler", () => {
  it("places the demo pods and kubectl run pods, as kubectl get pods -o wide shows", async () => {
    const dir = await mkdtemp(join(tmpdir(), "kontroller-demo-scheduler-"));
    const kubeconfig = join(dir, "kubeconfig");
    const demo = spawn(
      join(root, "node_modules", ".bin", "node"),
      [
        "--conditions=kontroller-source",
        join(root, "src", "cli", "kontroller.ts"),
        "demo",
        "--kubeconfig-out",
        kubeconfig,
        "--data-dir",
        join(dir, "users"),
        "--quiet",
        "--controllers",
        "none",
      ],
      { stdio: ["ignore", "pipe", "pipe"] },
    );
    let out = "";
    let err = "";
    demo.stderr.on("data", (d: Buffer) => {
      err += d;
    });
    const exited = new Promise<number | null>((resolve) =>
      demo.on("exit", (code) => resolve(code)),
    );
    const url = await new Promise<string>((resolve, reject) => {
      demo.stdout.on("data", (d: Buffer) => {
        out += d;
        const m = /listening on (http:\/\/\S+)/.exec(out);
        if (m && out.includes("Ctrl-C stops the demo.")) resolve(m[1]!);
      });
      void exited.then((code) => reject(new Error(`demo exited ${code}: ${err}`)));
    });
    try {
      assert.match(out, new RegExp(`kubectl --kubeconfig ${kubeconfig} get pods -o wide`));
      await using client = createClient({ url });
      const podClient = client.resource(pods, { namespace: "default" });
      const placed = await waitForList(podClient, (ps) =>
        ["web-1", "web-2", "web-3", "db-1"].every((n) =>
          ps.some((p) => p.metadata?.name === n && p.spec?.nodeName),
        ),
      );
      const where = new Map(placed.map((p) => [p.metadata?.name, p.spec?.nodeName]));
      assert.equal(where.get("db-1"), "node-large");
      assert.ok(![...where.values()].includes("node-maintenance"));
      await kubectl(kubeconfig, ["run", "hello", "--image=nginx", "--restart=Never"]);
      await waitFor(podClient, "hello", (p) => Boolean(p?.spec?.nodeName), { signal: deadline() });
      const wide = await kubectl(kubeconfig, ["get", "pods", "-o", "wide"]);
      assert.match(wide, /\ndb-1\s+0\/1\s+Pending\s+0\s+\S+\s+<none>\s+node-large\s/);
      assert.match(wide, /\nbatch-1\s+0\/1\s+Pending\s+0\s+\S+\s+<none>\s+<none>\s/);
      assert.match(wide, /\nhello\s+0\/1\s+Pending\s+0\s+\S+\s+<none>\s+node-(small|large)\s/);
      const nodesTable = await kubectl(kubeconfig, ["get", "nodes"]);
      assert.match(nodesTable, /\nnode-maintenance\s+Ready,SchedulingDisabled\s/);
    } finally {
      demo.kill("SIGINT");
      assert.equal(await exited, 0, err);
      await rm(dir, { recursive: true, force: true });
    }
    assert.match(out, /demo stopped/);
  });
});
