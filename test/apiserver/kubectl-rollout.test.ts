/**
 * `kubectl rollout history` against the server: kubectl reads a Deployment's ReplicaSets (the
 * ones it controls, by owner reference and selector) and prints their revisions and change
 * causes, or one revision's pod template. The ReplicaSets are written by the test, as the
 * deployment controller (not part of the server) would. Runs on both backends.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { call } from "./helpers.ts";
import { kubectlRig } from "./kubectl-rig.ts";

const rig = kubectlRig("rollout", { controllers: false });
const APPS = "/apis/apps/v1/namespaces/default";

const template = (hash: string, image: string) => ({
  metadata: { labels: { app: "web", "pod-template-hash": hash } },
  spec: { containers: [{ name: "c", image }] },
});

describe("kubectl rollout", () => {
  it("history lists a Deployment's revisions from its ReplicaSets, and shows one", async () => {
    const url = rig.server.url;
    const deployment = await call(url, "POST", `${APPS}/deployments`, {
      apiVersion: "apps/v1",
      kind: "Deployment",
      metadata: { name: "web", annotations: { "deployment.kubernetes.io/revision": "2" } },
      spec: {
        selector: { matchLabels: { app: "web" } },
        template: { metadata: { labels: { app: "web" } }, spec: template("", "nginx:2").spec },
      },
    });
    assert.equal(deployment.status, 201, JSON.stringify(deployment.body));
    const owner = {
      apiVersion: "apps/v1",
      kind: "Deployment",
      name: "web",
      uid: deployment.body.metadata.uid,
      controller: true,
    };
    for (const [revision, hash, image] of [
      ["1", "aaa", "nginx:1"],
      ["2", "bbb", "nginx:2"],
    ] as const) {
      const rs = await call(url, "POST", `${APPS}/replicasets`, {
        apiVersion: "apps/v1",
        kind: "ReplicaSet",
        metadata: {
          name: `web-${hash}`,
          labels: { app: "web", "pod-template-hash": hash },
          annotations: {
            "deployment.kubernetes.io/revision": revision,
            "kubernetes.io/change-cause": `set image ${image}`,
          },
          ownerReferences: [owner],
        },
        spec: {
          selector: { matchLabels: { app: "web", "pod-template-hash": hash } },
          template: template(hash, image),
        },
      });
      assert.equal(rs.status, 201, JSON.stringify(rs.body));
    }
    const history = await rig.kubectl("rollout", "history", "deployment/web");
    assert.match(history, /REVISION\s+CHANGE-CAUSE\n1\s+set image nginx:1\n2\s+set image nginx:2/);
    const one = await rig.kubectl("rollout", "history", "deployment/web", "--revision=1");
    assert.match(one, /with revision #1/);
    assert.match(one, /Image:\s+nginx:1/);
  });
});
