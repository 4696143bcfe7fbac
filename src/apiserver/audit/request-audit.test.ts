import assert from "node:assert/strict";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { describe, it } from "node:test";
import { errors } from "kontroller/core";
import { FakeClock } from "kontroller/testing";
import type { AccessAttributes } from "../auth/authorizer.ts";
import type { UserInfo } from "../auth/user.ts";
import { Auditor, type RequestAudit } from "./request-audit.ts";
import { MemoryAuditSink } from "./sinks.ts";
import type { AuditEvent, AuditPolicy } from "./types.ts";

/*
 * One request's audit, through a bare HTTP server standing in for the API server's pipeline:
 * the handler tells the audit what the pipeline would (who, what, the decision, the answer).
 */

const bob: UserInfo = {
  username: "bob",
  uid: "u1",
  groups: ["devs"],
  extra: { z: ["1"], a: ["2"] },
};
const getPod: AccessAttributes = {
  kind: "resource",
  verb: "get",
  namespace: "ns",
  group: "",
  version: "v1",
  resource: "pods",
  subresource: "",
  name: "p",
};
const watchPods: AccessAttributes = { ...getPod, verb: "watch", name: "" };
const T0 = Date.UTC(2026, 0, 1, 12, 0, 0);

type Handler = (
  audit: RequestAudit,
  req: IncomingMessage,
  res: ServerResponse,
  clock: FakeClock,
) => void;

