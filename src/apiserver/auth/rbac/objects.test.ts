import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import type { UserInfo } from "../user.ts";
import {
  clusterRole,
  clusterRoleBinding,
  role,
  roleBinding,
  rule,
  serviceAccount,
  user,
} from "./fixtures.test-helper.ts";
import { MemoryRbacObjects } from "./objects.ts";
import { appliesTo } from "./rule-resolver.ts";
import type { RoleBinding } from "./types.ts";

const names = (bindings: Iterable<RoleBinding>) => [...bindings].map((b) => b.metadata?.name);

describe("MemoryRbacObjects", () => {
  it("gets roles by namespace and name, and cluster roles by name", () => {
    const o = new MemoryRbacObjects({
      roles: [role("a", "r", rule("get", "", "pods"))],
      clusterRoles: [clusterRole("c")],
    });
    assert.equal(o.getRole("a", "r")?.metadata?.name, "r");
    assert.equal(o.getRole("b", "r"), undefined);
    assert.equal(o.getClusterRole("c")?.metadata?.name, "c");
    assert.deepEqual(
      [...o.listClusterRoles()].map((r) => r.metadata?.name),
      ["c"],
    );
    o.delete("roles", "a", "r");
    o.delete("clusterroles", "", "c");
    assert.equal(o.getRole("a", "r"), undefined);
    assert.equal(o.getClusterRole("c"), undefined);
  });

  it("finds a user's bindings by user, group and service account, ordered by name", () => {
    const o = new MemoryRbacObjects({
      roleBindings: [
        roleBinding("ns", "z-user", "Role:r", "User:alice"),
        roleBinding("ns", "m-group", "Role:r", "Group:devs"),
        roleBinding("ns", "a-sa", "Role:r", "ServiceAccount:robot"),
        roleBinding("ns", "other", "Role:r", "User:bob"),
        roleBinding("other-ns", "elsewhere", "Role:r", "User:alice"),
      ],
    });
    assert.deepEqual(names(o.roleBindingsFor("ns", user("alice", "devs"))), ["m-group", "z-user"]);
    assert.deepEqual(names(o.roleBindingsFor("ns", serviceAccount("ns", "robot"))), ["a-sa"]);
    assert.deepEqual(names(o.roleBindingsFor("nowhere", user("alice"))), []);
    assert.deepEqual(
      names(o.roleBindingsFor("", user("alice"))),
      [],
      "no RoleBinding is cluster-wide",
    );
  });

  it("re-indexes a binding whose subjects change, and forgets a deleted one", () => {
    const o = new MemoryRbacObjects({
      clusterRoleBindings: [clusterRoleBinding("b", "r", "User:alice")],
    });
    o.upsert("clusterrolebindings", clusterRoleBinding("b", "r", "User:bob"));
    assert.deepEqual(names(o.clusterRoleBindingsFor(user("alice"))), []);
    assert.deepEqual(names(o.clusterRoleBindingsFor(user("bob"))), ["b"]);
    o.delete("clusterrolebindings", "", "b");
    o.delete("clusterrolebindings", "", "never-there");
    o.delete("rolebindings", "ns", "never-there");
    assert.deepEqual(names(o.clusterRoleBindingsFor(user("bob"))), []);
  });

  it("returns a binding once when several of its subjects name the user", () => {
    const o = new MemoryRbacObjects({
      roleBindings: [
        roleBinding("ns", "b", "Role:r", "User:alice", "Group:devs", "Group:system:authenticated"),
      ],
    });
    assert.deepEqual(names(o.roleBindingsFor("ns", user("alice", "devs"))), ["b"]);
  });

  it("returns exactly the bindings a subject of which applies, as a scan of all of them would", () => {
    const who = fc.constantFrom(
      "alice",
      "bob",
      "system:serviceaccount:ns:robot",
      "system:serviceaccount:x:robot",
    );
    const group = fc.constantFrom("devs", "ops", "system:authenticated");
    const subjectText = fc.oneof(
      who.map((u) => `User:${u}`),
      group.map((g) => `Group:${g}`),
      fc.constantFrom(
        "ServiceAccount:robot",
        "ServiceAccount:ns:robot",
        "ServiceAccount:x:robot",
        "Robot:alice",
      ),
    );
    const binding = fc.record({
      namespace: fc.constantFrom("ns", "x"),
      name: fc.constantFrom("a", "b", "c", "d"),
      cluster: fc.boolean(),
      subjects: fc.array(subjectText, { maxLength: 3 }),
    });
    const op = fc.record({ delete: fc.boolean(), binding });
    fc.assert(
      fc.property(
        fc.array(op, { maxLength: 30 }),
        who,
        fc.subarray(["devs", "ops", "system:authenticated"]),
        (ops, username, groups) => {
          const o = new MemoryRbacObjects();
          const model = new Map<string, RoleBinding>();
          for (const { delete: del, binding: b } of ops) {
            const resource = b.cluster ? "clusterrolebindings" : "rolebindings";
            const ns = b.cluster ? "" : b.namespace;
            const key = `${resource}/${ns}/${b.name}`;
            if (del) {
              o.delete(resource, ns, b.name);
              model.delete(key);
            } else {
              const obj = b.cluster
                ? clusterRoleBinding(b.name, "r", ...b.subjects)
                : roleBinding(ns, b.name, "Role:r", ...b.subjects);
              o.upsert(resource, obj);
              model.set(key, obj);
            }
          }
          const u: UserInfo = { username, groups };
          const expected = (prefix: string, ns: string) =>
            [...model.entries()]
              .filter(
                ([k, b]) =>
                  k.startsWith(prefix) && appliesTo(u, b.subjects ?? [], ns) !== undefined,
              )
              .map(([, b]) => b.metadata?.name)
              .sort();
          assert.deepEqual(
            names(o.clusterRoleBindingsFor(u)),
            expected("clusterrolebindings//", ""),
          );
          for (const ns of ["ns", "x"]) {
            const found = [...o.roleBindingsFor(ns, u)].filter(
              (b) => appliesTo(u, b.subjects ?? [], ns) !== undefined,
            );
            assert.deepEqual(names(found), expected(`rolebindings/${ns}/`, ns));
          }
        },
      ),
    );
  });
});
