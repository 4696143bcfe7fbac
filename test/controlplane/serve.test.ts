/**
 * `kontroller serve` runs the control plane against its server unless `--controllers=none`.
 */
import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "node:test";
import { silentLogger } from "kontroller/cache";
import { createClient } from "kontroller/client";
import { startControlPlane } from "kontroller/controlplane";
import { configMaps, namespaces } from "kontroller/resources";
import { waitFor } from "kontroller/testing";
import { serve } from "../apiserver/serve-rig.ts";
import { ownerRef } from "./helpers.ts";

describe("kontroller serve --controllers", { timeout: 60_000 }, () => {
  it("collects garbage and finalizes namespaces by default, with a token", async () => {
    const dir = await mkdtemp(join(tmpdir(), "kontroller-serve-cp-"));
    const s = serve(["--port", "0", "--token", "t0k", "--kubeconfig-out", join(dir, "kubeconfig")]);
    try {
      await s.listening;
      await using client = createClient({ kubeconfig: join(dir, "kubeconfig") });
      const cms = client.resource(configMaps, { namespace: "default" });
      const owner = await cms.create({ metadata: { name: "owner" } });
      await cms.create({ metadata: { name: "child", ownerReferences: [ownerRef(owner)] } });
      await cms.delete("owner");
      await waitFor(cms, "child", (c) => c === undefined);
      await client.resource(namespaces).create({ metadata: { name: "tmp" } });
      await client.resource(namespaces).delete("tmp");
      await waitFor(client.resource(namespaces), "tmp", (n) => n === undefined);
      s.child.kill("SIGTERM");
      assert.equal(await s.exited, 0);
      assert.equal(s.stderr(), "", "nothing went wrong");
    } finally {
      s.child.kill("SIGKILL");
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("leaves the work to others with --controllers=none", async () => {
    const s = serve(["--port", "0", "--insecure-http", "--controllers=none"]);
    try {
      const url = await s.listening;
      await using client = createClient({ url });
      await client.resource(namespaces).create({ metadata: { name: "tmp" } });
      const deleting = await client.resource(namespaces).delete("tmp");
      assert.equal((deleting as { status?: { phase?: string } }).status?.phase, "Terminating");
      await using _cp = await startControlPlane({ clientOptions: { url }, logger: silentLogger });
      await waitFor(client.resource(namespaces), "tmp", (n) => n === undefined);
      s.child.kill("SIGTERM");
      assert.equal(await s.exited, 0);
    } finally {
      s.child.kill("SIGKILL");
    }
  });

  it("refuses a bad --controllers value with exit code 2", async () => {
    const s = serve(["--port", "0", "--controllers=some"]);
    s.listening.catch(() => {});
    assert.equal(await s.exited, 2);
    assert.match(s.stderr(), /--controllers must be "all" or "none", got "some"/);
  });
});
