import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  errorMessage,
  isNotFound,
  type KubeObject,
  parseLabelSelector,
  SelectorError,
} from "../core/index.ts";
import { configMaps, namespaces } from "../resources/index.ts";
import { Indexer } from "./indexer.ts";
import { Lister } from "./lister.ts";

const obj = (
  ns: string | undefined,
  name: string,
  labels: Record<string, string> = {},
): KubeObject => ({
  metadata: { name, labels, ...(ns === undefined ? {} : { namespace: ns }) },
});

function lister() {
  const ix = new Indexer<KubeObject>();
  ix.upsert(obj("a", "x", { app: "web" }));
  ix.upsert(obj("a", "y", { app: "db" }));
  ix.upsert(obj("b", "x", { app: "web" }));
  return new Lister({ store: ix.readOnly(), definition: configMaps });
}

const names = (objs: KubeObject[]) =>
  objs.map((o) => `${o.metadata?.namespace}/${o.metadata?.name}`).sort();

describe("Lister", () => {
  it("gets by namespace and name, and throws NotFound naming the resource", () => {
    const l = lister();
    assert.equal(l.get("a", "x").metadata?.namespace, "a");
    assert.equal(l.namespace("b").get("x").metadata?.namespace, "b");
    assert.throws(
      () => l.get("a", "missing"),
      (e: unknown) => isNotFound(e) && /configmaps "missing" not found/.test(errorMessage(e)),
    );
  });

  it("tryGet returns the object or undefined, by namespace and name or cluster-scoped name", () => {
    const l = lister();
    assert.equal(l.tryGet("a", "y")?.metadata?.labels?.app, "db");
    assert.equal(l.tryGet("a", "missing"), undefined);
    assert.equal(l.namespace("b").tryGet("x")?.metadata?.namespace, "b");
    assert.equal(l.namespace("b").tryGet("y"), undefined);
    const ix = new Indexer<KubeObject>();
    ix.upsert(obj(undefined, "kube-system"));
    const cluster = new Lister({ store: ix.readOnly(), definition: namespaces });
    assert.equal(cluster.tryGet("kube-system")?.metadata?.name, "kube-system");
    assert.equal(cluster.tryGet("nope"), undefined);
  });

  it("lists everything, or what a selector (text or parsed) matches", () => {
    const l = lister();
    assert.deepEqual(names(l.list()), ["a/x", "a/y", "b/x"]);
    assert.deepEqual(names(l.list("app=web")), ["a/x", "b/x"]);
    assert.deepEqual(names(l.list(parseLabelSelector("app!=web"))), ["a/y"]);
    assert.throws(() => l.list("app in ("), SelectorError);
  });

  it("lists one namespace through the namespace index", () => {
    const l = lister();
    assert.deepEqual(names(l.namespace("a").list()), ["a/x", "a/y"]);
    assert.deepEqual(names(l.namespace("a").list("app=db")), ["a/y"]);
    assert.deepEqual(l.namespace("none").list(), []);
  });

  it("gets cluster-scoped objects by name", () => {
    const ix = new Indexer<KubeObject>();
    ix.upsert(obj(undefined, "kube-system"));
    const l = new Lister({ store: ix.readOnly(), definition: namespaces });
    assert.equal(l.get("kube-system").metadata?.name, "kube-system");
    assert.throws(
      () => l.get("nope"),
      (e: unknown) => isNotFound(e) && /namespaces "nope"/.test(String(e)),
    );
  });
});
