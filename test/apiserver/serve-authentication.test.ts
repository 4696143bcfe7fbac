/**
 * `kontroller serve`'s authentication flags: `--token-auth-file` (kube's CSV; a file kube would
 * refuse is refused in its words before anything starts), anonymous requests off by default
 * (401, as kube-apiserver with --anonymous-auth=false) and on with `--anonymous-auth`, where
 * RBAC then decides what the anonymous user may do.
 */
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { request } from "node:https";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { promisify } from "node:util";
import { kubeconfigFor } from "kontroller/apiserver";
import { parse } from "yaml";
import type { Loose } from "./helpers.ts";
import { type Served, serve } from "./serve-rig.ts";

const run = promisify(execFile);

describe("kontroller serve authentication", () => {
  let dir = "";
  const served: Served[] = [];
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), "kontroller-serve-authn-"));
  });
  after(async () => {
    for (const s of served) await s.stop();
    await rm(dir, { recursive: true, force: true });
  });

  /** Starts `kontroller serve` with `args` (no controllers) and its kubeconfig; the URL and CA. */
  async function start(name: string, ...args: string[]) {
    const out = join(dir, `${name}.kubeconfig`);
    const s = serve(["--port", "0", "--controllers", "none", "--kubeconfig-out", out, ...args]);
    served.push(s);
    const url = await s.listening;
    const config = parse(await readFile(out, "utf8"));
    const ca = Buffer.from(
      config.clusters[0].cluster["certificate-authority-data"],
      "base64",
    ).toString();
    return { url, ca, admin: out, served: s };
  }
  /** kubectl with a kubeconfig for `url` that trusts `ca` and carries `token`. */
  async function kubectl(url: string, ca: string, token: string, ...args: string[]) {
    const config = join(dir, `kc-${Math.random().toString(36).slice(2)}`);
    await writeFile(config, kubeconfigFor(url, { certificateAuthority: ca, token }));
    try {
      const { stdout } = await run("kubectl", ["--kubeconfig", config, ...args], {
        env: { ...process.env, HOME: dir, KUBECACHEDIR: join(dir, "cache") },
        timeout: 60_000,
      });
      return { ok: true, out: stdout };
    } catch (err) {
      return { ok: false, out: String((err as { stderr?: string }).stderr) };
    }
  }
  /**
   * A GET without credentials (kubectl asks for a user name and password on a terminal when its
   * kubeconfig has none, so it cannot send one): the status and the JSON body.
   */
  function get(url: string, ca: string, path: string): Promise<{ status: number; body: Loose }> {
    return new Promise((resolve, reject) => {
      const req = request(`${url}${path}`, { ca, agent: false }, (res) => {
        let text = "";
        res.setEncoding("utf8");
        res.on("data", (c: string) => {
          text += c;
        });
        res.on("end", () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) }));
      });
      req.on("error", reject);
      req.end();
    });
  }

  it("authenticates the token file's users and refuses requests without credentials", async () => {
    const tokens = join(dir, "tokens.csv");
    await writeFile(tokens, 'alicetoken,alice,alice-uid,"devs,ops"\n');
    const { url, ca } = await start("file", "--token-auth-file", tokens);
    const who = await kubectl(url, ca, "alicetoken", "auth", "whoami", "-o", "json");
    assert.ok(who.ok, who.out);
    assert.deepEqual(JSON.parse(who.out).status.userInfo, {
      username: "alice",
      uid: "alice-uid",
      groups: ["devs", "ops", "system:authenticated"],
    });
    const refused = await kubectl(url, ca, "alicetokeN", "get", "ns");
    assert.match(
      refused.out,
      /error: You must be logged in to the server \((Unauthorized|the server has asked for the client to provide credentials)\)/,
    );
    assert.deepEqual(await get(url, ca, "/api/v1/namespaces"), {
      status: 401,
      body: {
        kind: "Status",
        apiVersion: "v1",
        metadata: {},
        status: "Failure",
        message: "Unauthorized",
        reason: "Unauthorized",
        code: 401,
      },
    });
  });

  it("lets anonymous requests in with --anonymous-auth, for RBAC to decide", async () => {
    const { url, ca, admin } = await start("anonymous", "--anonymous-auth");
    assert.equal((await get(url, ca, "/version")).status, 200);
    const denied = await get(url, ca, "/api/v1/namespaces");
    assert.equal(denied.status, 403);
    assert.equal(
      denied.body.message,
      'namespaces is forbidden: User "system:anonymous" cannot list resource "namespaces" in API group "" at the cluster scope',
    );
    const { stdout } = await run("kubectl", ["--kubeconfig", admin, "get", "ns", "-o", "name"], {
      env: { ...process.env, HOME: dir, KUBECACHEDIR: join(dir, "cache") },
    });
    assert.match(stdout, /namespace\/default/);
  });

  it("refuses a token file kube-apiserver would refuse, in kube's words", async () => {
    const bad = join(dir, "bad.csv");
    await writeFile(bad, "a,b\n");
    const s = serve(["--port", "0", "--controllers", "none", "--token-auth-file", bad]);
    assert.equal(await s.exited, 2);
    assert.equal(
      s.stderr(),
      `kontroller serve: --token-auth-file: token file '${bad}' must have at least 3 columns (token, user name, user uid), found 2\n`,
    );
    const missing = serve(["--port", "0", "--token-auth-file", join(dir, "none.csv")]);
    assert.equal(await missing.exited, 2);
    assert.match(missing.stderr(), /open .*none\.csv: no such file or directory/);
  });
});
