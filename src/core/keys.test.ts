import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  DeletedFinalStateUnknown,
  deletionHandlingKey,
  keyOf,
  objectKey,
  splitKey,
} from "./keys.ts";

describe("object keys", () => {
  it("is namespace/name for namespaced objects and name for cluster-scoped ones", () => {
    assert.equal(objectKey({ metadata: { namespace: "prod", name: "web" } }), "prod/web");
    assert.equal(objectKey({ metadata: { name: "node-1" } }), "node-1");
    assert.equal(objectKey({ metadata: { namespace: "", name: "node-1" } }), "node-1");
    assert.equal(keyOf("prod", "web"), "prod/web");
    assert.equal(keyOf(undefined, "web"), "web");
  });

  it("refuses an object without a name, saying what it is", () => {
    assert.throws(
      () => objectKey({ kind: "ConfigMap", metadata: {} }),
      /ConfigMap without metadata\.name/,
    );
    assert.throws(() => objectKey({}), /object without metadata\.name/);
  });

  it("splits keys back into their parts", () => {
    assert.deepEqual(splitKey("prod/web"), { namespace: "prod", name: "web" });
    assert.deepEqual(splitKey("node-1"), { name: "node-1" });
  });

  it("refuses malformed keys", () => {
    for (const bad of ["", "/web", "prod/", "a/b/c"]) {
      assert.throws(() => splitKey(bad), TypeError, bad);
    }
  });

  it("keys a tombstone by the key it carries", () => {
    const obj = { metadata: { namespace: "prod", name: "web" } };
    assert.equal(
      deletionHandlingKey(new DeletedFinalStateUnknown({ key: "prod/web", obj })),
      "prod/web",
    );
    assert.equal(deletionHandlingKey(obj), "prod/web");
  });
});
