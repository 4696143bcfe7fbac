import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import { errorMessage, type KubeObject } from "../core/index.ts";
import { Indexer } from "./indexer.ts";
import { NAMESPACE_INDEX } from "./store.ts";

interface Pod extends KubeObject {
  metadata: {
    name: string;
    namespace?: string;
    labels?: Record<string, string>;
    resourceVersion?: string;
  };
  spec?: { nodeName?: string; volumes?: string[] };
}

const pod = (ns: string | undefined, name: string, spec: Pod["spec"] = {}): Pod => ({
  metadata: { name, ...(ns === undefined ? {} : { namespace: ns }) },
  spec,
});
const byNode = { node: (p: Pod) => (p.spec?.nodeName ? [p.spec.nodeName] : []) };
const byVolume = { volume: (p: Pod) => p.spec?.volumes ?? [] };

describe("Indexer", () => {
  it("refuses objects without a name", () => {
    assert.throws(
      () => new Indexer<Pod>().upsert({ metadata: { name: "" } }),
      /without metadata.name/,
    );
  });

  it("stores by namespace/name (name for cluster scope) and upserts", () => {
    const ix = new Indexer<Pod>();
    assert.equal(ix.upsert(pod("a", "x")), undefined);
    const first = ix.get("a/x");
    assert.equal(ix.upsert(pod("a", "x", { nodeName: "n1" })), first);
    ix.upsert(pod(undefined, "cluster-wide"));
    assert.deepEqual(ix.listKeys().sort(), ["a/x", "cluster-wide"]);
    assert.equal(ix.size, 2);
    assert.equal(ix.get("missing"), undefined);
    assert.equal(ix.delete("missing"), undefined);
  });

  it("has a namespace index, and moves keys between buckets when values change", () => {
    const ix = new Indexer<Pod>({ indexers: byNode });
    ix.upsert(pod("a", "x", { nodeName: "n1" }));
    ix.upsert(pod("b", "y", { nodeName: "n1" }));
    assert.deepEqual(ix.indexKeys(NAMESPACE_INDEX, "a"), ["a/x"]);
    assert.deepEqual(ix.indexKeys("node", "n1").sort(), ["a/x", "b/y"]);
    ix.upsert(pod("a", "x", { nodeName: "n2" }));
    assert.deepEqual(ix.indexKeys("node", "n1"), ["b/y"]);
    assert.deepEqual(
      ix.byIndex("node", "n2").map((p) => p.metadata.name),
      ["x"],
    );
    ix.delete("b/y");
    assert.deepEqual(ix.listIndexFuncValues("node"), ["n2"], "empty buckets are removed");
    assert.deepEqual(ix.listIndexFuncValues(NAMESPACE_INDEX), ["a"]);
  });

  it("files multi-valued indexes and answers index(obj) with every object sharing a value", () => {
    const ix = new Indexer<Pod>({ indexers: byVolume });
    ix.upsert(pod("a", "x", { volumes: ["v1", "v2"] }));
    ix.upsert(pod("a", "y", { volumes: ["v2"] }));
    ix.upsert(pod("a", "z", { volumes: ["v3"] }));
    const names = ix
      .index("volume", pod("a", "q", { volumes: ["v1", "v2"] }))
      .map((p) => p.metadata.name);
    assert.deepEqual(names.sort(), ["x", "y"]);
  });

  it("indexes existing objects when an index is added, and refuses a taken name or unknown index", () => {
    const ix = new Indexer<Pod>();
    ix.upsert(pod("a", "x", { nodeName: "n1" }));
    ix.addIndexers(byNode);
    assert.deepEqual(ix.indexKeys("node", "n1"), ["a/x"]);
    assert.ok(ix.hasIndex("node"));
    assert.throws(() => ix.addIndexers(byNode), /already exists/);
    assert.throws(() => ix.addIndexers({ namespace: () => [] }), /already exists/);
    assert.throws(() => ix.byIndex("nope", "x"), /no index named "nope"; indexes: namespace, node/);
  });

  it("replaces everything at once, returning the old content and rebuilding indexes", () => {
    const ix = new Indexer<Pod>({ indexers: byNode });
    ix.upsert(pod("a", "x", { nodeName: "n1" }));
    const old = ix.replace([pod("b", "y", { nodeName: "n2" })], "42");
    const was: string[] = [];
    old.forEach((o, ns, name) => void was.push(`${ns}/${name}:${o.metadata.name}`));
    assert.deepEqual(was, ["a/x:x"]);
    assert.equal(old.get("a", "x")?.metadata.name, "x");
    assert.equal(old.get("b", "y"), undefined);
    assert.deepEqual(ix.listKeys(), ["b/y"]);
    assert.deepEqual(ix.listIndexFuncValues("node"), ["n2"]);
    assert.equal(ix.resourceVersion, "42");
  });

  it("caches an object whose index function throws, reporting it and leaving it out of that index", () => {
    const errors: string[] = [];
    const ix = new Indexer<Pod>({
      indexers: {
        bad: (p) =>
          p.metadata.name === "boom"
            ? (() => {
                throw new Error("bad index");
              })()
            : ["ok"],
      },
      onIndexError: (index, obj, err) =>
        errors.push(`${index}:${obj.metadata?.name}:${errorMessage(err)}`),
    });
    ix.upsert(pod("a", "boom"));
    ix.upsert(pod("a", "fine"));
    assert.ok(ix.has("a/boom"));
    assert.deepEqual(ix.indexKeys("bad", "ok"), ["a/fine"]);
    assert.deepEqual(errors, ["bad:boom:bad index"]);
  });

  it("gives out a read-only view without writers", () => {
    const ix = new Indexer<Pod>();
    const view = ix.readOnly();
    ix.upsert(pod("a", "x"));
    assert.equal(view.size, 1);
    assert.equal(view.get("a/x")?.metadata?.name, "x");
    assert.equal((view as unknown as { upsert?: unknown }).upsert, undefined);
    assert.ok(Object.isFrozen(view));
    assert.equal(ix.readOnly(), view);
  });

  it("keeps every index equal to a recomputation, whatever the sequence of writes", () => {
    const op = fc.oneof(
      fc.record({
        t: fc.constant("upsert" as const),
        ns: fc.constantFrom("a", "b"),
        name: fc.constantFrom("p", "q", "r"),
        node: fc.option(fc.constantFrom("n1", "n2"), { nil: undefined }),
        volumes: fc.uniqueArray(fc.constantFrom("v1", "v2", "v3"), { maxLength: 3 }),
      }),
      fc.record({
        t: fc.constant("delete" as const),
        key: fc.constantFrom("a/p", "a/q", "b/r", "b/p"),
      }),
      fc.record({ t: fc.constant("replace" as const), n: fc.nat(3) }),
    );
    fc.assert(
      fc.property(fc.array(op, { maxLength: 40 }), (ops) => {
        const ix = new Indexer<Pod>({ indexers: { ...byNode, ...byVolume } });
        const model = new Map<string, Pod>();
        for (const o of ops) {
          if (o.t === "upsert") {
            const p = pod(o.ns, o.name, {
              ...(o.node ? { nodeName: o.node } : {}),
              volumes: o.volumes,
            });
            ix.upsert(p);
            model.set(`${o.ns}/${o.name}`, p);
          } else if (o.t === "delete") {
            ix.delete(o.key);
            model.delete(o.key);
          } else {
            const items = [...model.values()].slice(0, o.n);
            ix.replace(items, "1");
            model.clear();
            for (const p of items) model.set(`${p.metadata.namespace}/${p.metadata.name}`, p);
          }
        }
        assert.deepEqual(new Set(ix.listKeys()), new Set(model.keys()));
        for (const [index, fn] of Object.entries({
          ...byNode,
          ...byVolume,
          namespace: (p: Pod) => [p.metadata.namespace!],
        })) {
          const expected = new Map<string, Set<string>>();
          for (const [k, p] of model)
            for (const v of fn(p)) expected.set(v, (expected.get(v) ?? new Set()).add(k));
          assert.deepEqual(new Set(ix.listIndexFuncValues(index)), new Set(expected.keys()), index);
          for (const [v, keys] of expected) assert.deepEqual(new Set(ix.indexKeys(index, v)), keys);
        }
      }),
    );
  });
});
