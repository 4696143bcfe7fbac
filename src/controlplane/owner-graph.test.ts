import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import type { KubeObject, OwnerReference } from "../core/index.ts";
import { configMaps, namespaces, resourceDefinition } from "../resources/index.ts";
import { OwnerGraph } from "./owner-graph.ts";

const widgets = resourceDefinition({
  group: "example.com",
  version: "v1",
  kind: "Widget",
  plural: "widgets",
});

function cm(
  name: string,
  uid: string,
  opts: {
    namespace?: string;
    owners?: OwnerReference[];
    deleting?: boolean;
    finalizers?: string[];
  } = {},
): KubeObject {
  return {
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: {
      name,
      uid,
      namespace: opts.namespace ?? "default",
      ...(opts.owners ? { ownerReferences: opts.owners } : {}),
      ...(opts.deleting ? { deletionTimestamp: "2026-01-01T00:00:00Z" } : {}),
      ...(opts.finalizers ? { finalizers: opts.finalizers } : {}),
    },
  };
}

const ref = (name: string, uid: string, extra: Partial<OwnerReference> = {}): OwnerReference => ({
  apiVersion: "v1",
  kind: "ConfigMap",
  name,
  uid,
  ...extra,
});

describe("OwnerGraph", () => {
  it("checks a dependent whose owner it has not observed, and indexes it under the owner's uid", () => {
    const g = new OwnerGraph();
    const c = g.observe(configMaps, cm("child", "c", { owners: [ref("owner", "o")] }));
    assert.deepEqual([...c.attemptToDelete], ["c"]);
    assert.deepEqual(
      g.dependentsOf("o").map((n) => n.identity.name),
      ["child"],
    );
    const o = g.observe(configMaps, cm("owner", "o"));
    assert.equal(o.attemptToDelete.size, 0, "a rightly named owner changes nothing");
    assert.deepEqual(o.invalid, []);
  });

  it("does nothing for a dependent of an observed owner named rightly (any version)", () => {
    const g = new OwnerGraph();
    g.observe(widgets, { metadata: { name: "w", namespace: "default", uid: "w" } });
    const c = g.observe(
      configMaps,
      cm("child", "c", {
        owners: [{ apiVersion: "example.com/v1beta1", kind: "Widget", name: "w", uid: "w" }],
      }),
    );
    assert.equal(c.attemptToDelete.size, 0);
  });

  it("checks a dependent that names an observed owner by other coordinates", () => {
    const g = new OwnerGraph();
    g.observe(configMaps, cm("owner", "o"));
    const c = g.observe(configMaps, cm("child", "c", { owners: [ref("other-name", "o")] }));
    assert.deepEqual([...c.attemptToDelete], ["c"]);
    assert.deepEqual(c.invalid, []);
  });

  it("reports a reference to an owner in another namespace, whichever is observed first", () => {
    const g1 = new OwnerGraph();
    g1.observe(configMaps, cm("owner", "o", { namespace: "a" }));
    const c1 = g1.observe(
      configMaps,
      cm("child", "c", { namespace: "b", owners: [ref("owner", "o")] }),
    );
    assert.deepEqual([...c1.attemptToDelete], ["c"]);
    assert.equal(c1.invalid.length, 1);
    assert.equal(c1.invalid[0]!.dependent.namespace, "b");
    assert.equal(c1.invalid[0]!.owner.namespace, "a");

    const g2 = new OwnerGraph();
    g2.observe(configMaps, cm("child", "c", { namespace: "b", owners: [ref("owner", "o")] }));
    const c2 = g2.observe(configMaps, cm("owner", "o", { namespace: "a" }));
    assert.deepEqual([...c2.attemptToDelete], ["c"]);
    assert.equal(c2.invalid.length, 1);
    assert.equal(c2.invalid[0]!.reference.uid, "o");
  });

  it("lets any object name a cluster-scoped owner; a cluster-scoped one naming a namespaced owner is checked, not reported", () => {
    const g = new OwnerGraph();
    g.observe(namespaces, { metadata: { name: "ns1", uid: "n" } });
    const c = g.observe(
      configMaps,
      cm("child", "c", {
        owners: [{ apiVersion: "v1", kind: "Namespace", name: "ns1", uid: "n" }],
      }),
    );
    assert.equal(c.attemptToDelete.size, 0);
    g.observe(configMaps, cm("owner", "o"));
    const bad = g.observe(namespaces, {
      metadata: { name: "ns2", uid: "n2", ownerReferences: [ref("owner", "o")] },
    });
    assert.deepEqual([...bad.attemptToDelete], ["n2"]);
    assert.deepEqual(bad.invalid, []);
    assert.equal(g.node("n2")!.identity.namespace, undefined);
  });

  it("checks the dependents of a removed owner", () => {
    const g = new OwnerGraph();
    g.observe(configMaps, cm("owner", "o"));
    g.observe(configMaps, cm("a", "a", { owners: [ref("owner", "o")] }));
    g.observe(configMaps, cm("b", "b", { owners: [ref("owner", "o")] }));
    const c = g.remove("o");
    assert.deepEqual([...c.attemptToDelete].sort(), ["a", "b"]);
    assert.equal(g.node("o"), undefined);
    assert.equal(g.remove("o").attemptToDelete.size, 0, "removing twice changes nothing");
  });

  it("starts a foreground deletion once: the owner and all its dependents are checked", () => {
    const g = new OwnerGraph();
    g.observe(configMaps, cm("owner", "o"));
    g.observe(
      configMaps,
      cm("a", "a", { owners: [ref("owner", "o", { blockOwnerDeletion: true })] }),
    );
    g.observe(configMaps, cm("b", "b", { owners: [ref("owner", "o")] }));
    const fg = cm("owner", "o", { deleting: true, finalizers: ["foregroundDeletion"] });
    const c = g.observe(configMaps, fg);
    assert.deepEqual([...c.attemptToDelete].sort(), ["a", "b", "o"]);
    assert.ok(g.node("o")!.deletingDependents);
    assert.equal(g.observe(configMaps, fg).attemptToDelete.size, 0);
    assert.deepEqual(
      g.blockingDependentsOf("o").map((n) => n.identity.uid),
      ["a"],
    );
  });

  it("wakes an owner deleting its dependents when a blocking dependent goes, lets go or stops blocking", () => {
    const g = new OwnerGraph();
    g.observe(configMaps, cm("owner", "o", { deleting: true, finalizers: ["foregroundDeletion"] }));
    const blocking = [ref("owner", "o", { blockOwnerDeletion: true })];
    g.observe(configMaps, cm("a", "a", { owners: blocking }));
    assert.deepEqual(
      [...g.observe(configMaps, cm("a", "a", { owners: [ref("owner", "o")] })).attemptToDelete],
      ["o"],
      "blockOwnerDeletion true → false",
    );
    g.observe(configMaps, cm("a", "a", { owners: blocking }));
    assert.deepEqual(
      [...g.observe(configMaps, cm("a", "a")).attemptToDelete],
      ["o"],
      "reference dropped",
    );
    g.observe(configMaps, cm("a", "a", { owners: blocking }));
    assert.deepEqual([...g.remove("a").attemptToDelete], ["o"], "dependent deleted");
  });

  it("checks a dependent that appears while its owner deletes its dependents", () => {
    const g = new OwnerGraph();
    g.observe(configMaps, cm("owner", "o", { deleting: true, finalizers: ["foregroundDeletion"] }));
    const c = g.observe(
      configMaps,
      cm("late", "l", { owners: [ref("owner", "o", { blockOwnerDeletion: true })] }),
    );
    assert.deepEqual([...c.attemptToDelete], ["l"]);
  });

  it("starts orphaning once", () => {
    const g = new OwnerGraph();
    g.observe(configMaps, cm("owner", "o"));
    const orphan = cm("owner", "o", { deleting: true, finalizers: ["orphan"] });
    assert.deepEqual([...g.observe(configMaps, orphan).attemptToOrphan], ["o"]);
    assert.equal(g.observe(configMaps, orphan).attemptToOrphan.size, 0);
    const fresh = new OwnerGraph();
    assert.deepEqual(
      [...fresh.observe(configMaps, orphan).attemptToOrphan],
      ["o"],
      "first seen already orphaning (a restart)",
    );
  });

  it("forgets every object of a resource whose monitor stopped, and checks their dependents elsewhere", () => {
    const g = new OwnerGraph();
    g.observe(widgets, { metadata: { name: "w", namespace: "default", uid: "w" } });
    g.observe(widgets, {
      metadata: {
        name: "w2",
        namespace: "default",
        uid: "w2",
        ownerReferences: [{ apiVersion: "example.com/v1", kind: "Widget", name: "w", uid: "w" }],
      },
    });
    g.observe(
      configMaps,
      cm("child", "c", {
        owners: [{ apiVersion: "example.com/v1", kind: "Widget", name: "w", uid: "w" }],
      }),
    );
    const c = g.removeResource(widgets);
    assert.deepEqual([...c.attemptToDelete], ["c"]);
    assert.equal(g.size, 1);
  });

  it("ignores objects without a uid", () => {
    const g = new OwnerGraph();
    const c = g.observe(configMaps, { metadata: { name: "x", namespace: "default" } });
    assert.equal(g.size, 0);
    assert.equal(c.attemptToDelete.size, 0);
  });

  it("keeps its reverse index equal to the references of the observed objects (fast-check)", () => {
    const uids = ["a", "b", "c", "d", "e"];
    const op = fc.oneof(
      fc.record({
        kind: fc.constant("observe" as const),
        uid: fc.constantFrom(...uids),
        owners: fc.uniqueArray(fc.constantFrom(...uids), { maxLength: 3 }),
        block: fc.boolean(),
        fg: fc.boolean(),
      }),
      fc.record({ kind: fc.constant("remove" as const), uid: fc.constantFrom(...uids) }),
    );
    fc.assert(
      fc.property(fc.array(op, { maxLength: 40 }), (ops) => {
        const g = new OwnerGraph();
        const model = new Map<string, string[]>();
        for (const o of ops) {
          if (o.kind === "remove") {
            g.remove(o.uid);
            model.delete(o.uid);
            continue;
          }
          g.observe(
            configMaps,
            cm(o.uid, o.uid, {
              owners: o.owners.map((u) => ref(u, u, { blockOwnerDeletion: o.block })),
              ...(o.fg ? { deleting: true, finalizers: ["foregroundDeletion"] } : {}),
            }),
          );
          model.set(o.uid, o.owners);
        }
        assert.equal(g.size, model.size);
        for (const owner of uids) {
          const want = [...model]
            .filter(([, os]) => os.includes(owner))
            .map(([u]) => u)
            .sort();
          const got = g
            .dependentsOf(owner)
            .map((n) => n.identity.uid)
            .sort();
          assert.deepEqual(got, want, `dependents of ${owner}`);
        }
      }),
    );
  });
});
