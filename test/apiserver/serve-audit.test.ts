/**
 * `kontroller serve --audit-log --audit-policy-file`, and `kontroller rbac from-audit` on the log
 * it wrote: the events are kube's, one a line; a policy kube-apiserver would refuse, or a log
 * that cannot be written, stops the start with kube's reason.
 */
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { mkdtemp, readFile, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { serve } from "./serve-rig.ts";

const cli = new URL("../../src/cli/kontroller.ts", import.meta.url).pathname;

function kontroller(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ["--conditions=kontroller-source", cli, ...args],
      (err, stdout, stderr) => resolve({ code: err ? Number(err.code ?? 1) : 0, stdout, stderr }),
    );
  });
}

const dir = await mkdtemp(join(tmpdir(), "kontroller-serve-audit-"));
after(() => rm(dir, { recursive: true, force: true }));

const POLICY = `apiVersion: audit.k8s.io/v1
kind: Policy
omitStages: [RequestReceived]
rules:
- level: None
  nonResourceURLs: ["/healthz*", "/readyz*", "/livez*"]
- level: RequestResponse
  resources: [{group: "", resources: [configmaps]}]
- level: Metadata
`;

const EXPECTED_RBAC = `apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: ops
rules:
- apiGroups:
  - ""
  resources:
  - configmaps
  verbs:
  - create
  - get
  - patch
- apiGroups:
  - ""
  resources:
  - pods
  verbs:
  - list
- apiGroups:
  - apps
  resources:
  - deployments/scale
  verbs:
  - get
- nonResourceURLs:
  - /metrics
  verbs:
  - get
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata:
  name: ops
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: ClusterRole
  name: ops
subjects:
- apiGroup: rbac.authorization.k8s.io
  kind: User
  name: ops
`;

