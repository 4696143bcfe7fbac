/**
 * kubectl over HTTPS as each kind of user kube-apiserver authenticates: a static token file's
 * user, a client certificate's, a ServiceAccount token's (from `kubectl create token`), and
 * whoever `--as`/`--as-group` impersonates — `kubectl auth whoami` names each as kube does;
 * an unknown token is 401; impersonation without the right is refused with kube's 403.
 */
import assert from "node:assert/strict";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { kubeconfigFor } from "kontroller/apiserver";
import { embeddedOnly } from "kontroller/testing";
import { kubectlRig } from "./kubectl-rig.ts";

const TOKENS = 'alicetoken,alice,alice-uid,"devs,ops"\nbobtoken,bob,bob-uid\n';
// The server reads its token file when it starts, in the rig's before hook.
const tokenDir = await mkdtemp(join(tmpdir(), "kontroller-kubectl-authn-tokens-"));
const tokenAuthFile = join(tokenDir, "tokens.csv");
await writeFile(tokenAuthFile, TOKENS);
after(() => rm(tokenDir, { recursive: true, force: true }));

describe("kubectl authenticated as kube-apiserver authenticates", {
  skip: embeddedOnly("the test server gives kube-apiserver no token file of the test's"),
}, () => {
  const rig = kubectlRig("kubectl-authn", {
    authorization: "RBAC",
    anonymousAuth: false,
    tokenAuthFile,
  });
  const { kubectl, fails, file } = rig;

  /** A kubeconfig (its path) for the server with `user`'s credentials, trusting its CA. */
  async function kubeconfig(name: string, user: { token?: string } = {}): Promise<string> {
    return file(
      `${name}.kubeconfig`,
      kubeconfigFor(rig.server.url, { certificateAuthority: rig.server.ca!, ...user }),
    );
  }
  /** `kubectl auth whoami -o json` with another kubeconfig (and more flags): the user info. */
  async function whoami(config: string | undefined, ...flags: string[]) {
    const args = config === undefined ? [] : ["--kubeconfig", config];
    const out = await kubectl(...args, "auth", "whoami", "-o", "json", ...flags);
    return JSON.parse(out).status.userInfo;
  }

  it("knows the administrator by the server's kubeconfig's client certificate", async () => {
    const admin = await whoami(undefined);
    assert.equal(admin.username, "admin");
    assert.deepEqual(admin.groups, ["system:masters", "system:authenticated"]);
    // As kube-apiserver names a certificate: by its SHA-256.
    assert.match(
      admin.extra["authentication.kubernetes.io/credential-id"][0],
      /^X509SHA256=[0-9a-f]{64}$/,
    );
  });

  it("knows a minted client certificate's user, and a static token's", async () => {
    const jane = await rig.server.server.certificates!.ca.issueClientCertificate({
      user: "jane",
      groups: ["qa"],
    });
    const janeConfig = await file(
      "jane.kubeconfig",
      kubeconfigFor(rig.server.url, {
        certificateAuthority: rig.server.ca!,
        clientCertificate: jane,
      }),
    );
    const jane2 = await whoami(janeConfig);
    assert.equal(jane2.username, "jane");
    assert.deepEqual(jane2.groups, ["qa", "system:authenticated"]);
    assert.deepEqual(await whoami(await kubeconfig("alice", { token: "alicetoken" })), {
      username: "alice",
      uid: "alice-uid",
      groups: ["devs", "ops", "system:authenticated"],
    });
  });

  it("knows a ServiceAccount by the token kubectl create token asked for", async () => {
    await kubectl("create", "serviceaccount", "robot");
    const token = (await kubectl("create", "token", "robot")).trim();
    const who = await whoami(await kubeconfig("robot", { token }));
    assert.equal(who.username, "system:serviceaccount:default:robot");
    assert.deepEqual(who.groups, [
      "system:serviceaccounts",
      "system:serviceaccounts:default",
      "system:authenticated",
    ]);
    assert.match(who.extra["authentication.kubernetes.io/credential-id"][0], /^JTI=/);
  });

  it("acts as whoever --as and --as-group name, when the requester may impersonate", async () => {
    assert.deepEqual(await whoami(undefined, "--as", "jane", "--as-group", "devs"), {
      username: "jane",
      groups: ["devs", "system:authenticated"],
    });
    const sa = await whoami(undefined, "--as", "system:serviceaccount:default:robot");
    assert.deepEqual(sa.groups, [
      "system:serviceaccounts",
      "system:serviceaccounts:default",
      "system:authenticated",
    ]);
  });

  it("refuses --as to a user without the right, with kube's 403; RBAC then decides", async () => {
    const bob = await kubeconfig("bob", { token: "bobtoken" });
    // kubectl auth whoami words a 403 its own way (and kubectl get fails on discovery first);
    // kubectl get --raw prints the server's.
    const pods = "/api/v1/namespaces/default/pods";
    const refused = await fails("--kubeconfig", bob, "get", "--raw", pods, "--as", "jane");
    assert.match(
      refused,
      /Error from server \(Forbidden\): pods is forbidden: User "bob" cannot impersonate-on:user-info:list resource "pods" in API group "" in the namespace "default"/,
    );
    const role = await file(
      "impersonator.yaml",
      `apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata: {name: impersonate-jane}
rules:
- {apiGroups: [""], resources: [users], verbs: [impersonate], resourceNames: [jane]}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata: {name: bob-impersonates-jane}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: impersonate-jane}
subjects: [{apiGroup: rbac.authorization.k8s.io, kind: User, name: bob}]
`,
    );
    await kubectl("apply", "-f", role);
    assert.equal((await whoami(bob, "--as", "jane")).username, "jane");
    // The legacy mode allowed bob last: its refusal comes first now, as on kube-apiserver.
    const other = await fails("--kubeconfig", bob, "get", "--raw", pods, "--as", "joe");
    assert.match(
      other,
      /users "joe" is forbidden: User "bob" cannot impersonate resource "users" in API group "" at the cluster scope/,
    );
    const groups = await fails(
      "--kubeconfig",
      bob,
      "get",
      "--raw",
      pods,
      "--as",
      "jane",
      "--as-group",
      "system:masters",
    );
    assert.match(
      groups,
      /groups "system:masters" is forbidden: User "bob" cannot impersonate resource "groups"/,
    );
  });

  it("answers 401 to an unknown token", async () => {
    const unknown = await kubeconfig("unknown", { token: "alicetokeN" });
    assert.match(
      await fails("--kubeconfig", unknown, "get", "ns"),
      /error: You must be logged in to the server \((Unauthorized|the server has asked for the client to provide credentials)\)/,
    );
  });
});
