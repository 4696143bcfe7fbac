/**
 * The embedded server with `authorization: "RBAC"`, over HTTPS: requests of users its CA mints
 * and of ServiceAccount tokens are allowed by what Roles and bindings grant them, and refused
 * otherwise with kube-apiserver's 403.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { binding, RBAC, rbacServer, requester, role } from "./rbac-rig.ts";

const PODS = { verbs: ["get", "list", "watch"], apiGroups: [""], resources: ["pods"] };

describe("RBAC authorization of requests", () => {
  it("refuses what no role grants with kube's 403, worded by what was asked", async () => {
    const { s, as } = await rbacServer();
    await using _ = s;
    const jane = await as("jane", "dev");
    const cases: [string, string, string][] = [
      [
        "GET",
        "/api/v1/namespaces/team/pods",
        'pods is forbidden: User "jane" cannot list resource "pods" in API group "" in the namespace "team"',
      ],
      [
        "GET",
        "/apis/apps/v1/namespaces/team/deployments/web",
        'deployments.apps "web" is forbidden: User "jane" cannot get resource "deployments" in API group "apps" in the namespace "team"',
      ],
      [
        "GET",
        "/api/v1/namespaces/team/pods/web/log",
        'pods "web" is forbidden: User "jane" cannot get resource "pods/log" in API group "" in the namespace "team"',
      ],
      [
        "GET",
        "/api/v1/nodes?watch=true",
        'nodes is forbidden: User "jane" cannot watch resource "nodes" in API group "" at the cluster scope',
      ],
      [
        "DELETE",
        "/api/v1/namespaces/team",
        'namespaces "team" is forbidden: User "jane" cannot delete resource "namespaces" in API group "" in the namespace "team"',
      ],
      // Authorized before it is routed: a resource nobody serves is a 403 too.
      [
        "GET",
        "/apis/example.com/v1/widgets",
        'widgets.example.com is forbidden: User "jane" cannot list resource "widgets" in API group "example.com" at the cluster scope',
      ],
      ["GET", "/metrics", 'forbidden: User "jane" cannot get path "/metrics"'],
    ];
    for (const [method, path, message] of cases) {
      const reply = await jane(method, path);
      assert.equal(reply.status, 403, `${method} ${path}`);
      assert.equal(reply.body.reason, "Forbidden");
      assert.equal(reply.body.message, message);
    }
    const named = await jane("GET", "/apis/apps/v1/namespaces/team/deployments/web");
    assert.deepEqual(named.body.details, { name: "web", group: "apps", kind: "deployments" });
  });

  it("lets every user read discovery, health and version; the anonymous user health and version only", async () => {
    const { s, as } = await rbacServer();
    await using _ = s;
    const jane = await as("jane");
    for (const path of ["/api", "/apis", "/api/v1", "/apis/apps/v1", "/healthz", "/version"]) {
      assert.equal((await jane("GET", path)).status, 200, path);
    }
    const anonymous = requester(s.url, s.ca!);
    assert.equal((await anonymous("GET", "/readyz")).status, 200);
    assert.equal((await anonymous("GET", "/version")).status, 200);
    const api = await anonymous("GET", "/api");
    assert.equal(api.status, 403);
    assert.equal(api.body.message, 'forbidden: User "system:anonymous" cannot get path "/api"');
  });

  it("allows what a RoleBinding grants, in its namespace only, to a user or a group", async () => {
    const { s, admin, as } = await rbacServer();
    await using _ = s;
    for (const ns of ["team", "other"]) {
      assert.equal(
        (await admin("POST", "/api/v1/namespaces", { metadata: { name: ns } })).status,
        201,
      );
    }
    const reader = role("Role", "pod-reader", [PODS]);
    assert.equal((await admin("POST", `${RBAC}/namespaces/team/roles`, reader)).status, 201);
    const grant = binding(
      "RoleBinding",
      "readers",
      { kind: "Role", name: "pod-reader" },
      "jane",
      "Group:qa",
    );
    assert.equal((await admin("POST", `${RBAC}/namespaces/team/rolebindings`, grant)).status, 201);
    const jane = await as("jane");
    const sam = await as("sam", "qa");
    for (const user of [jane, sam]) {
      assert.equal((await user("GET", "/api/v1/namespaces/team/pods")).status, 200);
      assert.equal(
        (await user("GET", "/api/v1/namespaces/team/pods?watch=1&timeoutSeconds=1")).status,
        200,
      );
      assert.equal((await user("GET", "/api/v1/namespaces/other/pods")).status, 403);
      assert.equal((await user("DELETE", "/api/v1/namespaces/team/pods/p")).status, 403);
    }
    // A ClusterRole bound by a RoleBinding grants its rules in the binding's namespace.
    const cm = binding("RoleBinding", "cm", { kind: "ClusterRole", name: "edit-cm" }, "jane");
    const editCm = role("ClusterRole", "edit-cm", [
      { verbs: ["*"], apiGroups: [""], resources: ["configmaps"], resourceNames: ["settings"] },
    ]);
    assert.equal((await admin("POST", `${RBAC}/clusterroles`, editCm)).status, 201);
    assert.equal((await admin("POST", `${RBAC}/namespaces/other/rolebindings`, cm)).status, 201);
    const settings = { metadata: { name: "settings" }, data: { a: "1" } };
    assert.equal((await jane("POST", "/api/v1/namespaces/other/configmaps", settings)).status, 403);
    assert.equal(
      (await admin("POST", "/api/v1/namespaces/other/configmaps", settings)).status,
      201,
    );
    assert.equal((await jane("GET", "/api/v1/namespaces/other/configmaps/settings")).status, 200);
    // A list is allowed by resourceNames when its field selector picks the one name.
    const one = "/api/v1/namespaces/other/configmaps?fieldSelector=metadata.name%3Dsettings";
    assert.equal((await jane("GET", one)).status, 200);
    assert.equal((await jane("GET", "/api/v1/namespaces/other/configmaps")).status, 403);
    // Deleting the binding takes the grant away.
    assert.equal(
      (await admin("DELETE", `${RBAC}/namespaces/team/rolebindings/readers`)).status,
      200,
    );
    assert.equal((await jane("GET", "/api/v1/namespaces/team/pods")).status, 403);
  });

  it("authorizes a ServiceAccount token as the service account, bound by a RoleBinding subject", async () => {
    const { s, admin } = await rbacServer();
    await using _ = s;
    await admin("POST", "/api/v1/namespaces", { metadata: { name: "ctl" } });
    await admin("POST", "/api/v1/namespaces/ctl/serviceaccounts", { metadata: { name: "bot" } });
    const tokenRequest = { apiVersion: "authentication.k8s.io/v1", kind: "TokenRequest", spec: {} };
    const issued = await admin(
      "POST",
      "/api/v1/namespaces/ctl/serviceaccounts/bot/token",
      tokenRequest,
    );
    assert.equal(issued.status, 201);
    const bot = requester(s.url, s.ca!, { token: issued.body.status.token });
    const denied = await bot("GET", "/api/v1/namespaces/ctl/configmaps");
    assert.equal(denied.status, 403);
    assert.equal(
      denied.body.message,
      'configmaps is forbidden: User "system:serviceaccount:ctl:bot" cannot list resource "configmaps" in API group "" in the namespace "ctl"',
    );
    const reader = role("Role", "cm-reader", [
      { verbs: ["list"], apiGroups: [""], resources: ["configmaps"] },
    ]);
    await admin("POST", `${RBAC}/namespaces/ctl/roles`, reader);
    const grant = {
      ...binding("RoleBinding", "bot", { kind: "Role", name: "cm-reader" }),
      subjects: [{ kind: "ServiceAccount", name: "bot" }],
    };
    assert.equal((await admin("POST", `${RBAC}/namespaces/ctl/rolebindings`, grant)).status, 201);
    assert.equal((await bot("GET", "/api/v1/namespaces/ctl/configmaps")).status, 200);
  });

  it("writes kube's bootstrap roles and bindings: cluster-admin for system:masters, basic-user for everyone", async () => {
    const { s, admin, as } = await rbacServer();
    await using _ = s;
    const clusterAdmin = await admin("GET", `${RBAC}/clusterroles/cluster-admin`);
    assert.equal(clusterAdmin.status, 200);
    assert.equal(
      clusterAdmin.body.metadata.annotations["rbac.authorization.kubernetes.io/autoupdate"],
      "true",
    );
    assert.deepEqual(clusterAdmin.body.rules, [
      { verbs: ["*"], apiGroups: ["*"], resources: ["*"] },
      { verbs: ["*"], nonResourceURLs: ["*"] },
    ]);
    // Without a control plane no controller aggregates admin, edit and view, as on a bare kube-apiserver.
    const view = await admin("GET", `${RBAC}/clusterroles/view`);
    assert.equal(view.body.rules ?? null, null);
    const basic = await admin("GET", `${RBAC}/clusterrolebindings/system:basic-user`);
    assert.deepEqual(basic.body.subjects, [
      { apiGroup: "rbac.authorization.k8s.io", kind: "Group", name: "system:authenticated" },
    ]);
    // A user bound to cluster-admin by name (not in system:masters) may do anything.
    const root = binding(
      "ClusterRoleBinding",
      "root",
      { kind: "ClusterRole", name: "cluster-admin" },
      "root",
    );
    assert.equal((await admin("POST", `${RBAC}/clusterrolebindings`, root)).status, 201);
    const asRoot = await as("root");
    assert.equal((await asRoot("GET", "/api/v1/secrets")).status, 200);
    assert.equal((await asRoot("GET", "/metrics")).status, 200);
  });
});
