/**
 * Writes of RBAC objects under `authorization: "RBAC"`: no one grants more than they hold,
 * unless RBAC lets them `escalate` or `bind`; and the access reviews answered by RBAC.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { binding, RBAC, type Requester, rbacServer, role } from "./rbac-rig.ts";

const RBAC_GROUP = "rbac.authorization.k8s.io";
const SECRETS = { verbs: ["get"], apiGroups: [""], resources: ["secrets"] };
const PODS = { verbs: ["get"], apiGroups: [""], resources: ["pods"] };

/** A server where jane may manage Roles and RoleBindings in `team` and read pods there. */
async function withRbacManager() {
  const made = await rbacServer();
  const { admin } = made;
  await admin("POST", "/api/v1/namespaces", { metadata: { name: "team" } });
  const manager = role("Role", "manager", [
    {
      verbs: ["create", "update", "patch", "get"],
      apiGroups: [RBAC_GROUP],
      resources: ["roles", "rolebindings"],
    },
    PODS,
  ]);
  await admin("POST", `${RBAC}/namespaces/team/roles`, manager);
  await admin("POST", `${RBAC}/namespaces/team/roles`, role("Role", "secrets", [SECRETS]));
  const grant = binding("RoleBinding", "jane", { kind: "Role", name: "manager" }, "jane");
  await admin("POST", `${RBAC}/namespaces/team/rolebindings`, grant);
  return { ...made, jane: await made.as("jane", "dev") };
}

const grantText = (kind: string, name: string) =>
  `${kind}.rbac.authorization.k8s.io "${name}" is forbidden: user "jane" (groups=["dev" "system:authenticated"]) is attempting to grant RBAC permissions not currently held:\n{APIGroups:[""], Resources:["secrets"], Verbs:["get"]}`;

describe("RBAC escalation checks on writes of RBAC objects", () => {
  it("lets a user write a Role with rules it holds, and refuses one with more, by create, update, patch and apply", async () => {
    const { s, jane } = await withRbacManager();
    await using _ = s;
    const roles = `${RBAC}/namespaces/team/roles`;
    assert.equal((await jane("POST", roles, role("Role", "mine", [PODS]))).status, 201);
    const refused = await jane("POST", roles, role("Role", "more", [SECRETS]));
    assert.equal(refused.status, 403);
    assert.equal(refused.body.message, grantText("roles", "more"));
    assert.deepEqual(refused.body.details, { name: "more", group: RBAC_GROUP, kind: "roles" });
    // Refused before validation: an invalid role with more rules is a 403, not a 422.
    const invalid = role("Role", "bad", [{ ...SECRETS, verbs: [] }, SECRETS]);
    assert.equal((await jane("POST", roles, invalid)).status, 403);
    const put = await jane("PUT", `${roles}/mine`, role("Role", "mine", [PODS, SECRETS]));
    assert.equal(put.status, 403);
    assert.equal(put.body.message, grantText("roles", "mine"));
    const patch = await jane("PATCH", `${roles}/mine`, { rules: [PODS, SECRETS] });
    assert.equal(patch.status, 403);
    const applied = await applyAs(jane, `${roles}/applied`, role("Role", "applied", [SECRETS]));
    assert.equal(applied.status, 403);
    assert.equal(applied.body.message, grantText("roles", "applied"));
    assert.equal(
      (await applyAs(jane, `${roles}/applied`, role("Role", "applied", [PODS]))).status,
      201,
    );
    // A dry run is checked as the write would be.
    const dry = await jane("POST", `${roles}?dryRun=All`, role("Role", "dry", [SECRETS]));
    assert.equal(dry.status, 403);
  });

  it("lets a user who may escalate roles write any Role", async () => {
    const { s, admin, jane } = await withRbacManager();
    await using _ = s;
    const escalator = role("Role", "escalator", [
      { verbs: ["escalate"], apiGroups: [RBAC_GROUP], resources: ["roles"] },
    ]);
    await admin("POST", `${RBAC}/namespaces/team/roles`, escalator);
    await admin(
      "POST",
      `${RBAC}/namespaces/team/rolebindings`,
      binding("RoleBinding", "escalate", { kind: "Role", name: "escalator" }, "jane"),
    );
    const created = await jane(
      "POST",
      `${RBAC}/namespaces/team/roles`,
      role("Role", "more", [SECRETS]),
    );
    assert.equal(created.status, 201);
  });

  it("refuses a binding to a role with rules the user lacks, unless it may bind that role", async () => {
    const { s, admin, as, jane } = await withRbacManager();
    await using _ = s;
    const bindings = `${RBAC}/namespaces/team/rolebindings`;
    const toSecrets = binding("RoleBinding", "sam", { kind: "Role", name: "secrets" }, "sam");
    const refused = await jane("POST", bindings, toSecrets);
    assert.equal(refused.status, 403);
    assert.equal(refused.body.message, grantText("rolebindings", "sam"));
    const toMissing = binding("RoleBinding", "gone", { kind: "Role", name: "gone" }, "sam");
    const missing = await jane("POST", bindings, toMissing);
    assert.equal(missing.status, 404);
    assert.equal(missing.body.message, 'rolebindings.rbac.authorization.k8s.io "gone" not found');
    const binder = role("Role", "binder", [
      {
        verbs: ["bind"],
        apiGroups: [RBAC_GROUP],
        resources: ["roles"],
        resourceNames: ["secrets"],
      },
    ]);
    await admin("POST", `${RBAC}/namespaces/team/roles`, binder);
    await admin(
      "POST",
      bindings,
      binding("RoleBinding", "bind", { kind: "Role", name: "binder" }, "jane"),
    );
    assert.equal((await jane("POST", bindings, toSecrets)).status, 201);
    // The binding grants: sam may get secrets (none is there).
    const sam = await as("sam");
    assert.equal((await sam("GET", "/api/v1/namespaces/team/secrets/x")).status, 404);
  });
});

