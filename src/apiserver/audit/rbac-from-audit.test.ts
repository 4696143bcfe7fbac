import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { RbacFromAuditError, rbacFromAudit, rbacYaml, subjectOf } from "./rbac-from-audit.ts";
import { parseAuditLog, recordedRequests } from "./recorded-requests.ts";
import type { AuditEvent, AuditObjectReference } from "./types.ts";

let n = 0;

/** One request's last event: `verb` on `ref` (a path string: a non-resource request) as `user`. */
function ev(
  user: string,
  verb: string,
  ref: AuditObjectReference | string,
  more: Partial<AuditEvent> = {},
): AuditEvent {
  return {
    kind: "Event",
    apiVersion: "audit.k8s.io/v1",
    level: "Metadata",
    auditID: `id-${n++}`,
    stage: "ResponseComplete",
    requestURI: typeof ref === "string" ? ref : "/api/x",
    verb,
    user: { username: user, groups: ["system:authenticated"] },
    ...(typeof ref === "string" ? {} : { objectRef: { apiVersion: "v1", ...ref } }),
    requestReceivedTimestamp: "2026-01-01T00:00:00.000000Z",
    stageTimestamp: "2026-01-01T00:00:00.000000Z",
    ...more,
  };
}

const SA = "system:serviceaccount:ops:bot";
const pods = (namespace?: string, more: AuditObjectReference = {}) => ({
  resource: "pods",
  ...(namespace === undefined ? {} : { namespace }),
  ...more,
});

const EVENTS: AuditEvent[] = [
  ev(SA, "list", pods()),
  ev(SA, "watch", pods()),
  ev(SA, "get", pods("a", { name: "p1" })),
  ev(SA, "get", pods("b", { name: "p2" })),
  ev(SA, "get", pods("a", { name: "p1", subresource: "log" })),
  ev(SA, "update", {
    resource: "deployments",
    apiGroup: "apps",
    namespace: "a",
    subresource: "scale",
  }),
  ev(SA, "list", { resource: "deployments", apiGroup: "apps", namespace: "a" }),
  ev(SA, "watch", { resource: "deployments", apiGroup: "apps", namespace: "a" }),
  ev(SA, "create", { resource: "events", apiGroup: "events.k8s.io", namespace: "b" }),
  ev(SA, "get", "/metrics"),
  ev(SA, "post", "/metrics"),
  ev(SA, "get", "/version"), // allowed to every authenticated user: no rule
  ev(SA, "get", "/apis/apps/v1?timeout=32s"),
  ev(SA, "create", { resource: "selfsubjectaccessreviews", apiGroup: "authorization.k8s.io" }),
  ev("someone-else", "delete", pods("a", { name: "p1" })),
];