// Each case starts a server process (seconds each on a loaded machine): the whole suite gets
// room, a cap against a hang rather than a speed bar.
describe("kontroller serve --audit-log", { timeout: 300_000 }, () => {
  it("writes kube's events by the policy, and rbac from-audit reads the rules back", async () => {
    const log = join(dir, "logs", "audit.log");
    const policy = join(dir, "policy.yaml");
    const tokens = join(dir, "tokens.csv");
    await writeFile(policy, POLICY);
    await writeFile(tokens, "ops-token,ops,ops-uid\n");
    const s = serve([
      "--port=0",
      "--insecure-http",
      "--token=admin-token",
      "--token-auth-file",
      tokens,
      "--authorization-mode=AlwaysAllow",
      "--controllers=none",
      `--audit-log=${log}`,
      `--audit-policy-file=${policy}`,
    ]);
    const url = await s.listening;
    const as = (token: string) => ({
      authorization: `Bearer ${token}`,
      "content-type": "application/json",
    });
    const send = async (path: string, init: RequestInit = {}, token = "ops-token") => {
      const res = await fetch(`${url}${path}`, {
        ...init,
        headers: { ...as(token), ...(init.headers as Record<string, string>) },
      });
      await res.arrayBuffer();
      return res;
    };
    const cm = "/api/v1/namespaces/default/configmaps";
    const created = await send(cm, {
      method: "POST",
      body: JSON.stringify({ metadata: { name: "c1" }, data: { a: "1" } }),
    });
    assert.equal(created.status, 201);
    assert.match(created.headers.get("audit-id") ?? "", /^[0-9a-f-]{36}$/);
    await send(`${cm}/c1`);
    await send(`${cm}/c1`, {
      method: "PATCH",
      headers: { "content-type": "application/merge-patch+json" },
      body: JSON.stringify({ data: { b: "2" } }),
    });
    await send("/api/v1/pods");
    await send("/apis/apps/v1/namespaces/default/deployments/web/scale");
    await send("/metrics");
    await send("/api"); // discovery: every authenticated user may, no rule needed
    await send("/healthz"); // level None
    await send("/api/v1/namespaces", {}, "admin-token"); // another user
    assert.equal(await s.stop(), 0);

    const lines = (await readFile(log, "utf8")).trimEnd().split("\n");
    const events = lines.map((l) => JSON.parse(l));
    assert.equal((await stat(log)).mode & 0o777, 0o600);
    assert.ok(events.every((e) => e.kind === "Event" && e.apiVersion === "audit.k8s.io/v1"));
    assert.ok(
      events.every((e) => e.stage === "ResponseComplete"),
      "RequestReceived is omitted",
    );
    assert.ok(!events.some((e) => e.requestURI === "/healthz"));
    const create = events.find((e) => e.verb === "create");
    assert.equal(create.level, "RequestResponse");
    assert.deepEqual(create.user, {
      username: "ops",
      uid: "ops-uid",
      groups: ["system:authenticated"],
    });
    assert.deepEqual(create.objectRef, {
      resource: "configmaps",
      namespace: "default",
      name: "c1",
      apiVersion: "v1",
    });
    assert.deepEqual(create.requestObject, { metadata: { name: "c1" }, data: { a: "1" } });
    assert.equal(create.responseObject.metadata.name, "c1");
    assert.deepEqual(create.responseStatus, { metadata: {}, code: 201 });
    const patch = events.find((e) => e.verb === "patch");
    assert.deepEqual(patch.requestObject, { data: { b: "2" } });
    const scale = events.find((e) => e.objectRef?.subresource === "scale");
    assert.equal(scale.level, "Metadata");
    assert.equal(scale.responseStatus.reason, "NotFound");
    assert.equal(scale.requestObject, undefined);

    const out = await kontroller(["rbac", "from-audit", log, "--user", "ops"]);
    assert.equal(out.stderr, "");
    assert.equal(out.stdout, EXPECTED_RBAC);
    const several = await kontroller(["rbac", "from-audit", log]);
    assert.equal(several.code, 1);
    assert.match(several.stderr, /records requests of 2 users: ops \(7\), admin \(1\)/);
  });

  it("refuses a policy kube-apiserver refuses, before it listens", async () => {
    const policy = join(dir, "bad-policy.yaml");
    await writeFile(
      policy,
      'apiVersion: audit.k8s.io/v1\nkind: Policy\nrules:\n- level: Loud\n- level: None\n  nonResourceURLs: ["healthz"]\n',
    );
    const s = serve([
      "--port=0",
      "--insecure-http",
      `--audit-log=${join(dir, "x.log")}`,
      `--audit-policy-file=${policy}`,
    ]);
    assert.equal(await s.exited, 2);
    assert.equal(
      s.stderr(),
      `kontroller serve: --audit-policy-file: audit policy: [rules[0].level: Unsupported value: "Loud": supported values: "None", "Metadata", "Request", "RequestResponse", rules[1].nonResourceURLs[0]: Invalid value: "healthz": non-resource URL rules must begin with a '/' character]: from file ${policy}\n`,
    );
    const empty = join(dir, "empty-policy.yaml");
    await writeFile(empty, "apiVersion: audit.k8s.io/v1\nkind: Policy\nrules: []\n");
    const e = serve([
      "--port=0",
      "--insecure-http",
      `--audit-log=${join(dir, "x.log")}`,
      `--audit-policy-file=${empty}`,
    ]);
    assert.equal(await e.exited, 2);
    assert.match(e.stderr(), /loaded illegal policy with 0 rules: from file /);
    const alone = serve(["--port=0", "--insecure-http", `--audit-policy-file=${empty}`]);
    assert.equal(await alone.exited, 2);
    assert.match(alone.stderr(), /--audit-policy-file needs --audit-log/);
  });

  it("refuses an audit log it cannot write, before it listens", async () => {
    const file = join(dir, "a-file");
    await writeFile(file, "");
    const s = serve(["--port=0", "--insecure-http", `--audit-log=${join(file, "audit.log")}`]);
    assert.equal(await s.exited, 1);
    assert.match(
      s.stderr(),
      /^kontroller serve: --audit-log: audit log .*a-file\/audit\.log: cannot open for writing: .*(EEXIST|ENOTDIR)/m,
    );
  });
});
