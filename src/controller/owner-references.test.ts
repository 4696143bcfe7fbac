import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { KubeObject } from "../core/index.ts";
import {
  AlreadyOwnedError,
  getControllerOf,
  isControlledBy,
  removeOwnerReference,
  setControllerReference,
  setOwnerReference,
} from "./owner-references.ts";

const user = (uid = "u1", name = "ann"): KubeObject => ({
  apiVersion: "example.com/v1",
  kind: "User",
  metadata: { name, uid },
});
const ns = (): KubeObject => ({
  apiVersion: "v1",
  kind: "Namespace",
  metadata: { name: "user-ann" },
});
const cm = (namespace = "a"): KubeObject => ({
  apiVersion: "v1",
  kind: "ConfigMap",
  metadata: { name: "c", namespace, uid: "c1" },
});

describe("owner references", () => {
  it("sets a controller reference that blocks owner deletion", () => {
    const child = ns();
    setControllerReference(user(), child);
    assert.deepEqual(child.metadata?.ownerReferences, [
      {
        apiVersion: "example.com/v1",
        kind: "User",
        name: "ann",
        uid: "u1",
        controller: true,
        blockOwnerDeletion: true,
      },
    ]);
    assert.equal(isControlledBy(child, user()), true);
    assert.equal(isControlledBy(child, user("other")), false);
    // Setting it again (even at another version) replaces, never duplicates.
    setControllerReference({ ...user(), apiVersion: "example.com/v2" }, child);
    assert.equal(child.metadata?.ownerReferences?.length, 1);
    assert.equal(getControllerOf(child)?.apiVersion, "example.com/v2");
  });

  it("refuses a second controller", () => {
    const child = ns();
    setControllerReference(user("u1", "ann"), child);
    assert.throws(
      () => setControllerReference(user("u2", "bob"), child),
      (e: unknown) => {
        assert.ok(e instanceof AlreadyOwnedError);
        assert.match(
          e.message,
          /Namespace user-ann is already owned by another User controller ann \(uid u1\)/,
        );
        return true;
      },
    );
  });

  it("adds plain owner references beside the controller and removes them", () => {
    const child = ns();
    setControllerReference(user("u1", "ann"), child);
    setOwnerReference(user("u2", "bob"), child);
    setOwnerReference(user("u1", "ann"), child); // keeps ann's controller flag
    assert.deepEqual(
      child.metadata?.ownerReferences?.map((r) => [r.name, r.controller ?? false]),
      [
        ["ann", true],
        ["bob", false],
      ],
    );
    assert.equal(removeOwnerReference(user("u2", "bob"), child), true);
    assert.equal(removeOwnerReference(user("u2", "bob"), child), false);
    assert.equal(child.metadata?.ownerReferences?.length, 1);
  });

  it("refuses references the garbage collector would not honour", () => {
    assert.throws(
      () => setOwnerReference(cm("a"), ns()),
      /cluster-scoped Namespace user-ann must not have a namespace-scoped owner/,
    );
    assert.throws(
      () => setOwnerReference(cm("a"), cm("b")),
      /cross-namespace owner references are disallowed/,
    );
    // A cluster-scoped owner may own a namespaced object.
    const child = cm("b");
    setOwnerReference(user(), child);
    assert.equal(child.metadata?.ownerReferences?.length, 1);
  });

  it("needs a stored owner with kind, name and uid", () => {
    assert.throws(
      () => setOwnerReference({ metadata: { name: "x", uid: "u" } }, ns()),
      /has no apiVersion\/kind/,
    );
    assert.throws(
      () => setOwnerReference({ ...user(), metadata: { name: "ann" } }, ns()),
      /has no uid/,
    );
  });
});
