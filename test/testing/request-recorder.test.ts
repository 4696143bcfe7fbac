/**
 * The testing module's RequestRecorder: a controller run under a ServiceAccount's token against
 * a recorded test server, and the smallest RBAC its requests need — the rules a manifest must
 * hold, read from what the controller did. Applied to a server with RBAC enforced, those rules
 * let the same controller work.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { type Client, createClient } from "kontroller/client";
import { controller, createOrUpdate, Manager } from "kontroller/controller";
import { configMaps, namespaces, secrets, serviceAccounts } from "kontroller/resources";
import {
  embeddedOnly,
  RequestRecorder,
  startTestServer,
  type TestServer,
  waitFor,
} from "kontroller/testing";
import { parse as parseYaml } from "yaml";

const NS = "shop";
const SA = { kind: "ServiceAccount", namespace: NS, name: "mirror" } as const;

/** A token of the service account, from the server's TokenRequest. */
async function tokenOf(s: TestServer, admin: Client, adminToken?: string): Promise<string> {
  await admin.resource(namespaces).create({ metadata: { name: NS } });
  await admin.resource(serviceAccounts, { namespace: NS }).create({ metadata: { name: SA.name } });
  const res = await fetch(`${s.url}/api/v1/namespaces/${NS}/serviceaccounts/${SA.name}/token`, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      ...(adminToken === undefined ? {} : { authorization: `Bearer ${adminToken}` }),
    },
    body: JSON.stringify({
      apiVersion: "authentication.k8s.io/v1",
      kind: "TokenRequest",
      spec: {},
    }),
  });
  assert.equal(res.status, 201);
  return ((await res.json()) as { status: { token: string } }).status.token;
}

/**
 * The test controller: each ConfigMap of the namespace is mirrored into a Secret of the same
 * name, owned by it; the ConfigMap is annotated with when it was mirrored.
 */
async function runMirror(url: string, token: string, body: () => Promise<void>): Promise<void> {
  await using client = createClient({ url, token });
  const manager = new Manager({ client, logger: { error() {}, warn() {}, info() {}, debug() {} } });
  const cms = manager.factory.lister(configMaps, { namespace: NS });
  manager.add(
    controller({
      name: "mirror",
      for: configMaps,
      owns: [secrets],
      namespace: NS,
      reconcile: async ({ name }, { signal }) => {
        const cm = cms.namespace(NS).get(name);
        await createOrUpdate(
          client.resource(secrets, { namespace: NS }),
          { metadata: { name, namespace: NS } },
          (s) => {
            s.data = Object.fromEntries(
              Object.entries(cm.data ?? {}).map(([k, v]) => [k, Buffer.from(v).toString("base64")]),
            );
          },
          { signal },
        );
        if (cm.metadata?.annotations?.mirrored === undefined) {
          await client
            .resource(configMaps, { namespace: NS })
            .patch(name, "merge", { metadata: { annotations: { mirrored: "yes" } } }, { signal });
        }
      },
    }),
  );
  const stop = new AbortController();
  const running = manager.start(stop.signal);
  try {
    await body();
  } finally {
    stop.abort();
    await running;
  }
}

/** Creates a ConfigMap and waits until it is mirrored and annotated. */
async function mirrorOne(admin: Client, name: string): Promise<void> {
  await admin
    .resource(configMaps, { namespace: NS })
    .create({ metadata: { name }, data: { k: "v" } });
  await waitFor(admin.resource(secrets, { namespace: NS }), name, (s) => s !== undefined);
  await waitFor(
    admin.resource(configMaps, { namespace: NS }),
    name,
    (c) => c?.metadata?.annotations?.mirrored === "yes",
  );
}

/** Its informers stream their lists (watch with sendInitialEvents): no `list` is asked for. */
const ROLE_RULES = [
  { apiGroups: [""], resources: ["configmaps"], verbs: ["patch", "watch"] },
  { apiGroups: [""], resources: ["secrets"], verbs: ["create", "get", "watch"] },
];

