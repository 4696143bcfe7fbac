import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { decodeManagedFields, managerId, parseManagerId } from "./managed-fields.ts";

const entry = (time: unknown) => [
  {
    manager: "m",
    operation: "Update",
    apiVersion: "v1",
    time,
    fieldsType: "FieldsV1",
    fieldsV1: {},
  },
];
const timeOf = (time: unknown) => [...decodeManagedFields(entry(time)).times.values()][0];

describe("decodeManagedFields: entry times", () => {
  it("keeps a time already as kube writes it, and cuts one with a fraction to the second", () => {
    assert.equal(timeOf("2026-01-02T03:04:05Z"), "2026-01-02T03:04:05Z");
    assert.equal(timeOf("2026-01-02T03:04:05.999Z"), "2026-01-02T03:04:05Z");
    assert.equal(timeOf("2026-01-02T04:04:05+01:00"), "2026-01-02T03:04:05Z");
  });

  it("refuses a time that is not one, even in the right shape", () => {
    for (const bad of ["2026-13-02T03:04:05Z", "yesterday", 42]) {
      assert.throws(
        () => decodeManagedFields(entry(bad)),
        /is not an RFC 3339 time in managed fields entry 0/,
      );
    }
  });
});

describe("parseManagerId", () => {
  it("gives back the parts of an identifier, the same for the same identifier", () => {
    const id = managerId({
      manager: "kubectl",
      operation: "Update",
      apiVersion: "v1",
      subresource: "status",
    });
    const info = parseManagerId(id);
    assert.deepEqual(info, {
      manager: "kubectl",
      operation: "Update",
      apiVersion: "v1",
      subresource: "status",
    });
    assert.equal(parseManagerId(id), info, "parsed once");
    assert.ok(Object.isFrozen(info), "shared, so frozen");
  });
});
