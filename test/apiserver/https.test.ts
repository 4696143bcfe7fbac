/**
 * The embedded server over HTTPS (`tls`): its CA verifies it, client certificates it mints
 * authenticate their users, and kubectl works with the test server's kubeconfig.
 */
import assert from "node:assert/strict";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { request } from "node:https";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "node:test";
import { AuthenticationV1Api, CoreV1Api, KubeConfig } from "@kubernetes/client-node";
import { ApiServer, type KeyCertificate, kubeconfigFor } from "kontroller/apiserver";
import { createClient } from "kontroller/client";
import { InvalidOptionError } from "kontroller/core";
import { namespaces } from "kontroller/resources";
import { startTestServer, waitFor } from "kontroller/testing";
import { kubectlRig } from "./kubectl-rig.ts";

/** Who the server says the requester is (a SelfSubjectReview), and the status code. */
function whoami(
  url: string,
  ca: string,
  client?: KeyCertificate,
  token?: string,
): Promise<{ status: number; user?: { username: string; groups: string[] } }> {
  const body = JSON.stringify({
    apiVersion: "authentication.k8s.io/v1",
    kind: "SelfSubjectReview",
  });
  return new Promise((resolve, reject) => {
    const req = request(
      `${url}/apis/authentication.k8s.io/v1/selfsubjectreviews`,
      {
        method: "POST",
        ca,
        agent: false,
        headers: {
          "content-type": "application/json",
          ...(token === undefined ? {} : { authorization: `Bearer ${token}` }),
        },
        ...(client === undefined ? {} : { cert: client.certificatePem, key: client.privateKeyPem }),
      },
      (res) => {
        let text = "";
        res.setEncoding("utf8");
        res.on("data", (c: string) => {
          text += c;
        });
        res.on("end", () =>
          resolve({ status: res.statusCode ?? 0, user: JSON.parse(text).status?.userInfo }),
        );
      },
    );
    req.on("error", reject);
    req.end(body);
  });
}

describe("the embedded server over HTTPS", () => {
  it("is verified by its CA and takes the users of the client certificates it mints", async () => {
    await using s = await startTestServer({ tls: {}, token: "t0k", controllers: false });
    assert.match(s.url, /^https:\/\/127\.0\.0\.1:\d+$/);
    const ca = s.ca!;
    assert.equal(ca, s.server.certificates?.ca.certificatePem);
    const jane = await s.server.certificates!.ca.issueClientCertificate({
      user: "jane",
      groups: ["dev"],
    });
    const asJane = await whoami(s.url, ca, jane);
    assert.equal(asJane.status, 201);
    assert.equal(asJane.user?.username, "jane");
    assert.deepEqual(asJane.user?.groups, ["dev", "system:authenticated"]);
    assert.equal((await whoami(s.url, ca, undefined, "t0k")).user?.username, "admin");
    // With a shared token, a request with neither credential is not authenticated.
    assert.equal((await whoami(s.url, ca)).status, 401);
  });

  it("serves kontroller/client with the test server's kubeconfig, as the administrator", async () => {
    await using s = await startTestServer({ tls: {} });
    const client = createClient({ kubeconfig: s.kubeconfigPath });
    try {
      const ns = client.resource(namespaces);
      await ns.create({ metadata: { name: "tls-client" } });
      const list = await ns.list();
      assert.ok(list.items.some((n) => n.metadata?.name === "tls-client"));
      // The control plane reaches it over HTTPS too: its namespace controller ends a deletion.
      await ns.delete("tls-client");
      await waitFor(ns, "tls-client", (n) => n === undefined);
    } finally {
      await client.close();
    }
  });

  it("serves @kubernetes/client-node with the test server's kubeconfig", async () => {
    await using s = await startTestServer({ tls: {}, controllers: false });
    const kc = new KubeConfig();
    kc.loadFromString(s.kubeconfig);
    const core = kc.makeApiClient(CoreV1Api);
    await core.createNamespace({ body: { metadata: { name: "tls-peer" } } });
    const list = await core.listNamespace();
    assert.ok(list.items.some((ns) => ns.metadata?.name === "tls-peer"));
  });

  it("serves @kubernetes/client-node with a static token and a ServiceAccount token", async () => {
    const dir = await mkdtemp(join(tmpdir(), "kontroller-https-tokens-"));
    try {
      const tokenAuthFile = join(dir, "tokens.csv");
      await writeFile(tokenAuthFile, "alicetoken,alice,alice-uid,devs\n");
      await using s = await startTestServer({ tls: {}, controllers: false, tokenAuthFile });
      /** client-node with a kubeconfig that trusts the CA and carries `token`. */
      const as = (token: string) => {
        const kc = new KubeConfig();
        kc.loadFromString(kubeconfigFor(s.url, { certificateAuthority: s.ca!, token }));
        return kc;
      };
      const admin = new KubeConfig();
      admin.loadFromString(s.kubeconfig);
      const core = admin.makeApiClient(CoreV1Api);
      await core.createNamespacedServiceAccount({
        namespace: "default",
        body: { metadata: { name: "robot" } },
      });
      const issued = await core.createNamespacedServiceAccountToken({
        name: "robot",
        namespace: "default",
        body: { spec: { audiences: [] } },
      });
      /** The user a SelfSubjectReview names, as plain JSON (client-node's has undefined fields). */
      const who = async (kc: KubeConfig) => {
        const api = kc.makeApiClient(AuthenticationV1Api);
        const review = await api.createSelfSubjectReview({ body: {} });
        return JSON.parse(JSON.stringify(review.status?.userInfo));
      };
      assert.deepEqual(await who(as("alicetoken")), {
        username: "alice",
        uid: "alice-uid",
        groups: ["devs", "system:authenticated"],
      });
      const robot = await who(as(issued.status!.token!));
      assert.equal(robot?.username, "system:serviceaccount:default:robot");
      await assert.rejects(who(as("alicetokeN")), (err: { code?: number }) => err.code === 401);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("refuses plain HTTP on an address other than loopback", () => {
    assert.throws(
      () => new ApiServer({ host: "0.0.0.0" }),
      (err: unknown) =>
        err instanceof InvalidOptionError && /serves plain HTTP only on loopback/.test(err.message),
    );
    assert.doesNotThrow(() => new ApiServer({ host: "0.0.0.0", tls: {} }));
    assert.doesNotThrow(() => new ApiServer({ host: "::1" }));
  });
});

describe("kubectl over HTTPS", () => {
  const { kubectl } = kubectlRig("kubectl-https", { tls: {} });

  it("gets and creates namespaces, verifying the server by the kubeconfig's CA", async () => {
    assert.match(await kubectl("create", "namespace", "tls-ns"), /namespace\/tls-ns created/);
    assert.match(await kubectl("get", "ns"), /\ntls-ns\s+Active\s/);
    const who = JSON.parse(await kubectl("auth", "whoami", "-o", "json")).status.userInfo;
    assert.equal(who.username, "admin");
    assert.deepEqual(who.groups, ["system:masters", "system:authenticated"]);
  });
});
