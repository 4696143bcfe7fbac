/**
 * The examples' `main.ts` as an operator runs them: a process with a Manager against a server,
 * stopped by SIGTERM (as Kubernetes stops a pod) or SIGINT (Ctrl-C). Each reconciles while it
 * runs, then stops cleanly — the manager logs that it stopped — and exits with code 0.
 */
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "node:test";
import { createClient } from "kontroller/client";
import { customResourceDefinitions, isEstablished } from "kontroller/resources";
import { startTestServer, waitFor } from "kontroller/testing";
import { HealthMonitor } from "../../examples/health-monitor/health-monitor.ts";
import { User } from "../../examples/user-namespace/user.ts";

const examples = new URL("../../examples/", import.meta.url).pathname;

/** Runs an example's main.ts; resolves `exited` with its exit code. */
function runMain(example: string, args: string[]) {
  const child = spawn(
    process.execPath,
    ["--conditions=kontroller-source", join(examples, example, "main.ts"), ...args],
    { stdio: ["ignore", "ignore", "pipe"] },
  );
  let stderr = "";
  child.stderr.on("data", (d: Buffer) => {
    stderr += d;
  });
  const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
  return { child, exited, stderr: () => stderr };
}

describe("examples' main.ts", { timeout: 60_000 }, () => {
  it("user-namespace: reconciles, then SIGTERM stops it cleanly with exit code 0", async (t) => {
    await using server = await startTestServer();
    await using client = createClient({ url: server.url });
    const dataDir = await mkdtemp(join(tmpdir(), "kontroller-main-"));
    const main = runMain("user-namespace", ["--url", server.url, "--data-dir", dataDir]);
    try {
      // main.ts installs the CRD; once it is served, a User gets reconciled.
      await waitFor(
        client.resource(customResourceDefinitions),
        "users.example.com",
        (crd) => crd !== undefined && isEstablished(crd),
        { signal: t.signal },
      );
      await client
        .resource(User)
        .create(User.object({ metadata: { name: "ann" }, spec: { displayName: "Ann" } }));
      await waitFor(
        client.resource(User),
        "ann",
        (u) => u?.status?.conditions?.[0]?.status === "True",
        { signal: t.signal },
      );
      main.child.kill("SIGTERM");
      assert.equal(await main.exited, 0, main.stderr());
      assert.match(main.stderr(), /"msg":"manager stopped"/);
    } finally {
      main.child.kill("SIGKILL");
      await rm(dataDir, { recursive: true, force: true });
    }
  });

  it("health-monitor: probes, then SIGINT (Ctrl-C) stops it cleanly with exit code 0", async (t) => {
    await using server = await startTestServer({ controllers: false });
    await using client = createClient({ url: server.url });
    const main = runMain("health-monitor", ["--url", server.url]);
    try {
      const monitors = client.resource(HealthMonitor).inNamespace("default");
      await waitFor(
        client.resource(customResourceDefinitions),
        "healthmonitors.example.com",
        (crd) => crd !== undefined && isEstablished(crd),
        { signal: t.signal },
      );
      // Nothing listens on port 1: the probe fails, and says so in the status.
      await monitors.create(
        HealthMonitor.object({
          metadata: { name: "nowhere", namespace: "default" },
          spec: { url: "http://127.0.0.1:1/", intervalSeconds: 60, active: true },
        }),
      );
      await waitFor(monitors, "nowhere", (m) => m?.status?.healthy === false, {
        signal: t.signal,
      });
      main.child.kill("SIGINT");
      assert.equal(await main.exited, 0, main.stderr());
      assert.match(main.stderr(), /"msg":"manager stopped"/);
    } finally {
      main.child.kill("SIGKILL");
    }
  });
});
