/**
 * kubectl against the embedded server with RBAC, as users whose client certificates the
 * server's CA mints: `auth can-i` (SelfSubjectAccessReview) and `auth can-i --list`
 * (SelfSubjectRulesReview) answer by what the user's bindings grant, and a refused command
 * prints kube's 403. And `kontroller serve`, which authorizes by RBAC by default.
 */
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { promisify } from "node:util";
import { kubeconfigFor } from "kontroller/apiserver";
import { embeddedOnly, type TestServer } from "kontroller/testing";
import { parse } from "yaml";
import { binding, RBAC, type Requester, rbacServer, requester, role } from "./rbac-rig.ts";
import { serve } from "./serve-rig.ts";

const run = promisify(execFile);

describe("kubectl with RBAC", {
  skip: embeddedOnly("its users are client certificates the embedded server's CA mints"),
}, () => {
  let dir = "";
  let s: TestServer | undefined;
  let admin: Requester;
  const env = () => ({ ...process.env, HOME: dir, KUBECACHEDIR: join(dir, "cache") });
  /** Runs kubectl as `user` (a kubeconfig with its client certificate): exit code and output. */
  const kubectlAs = async (user: string, ...args: string[]) => {
    const config = join(dir, `${user}.kubeconfig`);
    try {
      const { stdout } = await run("kubectl", ["--kubeconfig", config, ...args], {
        env: env(),
        timeout: 60_000,
      });
      return { code: 0, out: stdout };
    } catch (err) {
      // execFile's error carries the exit code and both outputs.
      if (!(err instanceof Error) || !("stdout" in err) || !("stderr" in err)) throw err;
      const code = "code" in err && typeof err.code === "number" ? err.code : -1;
      return { code, out: `${String(err.stdout)}${String(err.stderr)}` };
    }
  };
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), "kontroller-kubectl-rbac-"));
    const made = await rbacServer();
    s = made.s;
    admin = made.admin;
    const ca = s.server.certificates!.ca;
    for (const [user, groups] of [
      ["jane", ["dev"]],
      ["sam", []],
    ] as const) {
      const cert = await ca.issueClientCertificate({ user, groups: [...groups] });
      const config = kubeconfigFor(s.url, {
        certificateAuthority: s.ca!,
        clientCertificate: cert,
      });
      await writeFile(join(dir, `${user}.kubeconfig`), config, { mode: 0o600 });
    }
    await admin("POST", "/api/v1/namespaces", { metadata: { name: "team" } });
    const reader = role("Role", "pod-reader", [
      { verbs: ["get", "list", "watch"], apiGroups: [""], resources: ["pods", "pods/log"] },
    ]);
    await admin("POST", `${RBAC}/namespaces/team/roles`, reader);
    const grant = binding("RoleBinding", "devs", { kind: "Role", name: "pod-reader" }, "Group:dev");
    await admin("POST", `${RBAC}/namespaces/team/rolebindings`, grant);
  });
  after(async () => {
    await s?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it("answers auth can-i yes for what a binding grants and no (exit 1) for the rest", async () => {
    const yes = await kubectlAs("jane", "auth", "can-i", "list", "pods", "-n", "team");
    assert.deepEqual(yes, { code: 0, out: "yes\n" });
    assert.equal(
      (await kubectlAs("jane", "auth", "can-i", "get", "pods/log", "-n", "team")).out,
      "yes\n",
    );
    const no = await kubectlAs("jane", "auth", "can-i", "delete", "pods", "-n", "team");
    assert.equal(no.code, 1);
    assert.match(no.out, /^no\n/);
    assert.equal((await kubectlAs("sam", "auth", "can-i", "list", "pods", "-n", "team")).code, 1);
    assert.equal((await kubectlAs("jane", "auth", "can-i", "get", "/healthz")).out, "yes\n");
    assert.equal((await kubectlAs("jane", "auth", "can-i", "get", "/metrics")).code, 1);
  });

  it("lists the user's rules with auth can-i --list", async () => {
    const list = await kubectlAs("jane", "auth", "can-i", "--list", "-n", "team");
    assert.equal(list.code, 0, list.out);
    assert.match(list.out, /^Resources\s+Non-Resource URLs\s+Resource Names\s+Verbs\n/);
    assert.match(list.out, /\npods\s+\[\]\s+\[\]\s+\[get list watch\]\n/);
    assert.match(
      list.out,
      /\nselfsubjectaccessreviews\.authorization\.k8s\.io\s+\[\]\s+\[\]\s+\[create\]\n/,
    );
    assert.match(list.out, /\n\s+\[\/healthz\]\s+\[\]\s+\[get\]\n/);
    const sam = await kubectlAs("sam", "auth", "can-i", "--list", "-n", "team");
    assert.doesNotMatch(sam.out, /\npods\s/);
  });

  it("prints kube's 403 for a command the user may not run", async () => {
    const refused = await kubectlAs("sam", "get", "pods", "-n", "team");
    assert.equal(refused.code, 1);
    assert.match(
      refused.out,
      /Error from server \(Forbidden\): pods is forbidden: User "sam" cannot list resource "pods" in API group "" in the namespace "team"/,
    );
    assert.equal((await kubectlAs("jane", "get", "pods", "-n", "team")).code, 0);
  });
});

describe("kontroller serve --authorization-mode", () => {
  it("authorizes by RBAC by default: the kubeconfig's administrator may, a request without credentials may not", async () => {
    const dir = await mkdtemp(join(tmpdir(), "kontroller-serve-rbac-"));
    const served = serve([
      "--port",
      "0",
      "--controllers",
      "none",
      "--kubeconfig-out",
      join(dir, "kc"),
    ]);
    try {
      const url = await served.listening;
      // The CA and the administrator's certificate, from the kubeconfig the server wrote.
      const config = parse(await readFile(join(dir, "kc"), "utf8"));
      const ca = Buffer.from(
        config.clusters[0].cluster["certificate-authority-data"],
        "base64",
      ).toString();
      const cert = {
        certificatePem: Buffer.from(
          config.users[0].user["client-certificate-data"],
          "base64",
        ).toString(),
        privateKeyPem: Buffer.from(config.users[0].user["client-key-data"], "base64").toString(),
      };
      // Without credentials: refused (403 to the anonymous user; 401 where anonymous is off).
      const denied = await requester(url, ca)("GET", "/api/v1/namespaces");
      assert.ok([401, 403].includes(denied.status), String(denied.status));
      const allowed = await requester(url, ca, { cert })("GET", "/api/v1/namespaces");
      assert.equal(allowed.status, 200);
    } finally {
      await served.stop();
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("allows every request over --insecure-http without a token, saying so; refuses a bad mode", async () => {
    const plain = serve(["--port", "0", "--insecure-http", "--controllers", "none"]);
    try {
      const url = await plain.listening;
      assert.equal((await fetch(`${url}/api/v1/namespaces`)).status, 200);
      assert.match(plain.stderr(), /every request is allowed \(--authorization-mode AlwaysAllow\)/);
    } finally {
      await plain.stop();
    }
    for (const args of [
      ["--authorization-mode", "ABAC"],
      ["--authorization-mode", "RBAC", "--insecure-http"],
    ]) {
      const bad = serve(["--port", "0", ...args]);
      assert.equal(await bad.exited, 2, args.join(" "));
      assert.match(bad.stderr(), /kontroller serve: --authorization-mode/);
    }
  });
});