/** A server whose every request is audited and then handled by `handler`. */
async function audited(policy: AuditPolicy | undefined, handler: Handler) {
  const sink = new MemoryAuditSink();
  const clock = new FakeClock({ startMs: T0 });
  const auditor = new Auditor({ sink, clock, ...(policy ? { policy } : {}), newId: () => "id-1" });
  const server = createServer((req, res) => handler(auditor.begin(req, res), req, res, clock));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    sink,
    url,
    /** The events of the request once `stage` is written. */
    async until(stage: AuditEvent["stage"]): Promise<readonly AuditEvent[]> {
      await sink.waitFor((e) => e.stage === stage);
      return sink.events();
    },
    async [Symbol.asyncDispose]() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

function answer(audit: RequestAudit, res: ServerResponse, code: number, body: unknown) {
  audit.response(code, body);
  res.writeHead(code, { "content-type": "application/json" });
  res.end(JSON.stringify(body));
}

describe("RequestAudit", () => {
  it("writes RequestReceived and ResponseComplete with kube's fields in kube's order", async () => {
    await using s = await audited(undefined, (audit, _req, res, clock) => {
      audit.authenticated(bob, getPod);
      audit.authorized({ allowed: true, denied: false, reason: "RBAC: allowed" });
      clock.advance(1.5);
      answer(audit, res, 200, { kind: "Pod", metadata: { name: "p" } });
    });
    const res = await fetch(`${s.url}/api/v1/namespaces/ns/pods/p?x=<&>`, {
      headers: { "user-agent": "t/1", "x-forwarded-for": "10.0.0.1, bogus, 10.0.0.2" },
    });
    assert.equal(res.headers.get("audit-id"), "id-1");
    await res.text();
    const [received, complete] = await s.until("ResponseComplete");
    const common = {
      kind: "Event",
      apiVersion: "audit.k8s.io/v1",
      level: "Metadata",
      auditID: "id-1",
      requestURI: "/api/v1/namespaces/ns/pods/p?x=%3C&%3E",
      verb: "get",
      user: { username: "bob", uid: "u1", groups: ["devs"], extra: { a: ["2"], z: ["1"] } },
      sourceIPs: ["10.0.0.1", "10.0.0.2", "127.0.0.1"],
      userAgent: "t/1",
      objectRef: { resource: "pods", namespace: "ns", name: "p", apiVersion: "v1" },
    };
    assert.deepEqual(received, {
      ...common,
      stage: "RequestReceived",
      requestReceivedTimestamp: "2026-01-01T12:00:00.000000Z",
      stageTimestamp: "2026-01-01T12:00:00.000000Z",
    });
    assert.deepEqual(complete, {
      ...common,
      stage: "ResponseComplete",
      responseStatus: { metadata: {}, code: 200 },
      requestReceivedTimestamp: "2026-01-01T12:00:00.000000Z",
      stageTimestamp: "2026-01-01T12:00:00.001500Z",
      annotations: {
        "authorization.k8s.io/decision": "allow",
        "authorization.k8s.io/reason": "RBAC: allowed",
      },
    });
    assert.deepEqual(Object.keys(complete!), [
      "kind",
      "apiVersion",
      "level",
      "auditID",
      "stage",
      "requestURI",
      "verb",
      "user",
      "sourceIPs",
      "userAgent",
      "objectRef",
      "responseStatus",
      "requestReceivedTimestamp",
      "stageTimestamp",
      "annotations",
    ]);
  });

  it("keeps the request object at Request and the response object at RequestResponse, a Status in responseStatus", async () => {
    const policy: AuditPolicy = {
      rules: [
        { level: "Request", verbs: ["create"] },
        { level: "RequestResponse", verbs: ["update"], omitManagedFields: true },
      ],
    };
    const create = { ...getPod, verb: "create", name: "" };
    const update = { ...getPod, verb: "update" };
    await using s = await audited(policy, (audit, req, res) => {
      const isCreate = req.method === "POST";
      audit.authenticated(bob, isCreate ? create : update);
      const body = { metadata: { name: "p", uid: "u", resourceVersion: "7", managedFields: [{}] } };
      audit.requestBody(Buffer.from(JSON.stringify(body)), "application/json");
      if (isCreate) {
        const status = errors.alreadyExists({ group: "", resource: "pods" }, "p").status;
        answer(audit, res, 409, status);
      } else {
        answer(audit, res, 200, { kind: "Pod", ...body });
      }
    });
    await (await fetch(`${s.url}/c`, { method: "POST" })).text();
    const created = (await s.until("ResponseComplete")).at(-1)!;
    assert.equal(created.level, "Request");
    assert.deepEqual(created.objectRef, {
      resource: "pods",
      namespace: "ns",
      name: "p",
      uid: "u",
      apiVersion: "v1",
      resourceVersion: "7",
    });
    assert.deepEqual(created.requestObject, {
      metadata: { name: "p", uid: "u", resourceVersion: "7", managedFields: [{}] },
    });
    assert.equal(created.responseObject, undefined);
    assert.deepEqual(created.responseStatus, {
      metadata: {},
      status: "Failure",
      message: 'pods "p" already exists',
      reason: "AlreadyExists",
      details: { name: "p", kind: "pods" },
      code: 409,
    });
    s.sink.clear();
    await (await fetch(`${s.url}/u`, { method: "PUT" })).text();
    const updated = (await s.until("ResponseComplete")).at(-1)!;
    const meta = { name: "p", uid: "u", resourceVersion: "7" };
    assert.deepEqual(updated.requestObject, { metadata: meta });
    assert.deepEqual(updated.responseObject, { kind: "Pod", metadata: meta });
  });

  it("writes ResponseStarted when a long-running answer starts, and omits the stages the policy says", async () => {
    await using s = await audited(
      { rules: [{ level: "Metadata", omitStages: ["RequestReceived"] }] },
      (audit, _req, res) => {
        audit.authenticated(bob, watchPods);
        res.writeHead(200, { "content-type": "application/json" });
        res.write("{}\n");
      },
    );
    const stop = new AbortController();
    const res = await fetch(`${s.url}/w`, { signal: stop.signal });
    assert.equal(res.status, 200);
    assert.deepEqual(
      (await s.until("ResponseStarted")).map((e) => [e.stage, e.responseStatus]),
      [["ResponseStarted", { metadata: {}, code: 200 }]],
    );
    stop.abort();
    assert.deepEqual(
      (await s.until("ResponseComplete")).map((e) => e.stage),
      ["ResponseStarted", "ResponseComplete"],
    );
  });

  it("says a connection closed before any answer was a success closed early, as kube does", async () => {
    const stop = new AbortController();
    await using s = await audited(undefined, (audit) => {
      audit.authenticated(bob, getPod);
      stop.abort(); // the client leaves; nothing is ever written
    });
    await assert.rejects(fetch(`${s.url}/x`, { signal: stop.signal }));
    const complete = (await s.until("ResponseComplete")).at(-1)!;
    assert.deepEqual(complete.responseStatus, {
      metadata: {},
      status: "Success",
      message: "Connection closed early",
      code: 200,
    });
  });

  it("writes Panic instead of ResponseComplete when serving throws what is no API error", async () => {
    await using s = await audited(undefined, (audit, _req, res) => {
      audit.authenticated(bob, getPod);
      audit.failed(errors.notFound({ group: "", resource: "pods" }, "p")); // an API error: no panic
      audit.failed(new TypeError("x is undefined"));
      answer(audit, res, 500, { kind: "Status", code: 500 });
    });
    await (await fetch(`${s.url}/p`)).text();
    const events = await s.until("Panic");
    assert.deepEqual(
      events.map((e) => e.stage),
      ["RequestReceived", "Panic"],
    );
    assert.deepEqual(events[1]!.responseStatus, {
      metadata: {},
      status: "Failure",
      message: "APIServer panic'd: x is undefined",
      reason: "InternalError",
      code: 500,
    });
  });

  it("writes only ResponseStarted, with no user, for a request that failed authentication", async () => {
    await using s = await audited(undefined, (audit, _req, res) => {
      audit.authenticated(undefined, getPod);
      answer(audit, res, 401, errors.unauthorized().status);
    });
    await (await fetch(`${s.url}/x`)).text();
    const [only] = await s.until("ResponseStarted");
    assert.deepEqual(only!.user, {});
    assert.equal(only!.responseStatus?.reason, "Unauthorized");
    assert.equal(only!.annotations, undefined);
  });

  it("records nothing of a request at level None, and the impersonated user once known", async () => {
    const policy: AuditPolicy = {
      rules: [{ level: "None", verbs: ["watch"] }, { level: "Metadata" }],
    };
    await using s = await audited(policy, (audit, req, res) => {
      if (req.url === "/w") {
        audit.authenticated(bob, watchPods);
      } else {
        audit.authenticated(bob, getPod);
        audit.impersonated(
          { username: "ann", groups: ["system:authenticated"] },
          "impersonate:user-info",
        );
      }
      answer(audit, res, 200, { kind: "Pod" });
    });
    await (await fetch(`${s.url}/w`)).text();
    await (await fetch(`${s.url}/g`)).text();
    const events = await s.until("ResponseComplete");
    assert.deepEqual(
      events.map((e) => [e.verb, e.stage, e.impersonatedUser?.username]),
      [
        ["get", "RequestReceived", undefined],
        ["get", "ResponseComplete", "ann"],
      ],
    );
    assert.deepEqual(events[1]!.authenticationMetadata, {
      impersonationConstraint: "impersonate:user-info",
    });
  });
});
