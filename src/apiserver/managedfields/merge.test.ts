import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { OpenApiSchema } from "../../resources/index.ts";
import { builtinType } from "./builtin-schema.ts";
import { crdType } from "./crd-schema.ts";
import type { FieldSet } from "./field-set.ts";
import { fromFieldsV1, toFieldsV1 } from "./fields-v1.ts";
import { compare, merge } from "./merge.ts";
import { pathString } from "./path-element.ts";
import { removeItems } from "./remove.ts";
import { toFieldSet } from "./to-field-set.ts";

const str: OpenApiSchema = { type: "string" };
const schema: OpenApiSchema = {
  type: "object",
  properties: {
    spec: {
      type: "object",
      properties: {
        replicas: { type: "integer" },
        labels: { type: "object", additionalProperties: str },
        selector: { type: "object", "x-kubernetes-map-type": "atomic", additionalProperties: str },
        tags: { type: "array", items: str },
        set: { type: "array", "x-kubernetes-list-type": "set", items: str },
        ports: {
          type: "array",
          "x-kubernetes-list-type": "map",
          "x-kubernetes-list-map-keys": ["port", "protocol"],
          items: {
            type: "object",
            required: ["port"],
            properties: {
              port: { type: "integer" },
              protocol: { type: "string", default: "TCP" },
              name: str,
            },
          },
        },
        free: { type: "object", "x-kubernetes-preserve-unknown-fields": true },
        ios: { "x-kubernetes-int-or-string": true },
      },
    },
  },
};
const type = crdType(schema);
const paths = (s: FieldSet) => s.paths().map(pathString);

