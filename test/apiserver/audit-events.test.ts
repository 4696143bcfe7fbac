/**
 * The embedded server's audit events over the wire, against what a real kube-apiserver 1.36
 * wrote for the same requests (its lines below, recorded with --audit-log-path; only the audit
 * ID, the timestamps and the user agent differ, and are set here): the same bytes. Then what RBAC
 * adds: the decision and its reason as annotations, a refusal's Status.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { type AuditEvent, auditEventJson, MemoryAuditSink } from "kontroller/apiserver";
import { FakeClock, startTestServer } from "kontroller/testing";
import { RBAC, requester, role } from "./rbac-rig.ts";

/** kube-apiserver's events (user "admin" of its token file, as the embedded server's token user). */
const KUBE = {
  notFound: `{"kind":"Event","apiVersion":"audit.k8s.io/v1","level":"RequestResponse","auditID":"ID","stage":"ResponseComplete","requestURI":"/api/v1/namespaces/default/configmaps/nope","verb":"get","user":{"username":"admin","uid":"kontroller-admin","groups":["system:masters","system:authenticated"]},"sourceIPs":["127.0.0.1"],"userAgent":"observer/1.0","objectRef":{"resource":"configmaps","namespace":"default","name":"nope","apiVersion":"v1"},"responseStatus":{"metadata":{},"status":"Failure","message":"configmaps \\"nope\\" not found","reason":"NotFound","details":{"name":"nope","kind":"configmaps"},"code":404},"responseObject":{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"configmaps \\"nope\\" not found","reason":"NotFound","details":{"name":"nope","kind":"configmaps"},"code":404},"requestReceivedTimestamp":"T0","stageTimestamp":"T1","annotations":{"authorization.k8s.io/decision":"allow","authorization.k8s.io/reason":""}}`,
  watchStarted: `{"kind":"Event","apiVersion":"audit.k8s.io/v1","level":"RequestResponse","auditID":"ID","stage":"ResponseStarted","requestURI":"/api/v1/namespaces/default/configmaps?watch=1\\u0026timeoutSeconds=1","verb":"watch","user":{"username":"admin","uid":"kontroller-admin","groups":["system:masters","system:authenticated"]},"sourceIPs":["127.0.0.1"],"userAgent":"observer/1.0","objectRef":{"resource":"configmaps","namespace":"default","apiVersion":"v1"},"responseStatus":{"metadata":{},"code":200},"requestReceivedTimestamp":"T0","stageTimestamp":"T1","annotations":{"authorization.k8s.io/decision":"allow","authorization.k8s.io/reason":""}}`,
  unauthorized: `{"kind":"Event","apiVersion":"audit.k8s.io/v1","level":"Metadata","auditID":"ID","stage":"ResponseStarted","requestURI":"/api/v1/namespaces","verb":"list","user":{},"sourceIPs":["127.0.0.1"],"userAgent":"observer/1.0","objectRef":{"resource":"namespaces","apiVersion":"v1"},"responseStatus":{"metadata":{},"status":"Failure","message":"Unauthorized","reason":"Unauthorized","code":401},"requestReceivedTimestamp":"T0","stageTimestamp":"T1"}`,
};

const T0 = Date.UTC(2026, 10, 27, 20, 25, 54, 699);

