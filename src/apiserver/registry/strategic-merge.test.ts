/**
 * Strategic merge patch of built-in kinds, with the merge strategies of the built-in types
 * table (their Go types' patchStrategy and patchMergeKey).
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { statusCode } from "../../core/index.ts";
import { applyStrategicMerge } from "../patch/strategic-merge.ts";
import { strategicMergeType } from "./builtin-types.ts";

const POD = strategicMergeType("", "v1", "Pod");
const DEPLOYMENT = strategicMergeType("apps", "v1", "Deployment");
const CONFIG_MAP = strategicMergeType("", "v1", "ConfigMap");

const code = (fn: () => unknown) => {
  try {
    fn();
  } catch (err) {
    return statusCode(err);
  }
  return undefined;
};

describe("applyStrategicMerge", () => {
  it("merges lists by merge key, keeps order directives, and unions primitive merge lists", () => {
    const pod = {
      metadata: { finalizers: ["a"] },
      spec: {
        containers: [
          { name: "x", image: "1" },
          { name: "y", image: "1" },
        ],
        tolerations: [{ key: "t" }],
      },
    };
    const out = applyStrategicMerge(POD, pod, {
      metadata: { finalizers: ["b"] },
      spec: {
        "$setElementOrder/containers": [{ name: "y" }, { name: "x" }],
        containers: [{ name: "y", image: "2" }],
        tolerations: [{ key: "u" }],
      },
    }) as typeof pod;
    assert.deepEqual(out.spec.containers, [
      { name: "y", image: "2" },
      { name: "x", image: "1" },
    ]);
    assert.deepEqual(out.spec.tolerations, [{ key: "u" }], "lists without a strategy are replaced");
    // As kube orders a merged list: what the patch adds goes before what only the server had.
    assert.deepEqual(out.metadata.finalizers, ["b", "a"]);
  });

  it("honours $patch replace/delete, $retainKeys and $deleteFromPrimitiveList", () => {
    const obj = {
      spec: { strategy: { type: "RollingUpdate", rollingUpdate: { maxSurge: 1 } }, a: { b: 1 } },
      metadata: { finalizers: ["a", "b"] },
    };
    const out = applyStrategicMerge(DEPLOYMENT, obj, {
      spec: {
        strategy: { $retainKeys: ["type"], type: "Recreate" },
        a: { $patch: "replace", c: 2 },
      },
      metadata: { "$deleteFromPrimitiveList/finalizers": ["a"] },
    });
    assert.deepEqual(out, {
      spec: { strategy: { type: "Recreate" }, a: { c: 2 } },
      metadata: { finalizers: ["b"] },
    });
    assert.deepEqual(
      applyStrategicMerge(CONFIG_MAP, { data: { a: "1" } }, { data: { $patch: "delete" } }),
      {},
    );
  });

  it("is 400 for a malformed patch or directive", () => {
    assert.equal(
      code(() => applyStrategicMerge(POD, {}, [1])),
      400,
    );
    assert.equal(
      code(() => applyStrategicMerge(POD, {}, { spec: { $patch: "explode" } })),
      400,
    );
    assert.equal(
      code(() => applyStrategicMerge(POD, {}, { $retainKeys: "x" })),
      400,
    );
    assert.equal(
      code(() =>
        applyStrategicMerge(POD, { spec: {} }, { spec: { containers: ["not-an-object"] } }),
      ),
      400,
    );
  });
});
