/**
 * The fields of an Event Go writes even when they are empty, read back as kube-apiserver 1.36
 * returns them: a core/v1 Event's source `{}`, its times null and its reporting strings `""`;
 * the same Event through events.k8s.io/v1 with deprecatedSource `{}`, its deprecated times null
 * and no empty reporting fields — none of them owned by the writer; a new-style Event without
 * its reporting controller is refused naming the field as the request's version does. Runs on
 * both backends.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { startTestServer, type TestServer } from "kontroller/testing";
import { call } from "./helpers.ts";

let s: TestServer;
before(async () => {
  s = await startTestServer({ controllers: false });
});
after(() => s.close());

describe("an Event's always-written fields", () => {
  it("are read back as Go writes them, through both APIs, owned by nobody", async () => {
    const created = await call(
      s.url,
      "POST",
      "/api/v1/namespaces/default/events?fieldManager=writer",
      {
        apiVersion: "v1",
        kind: "Event",
        metadata: { name: "zeroes" },
        involvedObject: { kind: "Pod", name: "web", namespace: "default" },
        reason: "Checked",
        message: "checked",
        type: "Normal",
      },
    );
    assert.equal(created.status, 201, JSON.stringify(created.body));
    const e = created.body;
    assert.deepEqual(
      [
        e.source,
        e.firstTimestamp,
        e.lastTimestamp,
        e.eventTime,
        e.reportingComponent,
        e.reportingInstance,
      ],
      [{}, null, null, null, "", ""],
    );
    const owned = e.metadata.managedFields.find((m: { manager: string }) => m.manager === "writer");
    for (const field of ["f:source", "f:firstTimestamp", "f:reportingComponent"])
      assert.equal(owned.fieldsV1[field], undefined, `${field} is nobody's`);
    const v1 = (await call(s.url, "GET", "/apis/events.k8s.io/v1/namespaces/default/events/zeroes"))
      .body;
    assert.deepEqual(
      [v1.deprecatedSource, v1.deprecatedFirstTimestamp, v1.deprecatedLastTimestamp],
      [{}, null, null],
    );
    assert.equal("reportingController" in v1, false);
    assert.equal("reportingInstance" in v1, false);
  });
});

describe("a new-style Event's reporting controller", () => {
  it("is reported missing under its field name in the request's version", async () => {
    const regex =
      "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";
    const causes = (f: string) => [
      { reason: "FieldValueRequired", message: "Required value", field: f },
      {
        reason: "FieldValueInvalid",
        message: 'Invalid value: "": name part must be non-empty',
        field: f,
      },
      { reason: "FieldValueInvalid", message: `Invalid value: "": ${regex}`, field: f },
    ];
    const core = await call(s.url, "POST", "/api/v1/namespaces/default/events", {
      apiVersion: "v1",
      kind: "Event",
      metadata: { name: "unreported" },
      involvedObject: { kind: "Pod", name: "web", namespace: "default" },
      eventTime: "2026-01-01T00:00:00.000000Z",
      reportingInstance: "i",
      action: "Check",
      reason: "Checked",
      type: "Normal",
    });
    assert.equal(core.status, 422);
    assert.deepEqual(core.body.details.causes, causes("reportingComponent"));
    const v1 = await call(s.url, "POST", "/apis/events.k8s.io/v1/namespaces/default/events", {
      apiVersion: "events.k8s.io/v1",
      kind: "Event",
      metadata: { name: "unreported" },
      regarding: { kind: "Pod", name: "web", namespace: "default" },
      eventTime: "2026-01-01T00:00:00.000000Z",
      reportingInstance: "i",
      action: "Check",
      reason: "Checked",
      type: "Normal",
    });
    assert.equal(v1.status, 422);
    assert.deepEqual(v1.body.details.causes, causes("reportingController"));
  });
});
