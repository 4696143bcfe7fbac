/**
 * The control plane's clusterrole-aggregation controller against the embedded server with RBAC:
 * kube's admin, edit and view get their rules, a ClusterRole labelled to join them adds its
 * rules (and a user bound to `view` may then use them), and leaving the label takes them away.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { createClient } from "kontroller/client";
import { AGGREGATION_FIELD_MANAGER } from "kontroller/controlplane";
import type { KubeObject } from "kontroller/core";
import { resourceDefinition } from "kontroller/resources";
import { embeddedOnly, startTestServer, waitFor } from "kontroller/testing";

interface Rule {
  verbs: string[];
  apiGroups?: string[];
  resources?: string[];
}
type ClusterRole = KubeObject & { rules?: Rule[] | null };

const clusterRoles = resourceDefinition<ClusterRole>({
  group: "rbac.authorization.k8s.io",
  version: "v1",
  kind: "ClusterRole",
  plural: "clusterroles",
  scope: "Cluster",
});

const grants = (role: ClusterRole | undefined, resource: string) =>
  (role?.rules ?? []).some((r) => (r.resources ?? []).includes(resource));

describe("the clusterrole-aggregation controller", {
  skip: embeddedOnly("kube-apiserver runs no controllers: kube-controller-manager aggregates"),
}, () => {
  it("fills admin, edit and view, and follows the roles labelled to join them", async () => {
    await using s = await startTestServer({ tls: {}, authorization: "RBAC" });
    const client = createClient({ kubeconfig: s.kubeconfigPath });
    try {
      const roles = client.resource(clusterRoles);
      const view = await waitFor(roles, "view", (r) => grants(r, "pods"));
      assert.ok(!grants(view, "secrets"), "view does not read secrets");
      await waitFor(roles, "edit", (r) => grants(r, "secrets") && grants(r, "pods"));
      // admin aggregates edit, which aggregates view: the chain settles.
      const admin = await waitFor(roles, "admin", (r) => grants(r, "rolebindings"));
      assert.ok(grants(admin, "pods"));
      const entry = view?.metadata?.managedFields?.find(
        (f) => f.manager === AGGREGATION_FIELD_MANAGER,
      );
      assert.equal(entry?.operation, "Apply");

      await roles.create({
        metadata: {
          name: "widget-reader",
          labels: { "rbac.authorization.k8s.io/aggregate-to-view": "true" },
        },
        rules: [{ verbs: ["get", "list"], apiGroups: ["example.com"], resources: ["widgets"] }],
      });
      for (const name of ["view", "edit", "admin"]) {
        await waitFor(roles, name, (r) => grants(r, "widgets"));
      }
      // A user bound to view may list widgets now (authorization comes before routing: 404).
      const jane = await s.server.certificates!.ca.issueClientCertificate({
        user: "jane",
        groups: [],
      });
      const bindings = client.resource(
        resourceDefinition({
          group: "rbac.authorization.k8s.io",
          version: "v1",
          kind: "ClusterRoleBinding",
          plural: "clusterrolebindings",
          scope: "Cluster",
        }),
      );
      await bindings.create({
        metadata: { name: "jane-views" },
        roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "ClusterRole", name: "view" },
        subjects: [{ apiGroup: "rbac.authorization.k8s.io", kind: "User", name: "jane" }],
      } as KubeObject);
      const asJane = createClient({
        url: s.url,
        ca: s.ca!,
        cert: jane.certificatePem,
        key: jane.privateKeyPem,
        retry: { maxRetries: 0 },
      });
      try {
        const widgets = asJane.resource(
          resourceDefinition({
            group: "example.com",
            version: "v1",
            kind: "Widget",
            plural: "widgets",
            scope: "Cluster",
          }),
        );
        await assert.rejects(widgets.list(), (err: { code?: number }) => err.code === 404);
      } finally {
        await asJane.close();
      }
      // Leaving the label leaves the aggregation.
      const reader = await roles.get("widget-reader");
      await roles.update({ ...reader, metadata: { ...reader.metadata, labels: {} } });
      await waitFor(roles, "view", (r) => r !== undefined && !grants(r, "widgets"));
    } finally {
      await client.close();
    }
  });

  it("is not run by a bare server: admin, edit and view keep rules null", async () => {
    await using s = await startTestServer({ controllers: false });
    const client = createClient({ url: s.url });
    try {
      const view = await client.resource(clusterRoles).get("view");
      assert.equal(view.rules ?? null, null);
    } finally {
      await client.close();
    }
  });
});
