/**
 * kubectl's commands that reach what the server answers without storing: `auth can-i`
 * (SelfSubjectAccessReview, sent as protobuf), `auth can-i --list` (SelfSubjectRulesReview),
 * `auth whoami` (SelfSubjectReview), `create token` (TokenRequest), `logs` and `get
 * componentstatuses`.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { embeddedOnly } from "kontroller/testing";
import { kubectlRig } from "./kubectl-rig.ts";

describe("kubectl auth, create token and logs", () => {
  const rig = kubectlRig("kubectl-auth");
  const { kubectl, fails, file } = rig;

  it("answers auth can-i: yes, and lists what the requester may do", async () => {
    assert.equal(await kubectl("auth", "can-i", "create", "pods"), "yes\n");
    assert.equal(await kubectl("auth", "can-i", "get", "/healthz"), "yes\n");
    const list = await kubectl("auth", "can-i", "--list");
    assert.match(list, /^Resources\s+Non-Resource URLs\s+Resource Names\s+Verbs\n/);
    assert.match(list, /\n\*\.\*\s+\[\]\s+\[\]\s+\[\*\]\n/);
  });

  it("answers auth whoami with the requester", async () => {
    const who = JSON.parse(await kubectl("auth", "whoami", "-o", "json"));
    assert.equal(who.kind, "SelfSubjectReview");
    assert.equal(typeof who.status.userInfo.username, "string");
    assert.match(await kubectl("auth", "whoami"), /^ATTRIBUTE\s+VALUE\nUsername\s+\S+\n/);
  });

  it("creates a token for a service account, and refuses a life under 10 minutes", async () => {
    await kubectl(
      "apply",
      "-f",
      await file("sa.yaml", "apiVersion: v1\nkind: ServiceAccount\nmetadata:\n  name: default\n"),
    );
    const token = (await kubectl("create", "token", "default")).trim();
    const parts = token.split(".");
    assert.equal(parts.length, 3);
    const claims = JSON.parse(Buffer.from(parts[1]!, "base64url").toString());
    assert.equal(claims.sub, "system:serviceaccount:default:default");
    const short = await fails("create", "token", "default", "--duration=10s");
    assert.match(short, /may not specify a duration less than 10 minutes/);
  });

  it("prints no logs for a pod not on a node yet, as kube-apiserver answers", async () => {
    await kubectl("run", "waiting", "--image=busybox");
    assert.equal(await kubectl("logs", "waiting"), "");
  });

  it("says why there are no logs of a pod on a node: the server runs no kubelet", {
    skip: embeddedOnly("kube-apiserver reaches for the node's kubelet"),
  }, async () => {
    const pod = await file(
      "placed.yaml",
      "apiVersion: v1\nkind: Pod\nmetadata:\n  name: placed\nspec:\n  nodeName: n1\n  containers:\n  - name: c\n    image: busybox\n",
    );
    await kubectl("apply", "-f", pod);
    const err = await fails("logs", "placed");
    assert.match(
      err,
      /Error from server \(ServiceUnavailable\): cannot read the logs of container "c" of pod default\/placed on node "n1": the embedded kontroller API server runs no kubelet/,
    );
  });

  it("prints the component statuses, the storage healthy", async () => {
    const out = await kubectl("get", "componentstatuses");
    assert.match(out, /^NAME\s+STATUS\s+MESSAGE\s+ERROR\n/);
    assert.match(out, /\n\S+\s+Healthy\s+ok\s*\n/);
  });
});
