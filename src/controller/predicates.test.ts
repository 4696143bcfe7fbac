import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { KubeObject } from "../core/index.ts";
import { mergePatchDiff } from "./merge-diff.ts";
import {
  and,
  annotationsChanged,
  evaluate,
  generationChanged,
  labelSelector,
  labelsChanged,
  not,
  or,
  resourceVersionChanged,
} from "./predicates.ts";

const obj = (meta: Record<string, unknown>): KubeObject => ({ metadata: { name: "x", ...meta } });

describe("predicates", () => {
  const a = obj({ generation: 1, resourceVersion: "1", labels: { app: "web" } });
  const statusOnly = obj({ generation: 1, resourceVersion: "2", labels: { app: "web" } });
  const specChange = obj({ generation: 2, resourceVersion: "3", labels: { app: "web" } });
  const relabel = obj({ generation: 1, resourceVersion: "4", labels: { app: "db" } });

  it("generationChanged passes spec changes only, and every create and delete", () => {
    assert.equal(evaluate(generationChanged, "update", statusOnly, a), false);
    assert.equal(evaluate(generationChanged, "update", specChange, a), true);
    assert.equal(evaluate(generationChanged, "create", a), true);
    assert.equal(evaluate(generationChanged, "delete", a), true);
  });

  it("resourceVersionChanged drops resync no-ops", () => {
    assert.equal(evaluate(resourceVersionChanged, "update", a, a), false);
    assert.equal(evaluate(resourceVersionChanged, "update", statusOnly, a), true);
  });

  it("labelsChanged and annotationsChanged", () => {
    assert.equal(evaluate(labelsChanged, "update", relabel, a), true);
    assert.equal(evaluate(labelsChanged, "update", statusOnly, a), false);
    assert.equal(evaluate(annotationsChanged, "update", obj({ annotations: { x: "1" } }), a), true);
    assert.equal(evaluate(annotationsChanged, "update", a, a), false);
  });

  it("labelSelector matches the new object", () => {
    const web = labelSelector("app=web");
    assert.equal(evaluate(web, "create", a), true);
    assert.equal(evaluate(web, "update", relabel, a), false);
    assert.equal(evaluate(web, "delete", relabel), false);
    assert.throws(() => labelSelector("app in ("), /invalid label selector/);
  });

  it("and, or, not compose", () => {
    const p = and(generationChanged, labelSelector("app=web"));
    assert.equal(evaluate(p, "update", specChange, a), true);
    assert.equal(evaluate(p, "update", statusOnly, a), false);
    assert.equal(evaluate(or(generationChanged, labelsChanged), "update", relabel, a), true);
    assert.equal(evaluate(or(), "create", a), false);
    assert.equal(evaluate(not(generationChanged), "update", statusOnly, a), true);
  });
});

describe("mergePatchDiff", () => {
  it("sends changes, additions and removals, nothing else", () => {
    assert.deepEqual(
      mergePatchDiff(
        { a: 1, b: { c: 2, d: 3 }, e: [1, 2], f: "gone" },
        { a: 1, b: { c: 2, d: 4, n: 5 }, e: [1, 2, 3] },
      ),
      { b: { d: 4, n: 5 }, e: [1, 2, 3], f: null },
    );
    assert.equal(mergePatchDiff({ a: [1, { b: 2 }] }, { a: [1, { b: 2 }] }), undefined);
  });
});