describe("RequestRecorder", {
  timeout: 60_000,
  skip: embeddedOnly("the recorder reads the embedded server's audit events"),
}, () => {
  it("lists a controller's requests and writes the Role they need, bound to its ServiceAccount", async () => {
    const recorder = new RequestRecorder();
    await using s = await startTestServer({ controllers: false, audit: recorder.audit });
    await using admin = createClient({ url: s.url });
    const token = await tokenOf(s, admin);
    await runMirror(s.url, token, () => mirrorOne(admin, "prices"));

    const mine = recorder.requests(SA);
    assert.ok(mine.length > 0);
    assert.ok(mine.every((r) => r.attributes.kind === "resource" && r.attributes.namespace === NS));
    assert.deepEqual([...new Set(mine.map((r) => r.attributes.verb))].sort(), [
      "create",
      "get",
      "patch",
      "watch",
    ]);
    const { manifests } = recorder.rbac({ subject: SA, namespaceScoped: true });
    assert.deepEqual(manifests, [
      {
        apiVersion: "rbac.authorization.k8s.io/v1",
        kind: "Role",
        metadata: { name: "mirror", namespace: NS },
        rules: ROLE_RULES,
      },
      {
        apiVersion: "rbac.authorization.k8s.io/v1",
        kind: "RoleBinding",
        metadata: { name: "mirror", namespace: NS },
        roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "Role", name: "mirror" },
        subjects: [{ kind: "ServiceAccount", name: "mirror", namespace: NS }],
      },
    ]);
    // Without --namespace-scoped, one ClusterRole with the same rules.
    const cluster = recorder.rbac({ subject: SA }).manifests;
    assert.deepEqual(
      cluster.map((m) => m.kind),
      ["ClusterRole", "ClusterRoleBinding"],
    );
    assert.deepEqual(cluster[0]!.rules, ROLE_RULES);
  });

  it("refuses to guess whose rules to write when several identities made requests", async () => {
    const recorder = new RequestRecorder();
    await using s = await startTestServer({ controllers: false, audit: recorder.audit });
    await using admin = createClient({ url: s.url });
    const token = await tokenOf(s, admin);
    await using robot = createClient({ url: s.url, token });
    await robot.resource(configMaps, { namespace: NS }).list();
    assert.throws(() => recorder.rbac(), {
      name: "RbacFromAuditError",
      message:
        /records requests of 2 users: system:anonymous \(\d+\), system:serviceaccount:shop:mirror \(1\)/,
    });
    assert.deepEqual(recorder.rbac({ subject: SA }).manifests[0]!.rules, [
      { apiGroups: [""], resources: ["configmaps"], verbs: ["list"] },
    ]);
  });

  it("records rules that let the controller run where RBAC is enforced", async () => {
    const recorder = new RequestRecorder();
    let yaml: string;
    {
      await using s = await startTestServer({ controllers: false, audit: recorder.audit });
      await using admin = createClient({ url: s.url });
      await runMirror(s.url, await tokenOf(s, admin), () => mirrorOne(admin, "prices"));
      yaml = recorder.rbacYaml({ subject: SA, namespaceScoped: true });
    }
    await using s = await startTestServer({
      controllers: false,
      authorization: "RBAC",
      token: "t",
    });
    await using admin = createClient({ url: s.url, token: "t" });
    const token = await tokenOf(s, admin, "t");
    for (const doc of yaml.split("---\n")) {
      const m = parseYaml(doc) as { kind: string };
      const path =
        m.kind === "Role"
          ? `/apis/rbac.authorization.k8s.io/v1/namespaces/${NS}/roles`
          : `/apis/rbac.authorization.k8s.io/v1/namespaces/${NS}/rolebindings`;
      const res = await fetch(`${s.url}${path}`, {
        method: "POST",
        headers: { authorization: "Bearer t", "content-type": "application/json" },
        body: JSON.stringify(m),
      });
      assert.equal(res.status, 201, await res.text());
    }
    await runMirror(s.url, token, () => mirrorOne(admin, "taxes"));
  });
});
