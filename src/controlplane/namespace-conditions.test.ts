import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  type ContentReport,
  type NamespaceCondition,
  updateConditions,
} from "./namespace-conditions.ts";

const clean: ContentReport = { contentErrors: [], remaining: new Map(), finalizers: new Map() };
const T1 = "2026-01-01T00:00:00Z";
const T2 = "2026-01-01T00:00:05Z";

const byType = (cs: NamespaceCondition[]) => Object.fromEntries(cs.map((c) => [c.type, c]));

describe("namespace conditions", () => {
  it("writes the five ok conditions the first time, then nothing while nothing changes", () => {
    const first = updateConditions(undefined, clean, T1);
    assert.equal(first.changed, true);
    assert.deepEqual(
      first.conditions.map((c) => [c.type, c.status, c.reason]),
      [
        ["NamespaceDeletionDiscoveryFailure", "False", "ResourcesDiscovered"],
        ["NamespaceDeletionGroupVersionParsingFailure", "False", "ParsedGroupVersions"],
        ["NamespaceDeletionContentFailure", "False", "ContentDeleted"],
        ["NamespaceContentRemaining", "False", "ContentRemoved"],
        ["NamespaceFinalizersRemaining", "False", "ContentHasNoFinalizers"],
      ],
    );
    assert.ok(first.conditions.every((c) => c.lastTransitionTime === T1));
    const again = updateConditions(first.conditions, clean, T2);
    assert.equal(again.changed, false);
    assert.deepEqual(again.conditions, first.conditions);
  });

  it("reports failures and what is left, sorted, without zero counts", () => {
    const { conditions } = updateConditions(
      undefined,
      {
        discoveryError: "Discovery failed for some groups, 1 failing: apps/v1: boom",
        contentErrors: ["widgets.example.com (example.com/v1): no", "configmaps. (v1): nope"],
        remaining: new Map([
          ["widgets.example.com", 2],
          ["configmaps.", 1],
          ["secrets.", 0],
        ]),
        finalizers: new Map([
          ["example.com/b", 1],
          ["example.com/a", 2],
          ["none", 0],
        ]),
      },
      T1,
    );
    const c = byType(conditions);
    assert.deepEqual(
      [c.NamespaceDeletionDiscoveryFailure?.status, c.NamespaceDeletionDiscoveryFailure?.reason],
      ["True", "DiscoveryFailed"],
    );
    assert.equal(
      c.NamespaceDeletionContentFailure?.message,
      "Failed to delete all resource types, 2 remaining: configmaps. (v1): nope, widgets.example.com (example.com/v1): no",
    );
    assert.equal(
      c.NamespaceContentRemaining?.message,
      "Some resources are remaining: configmaps. has 1 resource instances, widgets.example.com has 2 resource instances",
    );
    assert.equal(c.NamespaceContentRemaining?.reason, "SomeResourcesRemain");
    assert.equal(
      c.NamespaceFinalizersRemaining?.message,
      "Some content in the namespace has finalizers remaining: example.com/a in 2 resource instances, example.com/b in 1 resource instances",
    );
    assert.equal(c.NamespaceDeletionGroupVersionParsingFailure?.status, "False");
  });

  it("moves lastTransitionTime only when a status flips, and keeps other condition types", () => {
    const other: NamespaceCondition = {
      type: "Custom",
      status: "True",
      reason: "Mine",
      message: "kept",
      lastTransitionTime: T1,
    };
    const left = (n: number): ContentReport => ({
      ...clean,
      remaining: new Map([["configmaps.", n]]),
    });
    const a = updateConditions([other], left(2), T1);
    const b = updateConditions(a.conditions, left(1), T2);
    assert.equal(b.changed, true, "the message changed");
    assert.equal(byType(b.conditions).NamespaceContentRemaining?.lastTransitionTime, T1);
    const c = updateConditions(b.conditions, clean, T2);
    assert.equal(byType(c.conditions).NamespaceContentRemaining?.status, "False");
    assert.equal(byType(c.conditions).NamespaceContentRemaining?.lastTransitionTime, T2);
    assert.deepEqual(byType(c.conditions).Custom, other);
    assert.deepEqual(a.conditions[0], other, "the input is not changed in place");
  });
});
