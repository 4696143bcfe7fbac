import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { Type } from "typebox";
import { ApiError, InvalidOptionError, isInvalid } from "../core/index.ts";
import { defineResource } from "./define-resource.ts";

const User = defineResource({
  group: "example.com",
  version: "v1",
  kind: "User",
  plural: "users",
  scope: "Cluster",
  shortNames: ["usr"],
  categories: ["people"],
  spec: Type.Object({ displayName: Type.String({ minLength: 1 }) }),
  status: Type.Object({ namespace: Type.Optional(Type.String()) }),
  printerColumns: [{ name: "Display Name", jsonPath: ".spec.displayName", type: "string" }],
});

describe("defineResource", () => {
  it("is a resource definition with the defaults filled in", () => {
    assert.equal(User.group, "example.com");
    assert.equal(User.version, "v1");
    assert.equal(User.plural, "users");
    assert.equal(User.singular, "user");
    assert.equal(User.listKind, "UserList");
    assert.equal(User.scope, "Cluster");
    assert.deepEqual(User.shortNames, ["usr"]);
    assert.equal(User.statusSubresource, true);
    assert.equal(User.storage, true);
    assert.ok(Object.isFrozen(User));
  });

  it("makes a CRD manifest with the structural schema, subresources and printer columns", () => {
    const crd = User.crd();
    assert.equal(crd.metadata.name, "users.example.com");
    assert.deepEqual(crd.spec.names, {
      kind: "User",
      listKind: "UserList",
      plural: "users",
      singular: "user",
      shortNames: ["usr"],
      categories: ["people"],
    });
    assert.equal(crd.spec.scope, "Cluster");
    const [v1] = crd.spec.versions;
    assert.equal(v1!.name, "v1");
    assert.equal(v1!.storage, true);
    assert.deepEqual(v1!.subresources, { status: {} });
    const root = v1!.schema.openAPIV3Schema;
    assert.deepEqual(root.required, ["spec"]);
    assert.deepEqual(root.properties!.spec, {
      type: "object",
      properties: { displayName: { type: "string", minLength: 1 } },
      required: ["displayName"],
    });
    assert.deepEqual(
      v1!.additionalPrinterColumns!.map((c) => c.name),
      ["Display Name", "Age"],
    );
    // Each call returns a fresh manifest: mutating one does not change the definition.
    (crd.spec.versions[0]!.schema.openAPIV3Schema.properties!.spec as { type?: string }).type =
      "string";
    assert.equal(
      User.crd().spec.versions[0]!.schema.openAPIV3Schema.properties!.spec!.type,
      "object",
    );
  });

  it("fills apiVersion and kind into new objects", () => {
    const u = User.object({ metadata: { name: "ann" }, spec: { displayName: "Ann" } });
    assert.deepEqual(u, {
      apiVersion: "example.com/v1",
      kind: "User",
      metadata: { name: "ann" },
      spec: { displayName: "Ann" },
    });
  });

  it("validates objects on the client with field paths", () => {
    assert.deepEqual(
      User.validate(User.object({ metadata: { name: "a" }, spec: { displayName: "A" } })),
      [],
    );
    assert.deepEqual(User.validate({ metadata: { name: "a" } }), [
      { reason: "FieldValueRequired", field: "spec", message: "Required value" },
    ]);
    assert.deepEqual(User.validate({ spec: {} }), [
      { reason: "FieldValueRequired", field: "spec.displayName", message: "Required value" },
    ]);
    assert.throws(
      () => User.parse({ metadata: { name: "ann" }, spec: { displayName: "" } }),
      (e: unknown) => {
        assert.ok(e instanceof ApiError && isInvalid(e));
        assert.equal(
          e.message,
          'User.example.com "ann" is invalid: spec.displayName: Invalid value: "": spec.displayName in body should be at least 1 chars long',
        );
        return true;
      },
    );
  });

  it("serves other versions, each typed and validated by its own schema; the main one is stored", () => {
    const Widget = defineResource({
      group: "example.com",
      version: "v2",
      kind: "Widget",
      plural: "widgets",
      spec: Type.Object({ size: Type.Integer({ minimum: 1 }) }),
      otherVersions: {
        v1: {
          spec: Type.Object({ size: Type.String() }),
          deprecated: "example.com/v1 Widget is deprecated; use v2",
        },
      },
    });
    const v1 = Widget.at("v1");
    assert.equal(v1.version, "v1");
    assert.equal(v1.storage, false);
    assert.equal(v1.deprecated, "example.com/v1 Widget is deprecated; use v2");
    assert.equal(Widget.statusSubresource, false);
    assert.deepEqual(v1.validate({ spec: { size: "big" } }), []);
    assert.equal(Widget.validate({ spec: { size: "big" } })[0]?.field, "spec.size");
    const versions = Widget.crd().spec.versions;
    assert.deepEqual(
      versions.map((v) => [v.name, v.storage, v.deprecated ?? false]),
      [
        ["v2", true, false],
        ["v1", false, true],
      ],
    );
    assert.equal(v1.crd().spec.versions.length, 2);
    assert.throws(() => (Widget.at as (v: string) => unknown)("v3"), /Widget has no version "v3"/);
  });

  it("turns on the scale subresource", () => {
    const Pool = defineResource({
      group: "example.com",
      version: "v1",
      kind: "Pool",
      plural: "pools",
      spec: Type.Object({ replicas: Type.Integer() }),
      status: Type.Object({ replicas: Type.Integer(), selector: Type.String() }),
      subresources: {
        scale: {
          specReplicasPath: ".spec.replicas",
          statusReplicasPath: ".status.replicas",
          labelSelectorPath: ".status.selector",
        },
      },
    });
    assert.deepEqual(Pool.crd().spec.versions[0]!.subresources, {
      status: {},
      scale: {
        specReplicasPath: ".spec.replicas",
        statusReplicasPath: ".status.replicas",
        labelSelectorPath: ".status.selector",
      },
    });
  });

  describe("refuses what Kubernetes would refuse, naming the field", () => {
    const base = {
      group: "example.com",
      version: "v1",
      kind: "Thing",
      plural: "things",
      spec: Type.Object({ a: Type.String() }),
    };
    const cases: [string, Record<string, unknown>, string, RegExp][] = [
      ["a plural that is not a DNS label", { plural: "Things" }, "plural", /lowercase DNS label/],
      ["a plural with a dot", { plural: "th.ings" }, "plural", /lowercase DNS label/],
      ["a group without a dot", { group: "example" }, "group", /at least one dot/],
      ["an upper-case group", { group: "Example.com" }, "group", /DNS subdomain/],
      ["a bad version", { version: "V1" }, "version", /lowercase DNS label/],
      ["a lowercase kind", { kind: "thing" }, "kind", /CamelCase/],
      [
        "a bad short name",
        { shortNames: ["ok", "Not OK"] },
        "shortNames[1]",
        /lowercase DNS label/,
      ],
      ["a bad scope", { scope: "Global" }, "scope", /"Namespaced" or "Cluster"/],
      ["a listKind equal to the kind", { listKind: "Thing" }, "listKind", /differ from kind/],
      [
        "a status subresource without a status schema",
        { subresources: { status: true } },
        "subresources.status",
        /needs a status schema/,
      ],
      ["a spec that is not an object", { spec: Type.String() }, "spec", /must be an object schema/],
      [
        "a non-structural union",
        {
          spec: Type.Object({ a: Type.Union([Type.String(), Type.Object({ b: Type.String() })]) }),
        },
        "spec",
        /spec\.a: this union is not structural/,
      ],
      [
        "an intersection",
        {
          spec: Type.Intersect([
            Type.Object({ a: Type.String() }),
            Type.Object({ b: Type.String() }),
          ]),
        },
        "spec",
        /intersections \(allOf\) are not structural/,
      ],
      [
        "a default its own schema rejects",
        { spec: Type.Object({ a: Type.Integer({ minimum: 1, default: 0 }) }) },
        "openAPIV3Schema.properties[spec].properties[a].default",
        /would be refused by kube-apiserver: .*should be greater than or equal to 1/,
      ],
      [
        "a list-map key that is neither required nor defaulted",
        {
          spec: Type.Object({
            ports: Type.Array(Type.Object({ name: Type.Optional(Type.String()) }), {
              "x-kubernetes-list-type": "map",
              "x-kubernetes-list-map-keys": ["name"],
            }),
          }),
        },
        "openAPIV3Schema.properties[spec].properties[ports].items.properties[name].default",
        /must have a default or be a required property/,
      ],
      [
        "a set of objects that are not atomic",
        {
          spec: Type.Object({
            s: Type.Array(Type.Object({ a: Type.String() }), { uniqueItems: true }),
          }),
        },
        "openAPIV3Schema.properties[spec].properties[s].items.x-kubernetes-map-type",
        /must be atomic as item of a list with x-kubernetes-list-type=set/,
      ],
      [
        "a printer column without a leading dot",
        { printerColumns: [{ name: "A", jsonPath: "spec.a", type: "string" }] },
        "printerColumns[0].jsonPath",
        /must start with "\."/,
      ],
      [
        "a printer column of an unknown type",
        { printerColumns: [{ name: "A", jsonPath: ".spec.a", type: "text" }] },
        "printerColumns[0].type",
        /must be one of/,
      ],
      [
        "a scale path outside spec",
        {
          subresources: {
            scale: { specReplicasPath: ".status.r", statusReplicasPath: ".status.r" },
          },
        },
        "subresources.scale.specReplicasPath",
        /must start with "\.spec\."/,
      ],
    ];
    for (const [what, override, option, message] of cases) {
      it(what, () => {
        assert.throws(
          () => defineResource({ ...base, ...override } as Parameters<typeof defineResource>[0]),
          (e: unknown) => {
            assert.ok(e instanceof InvalidOptionError, String(e));
            assert.equal(e.option, option);
            assert.match(e.message, message);
            assert.match(e.message, /^defineResource\((Thing|thing)\): option /);
            return true;
          },
        );
      });
    }
  });
});