describe("rbacFromAudit", () => {
  it("writes one ClusterRole of compacted, sorted rules and binds it to the service account", () => {
    const { subject, manifests } = rbacFromAudit(EVENTS, { subject: subjectOf(SA) });
    assert.deepEqual(subject, { kind: "ServiceAccount", namespace: "ops", name: "bot" });
    assert.deepEqual(manifests, [
      {
        apiVersion: "rbac.authorization.k8s.io/v1",
        kind: "ClusterRole",
        metadata: { name: "bot" },
        rules: [
          { apiGroups: [""], resources: ["pods"], verbs: ["get", "list", "watch"] },
          { apiGroups: [""], resources: ["pods/log"], verbs: ["get"] },
          { apiGroups: ["apps"], resources: ["deployments"], verbs: ["list", "watch"] },
          { apiGroups: ["apps"], resources: ["deployments/scale"], verbs: ["update"] },
          { apiGroups: ["events.k8s.io"], resources: ["events"], verbs: ["create"] },
          { nonResourceURLs: ["/metrics"], verbs: ["get", "post"] },
        ],
      },
      {
        apiVersion: "rbac.authorization.k8s.io/v1",
        kind: "ClusterRoleBinding",
        metadata: { name: "bot" },
        roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "ClusterRole", name: "bot" },
        subjects: [{ kind: "ServiceAccount", name: "bot", namespace: "ops" }],
      },
    ]);
  });

  it("writes a Role per namespace, and a ClusterRole for the rest, when namespace-scoped", () => {
    const { manifests } = rbacFromAudit(EVENTS, {
      subject: subjectOf(SA),
      namespaceScoped: true,
      name: "ctl",
    });
    assert.deepEqual(
      manifests.map((m) => [m.kind, (m.metadata as { namespace?: string }).namespace, m.rules]),
      [
        [
          "ClusterRole",
          undefined,
          [
            { apiGroups: [""], resources: ["pods"], verbs: ["list", "watch"] },
            { nonResourceURLs: ["/metrics"], verbs: ["get", "post"] },
          ],
        ],
        ["ClusterRoleBinding", undefined, undefined],
        [
          "Role",
          "a",
          [
            { apiGroups: [""], resources: ["pods", "pods/log"], verbs: ["get"] },
            { apiGroups: ["apps"], resources: ["deployments"], verbs: ["list", "watch"] },
            { apiGroups: ["apps"], resources: ["deployments/scale"], verbs: ["update"] },
          ],
        ],
        ["RoleBinding", "a", undefined],
        [
          "Role",
          "b",
          [
            { apiGroups: [""], resources: ["pods"], verbs: ["get"] },
            { apiGroups: ["events.k8s.io"], resources: ["events"], verbs: ["create"] },
          ],
        ],
        ["RoleBinding", "b", undefined],
      ],
    );
  });

  it("keeps what every authenticated user may do only when asked to", () => {
    const { manifests } = rbacFromAudit(EVENTS, {
      subject: subjectOf(SA),
      includeGrantedToAll: true,
    });
    const rules = manifests[0]!.rules as { nonResourceURLs?: string[]; resources?: string[] }[];
    assert.deepEqual(rules.slice(-2), [
      { nonResourceURLs: ["/apis/apps/v1", "/version"], verbs: ["get"] },
      { nonResourceURLs: ["/metrics"], verbs: ["get", "post"] },
    ]);
    assert.ok(rules.some((r) => r.resources?.includes("selfsubjectaccessreviews")));
  });

  it("counts a request as the user it impersonated, and leaves unauthenticated ones out", () => {
    const events = [
      ev("admin", "get", pods("a", { name: "x" }), {
        impersonatedUser: { username: "ann", groups: [] },
      }),
      ev("admin", "list", pods("a")),
      { ...ev("", "get", pods("a")), user: {} },
    ];
    assert.deepEqual(
      recordedRequests(events).map((r) => [r.username, r.attributes.verb]),
      [
        ["ann", "get"],
        ["admin", "list"],
      ],
    );
    const ann = rbacFromAudit(events, { subject: { kind: "User", name: "ann" } });
    assert.deepEqual(ann.manifests[1]!.subjects, [
      { apiGroup: "rbac.authorization.k8s.io", kind: "User", name: "ann" },
    ]);
  });

  it("reads a request once, from its last event, and finds the log's only identity", () => {
    const first = ev(SA, "get", pods("a", { name: "p" }), { stage: "RequestReceived" });
    const last = {
      ...first,
      stage: "ResponseComplete" as const,
      responseStatus: { metadata: {}, code: 403 },
    };
    const requests = recordedRequests([first, last]);
    assert.equal(requests.length, 1);
    assert.equal(requests[0]!.code, 403);
    assert.equal(rbacFromAudit([first, last]).subject.kind, "ServiceAccount");
  });

  it("names the identities when there are several and none was chosen", () => {
    assert.throws(() => rbacFromAudit(EVENTS), {
      name: "RbacFromAuditError",
      message: `the audit log records requests of 2 users: ${SA} (14), someone-else (1); say whose rules to write (a user or a service account)`,
    });
    assert.throws(() => rbacFromAudit([]), RbacFromAuditError);
  });

  it("prints YAML documents kubectl applies, the same text for the same requests in any order", () => {
    const yaml = rbacYaml(rbacFromAudit(EVENTS, { subject: subjectOf(SA) }).manifests);
    const shuffled = rbacYaml(
      rbacFromAudit([...EVENTS].reverse(), { subject: subjectOf(SA) }).manifests,
    );
    assert.equal(shuffled, yaml);
    assert.match(yaml, /^apiVersion: rbac.authorization.k8s.io\/v1\nkind: ClusterRole\n/);
    assert.match(
      yaml,
      /\n---\napiVersion: rbac.authorization.k8s.io\/v1\nkind: ClusterRoleBinding\n/,
    );
    assert.match(
      yaml,
      /\nrules:\n- apiGroups:\n {2}- ""\n {2}resources:\n {2}- pods\n {2}verbs:\n {2}- get\n/,
    );
  });
});

describe("parseAuditLog", () => {
  it("reads one event a line and names a line that is not one", () => {
    const text = `${JSON.stringify(EVENTS[0])}\n\n${JSON.stringify(EVENTS[1])}\n`;
    assert.equal(parseAuditLog(text).length, 2);
    assert.throws(() => parseAuditLog(`${text}{"kind":"Pod"}\n`, "a.log"), {
      message:
        'a.log, line 4: not an audit.k8s.io/v1 Event (kind "Event" with auditID, verb and requestURI)',
    });
    assert.throws(() => parseAuditLog("{oops\n", "a.log"), /^Error: a.log, line 1: not JSON/);
  });
});
