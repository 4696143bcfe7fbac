import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { parseTime, toMicroTime, toTime } from "./time.ts";

describe("Kubernetes times", () => {
  const t = Date.UTC(2026, 0, 2, 3, 4, 5, 678);
  it("formats Time at second precision and MicroTime with six digits", () => {
    assert.equal(toTime(t), "2026-01-02T03:04:05Z");
    assert.equal(toMicroTime(t), "2026-01-02T03:04:05.678000Z");
  });
  it("parses both back", () => {
    assert.equal(parseTime(toMicroTime(t)), t);
    assert.equal(parseTime(toTime(t)), t - 678);
    assert.equal(parseTime("not a time"), undefined);
    assert.equal(parseTime(undefined), undefined);
  });
});
