import assert from "node:assert/strict";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "node:test";
import { serve } from "./serve-rig.ts";

describe("kontroller serve", () => {
  it("prints the listening line, writes a kubeconfig, requires the token and stops cleanly on SIGTERM", async () => {
    const dir = await mkdtemp(join(tmpdir(), "kontroller-serve-"));
    try {
      const kubeconfig = join(dir, "kubeconfig");
      const s = serve([
        "--port",
        "0",
        "--insecure-http",
        "--token",
        "t0k",
        "--kubeconfig-out",
        kubeconfig,
      ]);
      const url = await s.listening;
      const written = await readFile(kubeconfig, "utf8");
      assert.match(written, new RegExp(`server: ${url}`));
      assert.match(written, /token: t0k/);
      assert.match(written, /current-context: kontroller/);
      assert.match(s.stderr(), /--insecure-http: serving plain HTTP on loopback/);
      assert.equal((await fetch(`${url}/version`)).status, 401);
      assert.equal(
        (await fetch(`${url}/version`, { headers: { authorization: "Bearer t0k" } })).status,
        200,
      );
      s.child.kill("SIGTERM");
      assert.equal(await s.exited, 0);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("stops cleanly on SIGINT, bare (--controllers none) on the host it is given", async () => {
    const s = serve([
      "--port",
      "0",
      "--insecure-http",
      "--host",
      "127.0.0.1",
      "--controllers",
      "none",
    ]);
    const url = await s.listening;
    const created = await fetch(`${url}/api/v1/namespaces`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ metadata: { name: "sigint" } }),
    });
    assert.equal(created.status, 201);
    s.child.kill("SIGINT");
    assert.equal(await s.exited, 0);
    await assert.rejects(fetch(`${url}/version`), "nothing listens any more");
  });

  it("refuses bad flags with exit code 2 and a message", async () => {
    for (const args of [
      ["--port", "70000"],
      ["--storage", "etcd"],
      ["--bogus"],
      ["--insecure-http", "--cert-dir", "/tmp/x"],
    ]) {
      const s = serve(args);
      assert.equal(await s.exited, 2, args.join(" "));
      assert.match(s.stderr(), /kontroller serve: /);
    }
  });
});