describe("toFieldSet (what an applier owns)", () => {
  it("owns leaves, map entries and list items, not the named fields that hold them", () => {
    const set = toFieldSet(
      {
        apiVersion: "x/v1",
        kind: "K",
        metadata: { name: "n", labels: { a: "1" }, finalizers: ["f"] },
        spec: {
          replicas: 1,
          labels: { b: "2" },
          selector: { c: "3" },
          tags: ["t"],
          set: ["s1", "s2"],
          ports: [{ port: 80, name: "http" }],
          free: { deep: { x: 1 } },
          ios: 8080,
        },
      },
      type,
    );
    assert.deepEqual(paths(set), [
      ".apiVersion",
      ".kind",
      ".metadata.name",
      '.metadata.finalizers[="f"]',
      ".metadata.labels.a",
      ".spec.ios",
      ".spec.replicas",
      ".spec.selector",
      ".spec.tags",
      ".spec.free.deep",
      ".spec.free.deep.x",
      ".spec.labels.b",
      '.spec.ports[port=80,protocol="TCP"]',
      '.spec.ports[port=80,protocol="TCP"].name',
      '.spec.ports[port=80,protocol="TCP"].port',
      '.spec.set[="s1"]',
      '.spec.set[="s2"]',
    ]);
  });

  it("refuses what the schema does not allow, naming the path", () => {
    const bad: [unknown, RegExp][] = [
      [{ spec: { nope: 1 } }, /^\.spec\.nope: field not declared in schema$/],
      [{ spec: { replicas: {} } }, /^\.spec\.replicas: expected scalar, got map$/],
      [{ spec: "x" }, /^\.spec: expected map, got scalar$/],
      [{ spec: { tags: "t" } }, /^\.spec\.tags: expected list, got scalar$/],
      [
        { spec: { ports: [{ name: "x" }] } },
        /^\.spec\.ports: element 0: associative list with keys has an element that omits key field "port" \(and doesn't have default value\)$/,
      ],
      [
        { spec: { ports: [{ port: 1 }, { port: 1, protocol: "TCP" }] } },
        /^\.spec\.ports: duplicate entries for key \[port=1,protocol="TCP"\]$/,
      ],
      [
        { spec: { set: [{ a: 1 }] } },
        /associative list without keys has an element that's a map type/,
      ],
    ];
    for (const [value, message] of bad) assert.throws(() => toFieldSet(value, type), { message });
  });

  it("reads a built-in kind with its merge keys and atomic structs", () => {
    const set = toFieldSet(
      {
        spec: {
          selector: { matchLabels: { a: "b" } },
          template: {
            spec: {
              nodeSelector: { disk: "ssd" },
              containers: [{ name: "c", env: [{ name: "E", value: "1" }] }],
            },
          },
        },
      },
      builtinType("apps", "v1", "Deployment")!,
    );
    assert.deepEqual(paths(set), [
      ".spec.selector",
      ".spec.template.spec.nodeSelector",
      '.spec.template.spec.containers[name="c"]',
      '.spec.template.spec.containers[name="c"].name',
      '.spec.template.spec.containers[name="c"].env[name="E"]',
      '.spec.template.spec.containers[name="c"].env[name="E"].name',
      '.spec.template.spec.containers[name="c"].env[name="E"].value',
    ]);
  });
});

describe("merge (an applied configuration into the live object)", () => {
  const live = {
    spec: {
      replicas: 1,
      labels: { a: "1", b: "2" },
      selector: { x: "1", y: "2" },
      tags: ["a", "b"],
      set: ["a", "b"],
      ports: [
        { port: 1, name: "one" },
        { port: 2, name: "two" },
        { port: 3, name: "three" },
      ],
    },
  };

  it("merges granular maps and keyed lists item by item, replaces atomic values", () => {
    // Items the configuration names come in its order, before the live ones after them.
    const out = merge(
      live,
      {
        spec: {
          labels: { b: "B", c: "3" },
          selector: { z: "3" },
          tags: ["c"],
          set: ["c", "a"],
          ports: [{ port: 2, protocol: "TCP", name: "TWO" }],
        },
      },
      type,
    );
    assert.deepEqual(out, {
      spec: {
        replicas: 1,
        labels: { a: "1", b: "B", c: "3" },
        selector: { z: "3" },
        tags: ["c"],
        set: ["c", "a", "b"],
        ports: [
          { port: 1, name: "one" },
          { port: 2, name: "TWO", protocol: "TCP" },
          { port: 3, name: "three" },
        ],
      },
    });
    assert.deepEqual(live.spec.labels, { a: "1", b: "2" }, "inputs are not modified");
  });

  it("orders the items the configuration names as it does, the others where they were", () => {
    const out = merge(live, { spec: { ports: [{ port: 3 }, { port: 9 }, { port: 1 }] } }, type);
    assert.deepEqual(
      (out.spec as { ports: { port: number }[] }).ports.map((p) => p.port),
      [2, 3, 9, 1],
    );
  });

  it("drops a null the configuration sets; a null map is no opinion", () => {
    const out = merge(live, { spec: { replicas: null, labels: null } }, type);
    assert.equal((out.spec as Record<string, unknown>).replicas, undefined);
    assert.deepEqual((out.spec as Record<string, unknown>).labels, { a: "1", b: "2" });
  });
});

describe("compare", () => {
  it("reports added, modified and removed leaves, and objects and items that come or go", () => {
    const c = compare(
      { spec: { replicas: 1, labels: { a: "1" }, ports: [{ port: 1 }] } },
      { spec: { replicas: 2, selector: { x: "y" }, ports: [{ port: 1 }, { port: 2 }] } },
      type,
    );
    assert.deepEqual(paths(c.modified), [".spec.replicas"]);
    assert.deepEqual(paths(c.added), [
      ".spec.selector",
      '.spec.ports[port=2,protocol="TCP"]',
      '.spec.ports[port=2,protocol="TCP"].port',
    ]);
    assert.deepEqual(paths(c.removed), [".spec.labels", ".spec.labels.a"]);
  });

  it("treats a non-pointer struct Go always writes as present (no '.' for spec.template)", () => {
    const c = compare(
      { apiVersion: "apps/v1" },
      { apiVersion: "apps/v1", spec: { template: { spec: { containers: [{ name: "c" }] } } } },
      builtinType("apps", "v1", "Deployment")!,
    );
    assert.deepEqual(
      JSON.stringify(toFieldsV1(c.added)),
      JSON.stringify({
        "f:spec": {
          "f:template": {
            "f:spec": { "f:containers": { 'k:{"name":"c"}': { ".": {}, "f:name": {} } } },
          },
        },
      }),
    );
  });
});

describe("removeItems", () => {
  it("removes member subtrees and drops what removal empties", () => {
    const out = removeItems(
      {
        spec: {
          replicas: 1,
          labels: { a: "1" },
          ports: [{ port: 1, name: "x" }, { port: 2 }],
          set: ["a", "b"],
        },
      },
      fromFieldsV1({
        "f:spec": {
          "f:labels": { "f:a": {} },
          "f:ports": {
            'k:{"port":1,"protocol":"TCP"}': { "f:name": {} },
            'k:{"port":2,"protocol":"TCP"}': {},
          },
          "f:set": { 'v:"a"': {} },
        },
      }),
      type,
    );
    assert.deepEqual(out, { spec: { replicas: 1, ports: [{ port: 1 }], set: ["b"] } });
  });
});