describe("access reviews under RBAC", () => {
  it("answers SubjectAccessReviews for any user and group by RBAC, with its reasons", async () => {
    const { s, admin } = await withRbacManager();
    await using _ = s;
    const review = (user: string, groups: string[], verb: string, resource: string) =>
      admin("POST", "/apis/authorization.k8s.io/v1/subjectaccessreviews", {
        apiVersion: "authorization.k8s.io/v1",
        kind: "SubjectAccessReview",
        spec: { user, groups, resourceAttributes: { namespace: "team", verb, resource } },
      });
    const allowed = await review("jane", [], "get", "pods");
    assert.equal(allowed.status, 201);
    assert.deepEqual(allowed.body.status, {
      allowed: true,
      reason: 'RBAC: allowed by RoleBinding "jane/team" of Role "manager" to User "jane"',
    });
    assert.deepEqual((await review("jane", [], "get", "secrets")).body.status, { allowed: false });
    assert.deepEqual((await review("x", ["system:masters"], "delete", "secrets")).body.status, {
      allowed: true,
    });
  });

  it("lists a user's rules in a SelfSubjectRulesReview, with the roles it could not read in evaluationError", async () => {
    const { s, admin, jane } = await withRbacManager();
    await using _ = s;
    await admin(
      "POST",
      `${RBAC}/namespaces/team/rolebindings`,
      binding("RoleBinding", "dangling", { kind: "ClusterRole", name: "nowhere" }, "jane"),
    );
    const rules = await jane("POST", "/apis/authorization.k8s.io/v1/selfsubjectrulesreviews", {
      apiVersion: "authorization.k8s.io/v1",
      kind: "SelfSubjectRulesReview",
      spec: { namespace: "team" },
    });
    assert.equal(rules.status, 201);
    assert.equal(rules.body.status.incomplete, false);
    assert.equal(
      rules.body.status.evaluationError,
      'clusterrole.rbac.authorization.k8s.io "nowhere" not found',
    );
    assert.ok(
      rules.body.status.resourceRules.some(
        (r: { resources: string[] }) => r.resources.join() === "pods",
      ),
    );
  });
});

/** A server-side apply of `body` to `path` as `user`. */
function applyAs(user: Requester, path: string, body: object) {
  return user("PATCH", `${path}?fieldManager=test`, body, "application/apply-patch+yaml");
}
