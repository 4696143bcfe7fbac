import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { DiscoveredResource, Discovery } from "../client/index.ts";
import { resourceDefinition } from "../resources/index.ts";
import {
  deletableResources,
  namespacedDeletableResources,
  ResourceMapper,
} from "./resource-mapper.ts";

const ALL = ["create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"];

function res(
  group: string,
  version: string,
  kind: string,
  plural: string,
  opts: { scope?: "Namespaced" | "Cluster"; verbs?: string[] } = {},
): DiscoveredResource {
  return {
    ...resourceDefinition({ group, version, kind, plural, scope: opts.scope ?? "Namespaced" }),
    verbs: opts.verbs ?? ALL,
    subresources: [],
  };
}

const cm = res("", "v1", "ConfigMap", "configmaps");
const ns = res("", "v1", "Namespace", "namespaces", { scope: "Cluster" });
const ev = res("", "v1", "Event", "events");
const evV1 = res("events.k8s.io", "v1", "Event", "events");
const bindings = res("", "v1", "Binding", "bindings", { verbs: ["create"] });
const noWatch = res("example.com", "v1", "Report", "reports", { verbs: ["get", "list", "delete"] });
const w1 = res("example.com", "v1", "Widget", "widgets");
const w1b = res("example.com", "v1beta1", "Widget", "widgets");

function discovery(
  resources: DiscoveredResource[],
  preferred: DiscoveredResource[],
  failed: string[] = [],
): Discovery {
  return {
    groups: [],
    resources,
    preferred,
    failed: new Map(failed.map((gv) => [gv, new Error(`${gv} failed`)])),
  };
}

describe("resource mapper", () => {
  it("picks what the collector watches: preferred, listable, watchable, deletable, not ignored", () => {
    const d = discovery(
      [cm, ns, ev, evV1, bindings, noWatch, w1, w1b],
      [cm, ns, ev, evV1, bindings, noWatch, w1],
    );
    assert.deepEqual(
      deletableResources(d).map((r) => `${r.group}/${r.plural}`),
      ["/configmaps", "/namespaces", "example.com/widgets"],
    );
    assert.deepEqual(
      deletableResources(d, [{ group: "", resource: "configmaps" }]).map((r) => r.plural),
      ["namespaces", "events", "events", "widgets"],
    );
    assert.deepEqual(
      namespacedDeletableResources(d).map((r) => `${r.group}/${r.plural}`),
      [
        "/configmaps",
        "/events",
        "events.k8s.io/events",
        "example.com/reports",
        "example.com/widgets",
      ],
    );
  });

  it("maps apiVersion and kind to a resource: the exact version, else the preferred one", () => {
    const m = new ResourceMapper();
    assert.equal(m.ready, false);
    m.update(discovery([cm, w1, w1b], [cm, w1]));
    assert.equal(m.ready, true);
    assert.equal(m.lookup("v1", "ConfigMap"), cm);
    assert.equal(m.lookup("example.com/v1beta1", "Widget"), w1b);
    assert.equal(
      m.lookup("example.com/v2", "Widget"),
      w1,
      "an unserved version finds the preferred",
    );
    assert.equal(m.lookup("example.com/v1", "Gadget"), undefined);
    assert.equal(m.lookup("a/b/c", "Widget"), undefined, "a malformed apiVersion maps to nothing");
  });

  it("keeps what it knew of group versions whose discovery failed, and knows kinds that went", () => {
    const m = new ResourceMapper();
    m.update(discovery([cm, w1], [cm, w1]));
    m.update(discovery([cm], [cm], ["example.com/v1"]));
    assert.equal(m.lookup("example.com/v1", "Widget"), w1);
    assert.equal(m.isGone("example.com/v1", "Widget"), false, "a failed group is not gone");
    m.update(discovery([cm], [cm]));
    assert.equal(m.lookup("example.com/v1", "Widget"), undefined);
    assert.equal(m.isGone("example.com/v2", "Widget"), true, "served once, no longer");
    assert.equal(m.isGone("example.com/v1", "Gadget"), false, "never seen: may come");
    assert.equal(m.isGone("a/b/c", "Widget"), false);
    m.update(discovery([cm, w1], [cm, w1]));
    assert.equal(m.isGone("example.com/v1", "Widget"), false, "served again");
  });
});
