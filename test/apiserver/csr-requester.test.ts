/**
 * A CertificateSigningRequest as kube-apiserver 1.36's registry keeps it: the requester the
 * request authenticated as is its spec.username, uid and groups, whatever the client sent; its
 * status starts empty; an update of the object itself changes neither spec nor status; and no
 * writer owns either in managedFields. On both backends, with the server's shared token — whose
 * user is the same admin on both. Its approval is written through the `approval` subresource.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { startTestServer, type TestServer } from "kontroller/testing";
import { call, type Loose } from "./helpers.ts";

const PATH = "/apis/certificates.k8s.io/v1/certificatesigningrequests";
const TOKEN = "csr-requester-token";
const auth = { authorization: `Bearer ${TOKEN}` };
const ADMIN = {
  username: "admin",
  uid: "kontroller-admin",
  groups: ["system:masters", "system:authenticated"],
};

let s: TestServer;
before(async () => {
  s = await startTestServer({ controllers: false, token: TOKEN });
});
after(() => s.close());

function csr(name: string, spec: Record<string, unknown> = {}) {
  return {
    apiVersion: "certificates.k8s.io/v1",
    kind: "CertificateSigningRequest",
    metadata: { name, labels: { app: "csr" } },
    spec: {
      request: CSR,
      signerName: "example.com/signer",
      usages: ["digital signature"],
      ...spec,
    },
  };
}

const fieldsOf = (o: Loose) =>
  Object.fromEntries(o.metadata.managedFields.map((m: Loose) => [m.manager, m.fieldsV1]));

describe("a CertificateSigningRequest", () => {
  it("records who created it, not who the client says, and owns no spec", async () => {
    const created = await call(
      s.url,
      "POST",
      `${PATH}?fieldManager=writer`,
      csr("requester", { username: "mallory", groups: ["system:masters"], extra: { x: ["y"] } }),
      auth,
    );
    assert.equal(created.status, 201, JSON.stringify(created.body));
    const c = created.body;
    assert.deepEqual(
      { username: c.spec.username, uid: c.spec.uid, groups: c.spec.groups, extra: c.spec.extra },
      { ...ADMIN, extra: undefined },
    );
    assert.deepEqual(c.status, {});
    assert.deepEqual(fieldsOf(c), {
      writer: { "f:metadata": { "f:labels": { ".": {}, "f:app": {} } } },
    });
    const table = await call(s.url, "GET", `${PATH}/requester`, undefined, {
      ...auth,
      accept: "application/json;as=Table;v=v1;g=meta.k8s.io",
    });
    assert.equal(table.body.rows[0].cells[3], "admin", "the Requestor column");
  });

  it("keeps its spec and status through an update of the object itself", async () => {
    const created = await call(s.url, "POST", `${PATH}?fieldManager=writer`, csr("kept"), auth);
    assert.equal(created.status, 201, JSON.stringify(created.body));
    const next = created.body;
    next.metadata.labels.app = "changed";
    next.spec.signerName = "example.com/other";
    next.spec.username = "mallory";
    next.status = { conditions: [{ type: "Approved", status: "True" }] };
    const updated = await call(s.url, "PUT", `${PATH}/kept?fieldManager=updater`, next, auth);
    assert.equal(updated.status, 200, JSON.stringify(updated.body));
    const u = updated.body;
    assert.equal(u.metadata.labels.app, "changed");
    assert.equal(u.spec.signerName, "example.com/signer");
    assert.equal(u.spec.username, "admin");
    assert.deepEqual(u.status, {});
    assert.deepEqual(fieldsOf(u), {
      writer: { "f:metadata": { "f:labels": {} } },
      updater: { "f:metadata": { "f:labels": { "f:app": {} } } },
    });
  });

  it("owns no spec through a server-side apply either", async () => {
    const applied = await call(
      s.url,
      "PATCH",
      `${PATH}/applied?fieldManager=applier`,
      csr("applied"),
      { ...auth, "content-type": "application/apply-patch+yaml" },
    );
    assert.equal(applied.status, 201, JSON.stringify(applied.body));
    assert.equal(applied.body.spec.username, "admin");
    assert.deepEqual(fieldsOf(applied.body), {
      applier: { "f:metadata": { "f:labels": { "f:app": {} } } },
    });
  });
});

describe("a CertificateSigningRequest's approval", () => {
  const condition = (type: string) => ({ type, status: "True", reason: "Test", message: type });
  const conditions = (o: Loose) =>
    (o.status.conditions ?? []).map((c: Loose) => `${c.type}=${c.status}`);
  const write = (name: string, sub: string, body: Loose, conds: Loose[]) =>
    call(
      s.url,
      "PUT",
      `${PATH}/${name}/${sub}?fieldManager=approver`,
      { ...body, status: { ...body.status, conditions: conds } },
      auth,
    );
  const causes = (r: Loose) => r.body.details.causes.map((c: Loose) => `${c.field}: ${c.message}`);

  it("sets the conditions alone, with their times, recorded under the subresource", async () => {
    const created = (await call(s.url, "POST", PATH, csr("approved"), auth)).body;
    const approved = await write(
      "approved",
      "approval",
      { ...created, spec: { ...created.spec, signerName: "example.com/other" } },
      [condition("Approved")],
    );
    assert.equal(approved.status, 200, JSON.stringify(approved.body));
    assert.deepEqual(conditions(approved.body), ["Approved=True"]);
    const c = approved.body.status.conditions[0];
    assert.match(c.lastUpdateTime, /^\d{4}-/);
    assert.equal(c.lastTransitionTime, c.lastUpdateTime);
    assert.equal(approved.body.spec.signerName, "example.com/signer", "the spec stays");
    const entry = approved.body.metadata.managedFields.find((m: Loose) => m.manager === "approver");
    assert.equal(entry.subresource, "approval");
    assert.deepEqual(Object.keys(entry.fieldsV1), ["f:status"]);

    const both = await write("approved", "approval", approved.body, [
      ...approved.body.status.conditions,
      condition("Denied"),
    ]);
    assert.equal(both.status, 422);
    assert.deepEqual(causes(both), [
      'status.conditions: Invalid value: "Denied": Approved and Denied conditions are mutually exclusive',
    ]);
    const removed = await write("approved", "approval", approved.body, []);
    assert.equal(removed.status, 422);
    assert.deepEqual(causes(removed), [
      'status.conditions: Forbidden: updates may not remove a condition of type "Approved"',
    ]);
  });

  it("may not be given through status, nor with a status other than True", async () => {
    const created = (await call(s.url, "POST", PATH, csr("unapproved"), auth)).body;
    const viaStatus = await write("unapproved", "status", created, [condition("Approved")]);
    assert.equal(viaStatus.status, 422);
    assert.deepEqual(causes(viaStatus), [
      'status.conditions: Forbidden: updates may not add a condition of type "Approved"',
    ]);
    const notTrue = await write("unapproved", "approval", created, [
      { ...condition("Approved"), status: "False" },
    ]);
    assert.equal(notTrue.status, 422);
    assert.deepEqual(causes(notTrue), [
      'status.conditions[0].status: Unsupported value: "False": supported values: "True"',
    ]);
  });
});

const CSR =
  "LS0tLS1CRUdJTiBDRVJUSUZJQ0FURSBSRVFVRVNULS0tLS0KTUlITE1ITUNBUUF3RVRFUE1BMEdBMVVFQXd3R1kyOXRjR0YwTUZrd0V3WUhLb1pJemowQ0FRWUlLb1pJemowRApBUWNEUWdBRVJma01uUm1NWDJqWWhVWHFwa3JHSWUrdyt2QUdWLzVvMkN5NzNkOCtSb2w2NW9ic3lJSmUvajZGCjJ5ZXptQ2h4SWwyM0drRnNaUFRlY05WUkkzbmYrNkFBTUFvR0NDcUdTTTQ5QkFNQ0EwZ0FNRVVDSUExTjBFdzMKZ1ZiY0o3RDZ5WUw1UFdtWWZxckhyN0VUenc2R0p3ZEtJMlJ3QWlFQTVGd0c5aFVubTZRRDhtSE5ZMThCeVd1MQpaL2tqL1lRZ3hUdTFlZitNVmNBPQotLS0tLUVORCBDRVJUSUZJQ0FURSBSRVFVRVNULS0tLS0K";
