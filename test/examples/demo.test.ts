/**
 * `kontroller demo` as a user runs it: it prints where the server is, the example controllers
 * bring Users and HealthMonitors to their state (seen with kubectl), and Ctrl-C (SIGINT) stops
 * it cleanly with exit code 0.
 */
import assert from "node:assert/strict";
import { execFile, spawn } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import { createClient } from "kontroller/client";
import { waitFor } from "kontroller/testing";
import { HealthMonitor } from "../../examples/health-monitor/health-monitor.ts";
import { User } from "../../examples/user-namespace/user.ts";

const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..");

function kubectl(kubeconfig: string, args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile("kubectl", ["--kubeconfig", kubeconfig, ...args], (err, stdout, stderr) =>
      err
        ? reject(new Error(`kubectl ${args.join(" ")}: ${stderr || err.message}`))
        : resolve(stdout),
    );
  });
}

describe("kontroller demo", () => {
  it("runs the example controllers, answers kubectl, and stops on Ctrl-C with exit 0", async () => {
    const dir = await mkdtemp(join(tmpdir(), "kontroller-demo-test-"));
    const kubeconfig = join(dir, "kubeconfig");
    const demo = spawn(
      join(root, "node_modules", ".bin", "node"),
      [
        "--conditions=kontroller-source",
        join(root, "src", "cli", "kontroller.ts"),
        "demo",
        "--kubeconfig-out",
        kubeconfig,
        "--quiet",
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
      assert.match(out, new RegExp(`kubectl --kubeconfig ${kubeconfig} get users`));
      await using client = createClient({ url });
      await waitFor(
        client.resource(User),
        "ann",
        (u) => u?.status?.conditions?.[0]?.status === "True",
      );
      await waitFor(
        client.resource(HealthMonitor).inNamespace("default"),
        "legacy",
        (m) => m?.status?.healthy === false,
      );
      await waitFor(
        client.resource(HealthMonitor).inNamespace("default"),
        "checkout",
        (m) => m?.status?.healthy === true,
      );
      const users = await kubectl(kubeconfig, ["get", "users"]);
      assert.match(users, /ann\s+Ann Example\s+user-ann\s+True/);
      const nss = await kubectl(kubeconfig, ["get", "namespaces"]);
      assert.match(nss, /user-bob/);
    } finally {
      demo.kill("SIGINT");
      assert.equal(await exited, 0, err);
      await rm(dir, { recursive: true, force: true });
    }
    assert.match(out, /demo stopped/);
  });
});
