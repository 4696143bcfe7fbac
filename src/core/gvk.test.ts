import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { formatApiVersion, parseApiVersion } from "./gvk.ts";

describe("apiVersion", () => {
  it("splits and joins group and version", () => {
    assert.deepEqual(parseApiVersion("v1"), { group: "", version: "v1" });
    assert.deepEqual(parseApiVersion("apps/v1"), { group: "apps", version: "v1" });
    assert.equal(formatApiVersion({ group: "", version: "v1" }), "v1");
    assert.equal(
      formatApiVersion({ group: "example.com", version: "v1alpha1" }),
      "example.com/v1alpha1",
    );
  });

  it("refuses malformed values", () => {
    for (const bad of ["", "/v1", "apps/", "a/b/c"]) {
      assert.throws(() => parseApiVersion(bad), /invalid apiVersion/, bad);
    }
  });
});