describe("audit events of the embedded server", { timeout: 60_000 }, () => {
  it("are kube-apiserver's, byte for byte", async () => {
    const sink = new MemoryAuditSink();
    const clock = new FakeClock({ startMs: T0 });
    await using s = await startTestServer({
      controllers: false,
      token: "t",
      clock,
      audit: {
        sink,
        policy: {
          rules: [
            { level: "RequestResponse", resources: [{ group: "", resources: ["configmaps"] }] },
            { level: "Metadata" },
          ],
        },
      },
    });
    const headers = (id: string, token = "t") => ({
      authorization: `Bearer ${token}`,
      "user-agent": "observer/1.0",
      "audit-id": id,
    });
    /** The event's line with its timestamps named as in KUBE. */
    const line = (e: AuditEvent) =>
      auditEventJson({ ...e, requestReceivedTimestamp: "T0", stageTimestamp: "T1" });

    const res = await fetch(`${s.url}/api/v1/namespaces/default/configmaps/nope`, {
      headers: headers("ID"),
    });
    assert.equal(res.headers.get("audit-id"), "ID");
    await res.text();
    const done = await sink.waitFor((e) => e.auditID === "ID" && e.stage === "ResponseComplete");
    assert.equal(line(done), KUBE.notFound);
    assert.equal(done.requestReceivedTimestamp, "2026-11-27T20:25:54.699000Z");

    const stop = new AbortController();
    await fetch(`${s.url}/api/v1/namespaces/default/configmaps?watch=1&timeoutSeconds=1`, {
      headers: headers("W"),
      signal: stop.signal,
    });
    const started = await sink.waitFor((e) => e.auditID === "W" && e.stage === "ResponseStarted");
    assert.equal(line(started).replaceAll('"W"', '"ID"'), KUBE.watchStarted);
    stop.abort();
    await sink.waitFor((e) => e.auditID === "W" && e.stage === "ResponseComplete");

    await (await fetch(`${s.url}/api/v1/namespaces`, { headers: headers("U", "wrong") })).text();
    const refused = await sink.waitFor((e) => e.auditID === "U");
    assert.equal(line(refused).replaceAll('"U"', '"ID"'), KUBE.unauthorized);
    assert.deepEqual(
      sink
        .events()
        .filter((e) => e.auditID === "U")
        .map((e) => e.stage),
      ["ResponseStarted"],
    );
  });

  it("carry RBAC's decision and reason, and a refusal's Status", async () => {
    const sink = new MemoryAuditSink();
    await using s = await startTestServer({
      controllers: false,
      tls: {},
      authorization: "RBAC",
      audit: { sink },
    });
    const ca = s.server.certificates!.ca;
    const as = async (user: string, ...groups: string[]) =>
      requester(s.url, s.ca!, { cert: await ca.issueClientCertificate({ user, groups }) });
    const admin = await as("admin", "system:masters");
    const carl = await as("carl", "devs");
    await admin(
      "POST",
      `${RBAC}/namespaces/default/roles`,
      role("Role", "reader", [{ apiGroups: [""], resources: ["configmaps"], verbs: ["list"] }]),
    );
    await admin("POST", `${RBAC}/namespaces/default/rolebindings`, {
      metadata: { name: "carl-reads" },
      roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "Role", name: "reader" },
      subjects: [{ apiGroup: "rbac.authorization.k8s.io", kind: "User", name: "carl" }],
    });
    assert.equal((await carl("GET", "/api/v1/namespaces/default/configmaps")).status, 200);
    assert.equal((await carl("DELETE", "/api/v1/namespaces/default/configmaps/x")).status, 403);

    const last = async (verb: string) =>
      sink.waitFor(
        (e) => e.user.username === "carl" && e.verb === verb && e.stage === "ResponseComplete",
      );
    const listed = await last("list");
    const { extra, ...who } = listed.user;
    assert.deepEqual(who, { username: "carl", groups: ["devs", "system:authenticated"] });
    // kube names the client certificate a request was authenticated with.
    assert.match(extra?.["authentication.kubernetes.io/credential-id"]?.[0] ?? "", /^X509SHA256=/);
    assert.deepEqual(listed.annotations, {
      "authorization.k8s.io/decision": "allow",
      "authorization.k8s.io/reason":
        'RBAC: allowed by RoleBinding "carl-reads/default" of Role "reader" to User "carl"',
    });
    const refused = await last("delete");
    assert.deepEqual(refused.annotations, {
      "authorization.k8s.io/decision": "forbid",
      "authorization.k8s.io/reason": "",
    });
    assert.deepEqual(refused.responseStatus, {
      metadata: {},
      status: "Failure",
      message:
        'configmaps "x" is forbidden: User "carl" cannot delete resource "configmaps" in API group "" in the namespace "default"',
      reason: "Forbidden",
      details: { name: "x", kind: "configmaps" },
      code: 403,
    });
    const adminEvents = sink.events().filter((e) => e.user.username === "admin");
    assert.ok(adminEvents.length > 0);
    assert.ok(
      adminEvents.every(
        (e) =>
          e.stage === "RequestReceived" ||
          e.annotations?.["authorization.k8s.io/decision"] === "allow",
      ),
    );
  });
});
