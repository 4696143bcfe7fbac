import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { Type } from "typebox";
import { fromTypeBox } from "./from-typebox.ts";

describe("fromTypeBox", () => {
  it("maps every supported TypeBox type to the CRD dialect", () => {
    const s = fromTypeBox(
      Type.Object({
        name: Type.String({
          minLength: 1,
          maxLength: 10,
          pattern: "^[a-z]+$",
          description: "the name",
        }),
        count: Type.Optional(Type.Integer({ minimum: 0, exclusiveMaximum: 10 })),
        ratio: Type.Number({ exclusiveMinimum: 0 }),
        on: Type.Boolean({ default: true }),
        mode: Type.Union([Type.Literal("fast"), Type.Literal("slow")]),
        level: Type.Enum(["a", "b"]),
        one: Type.Literal(3),
        labels: Type.Record(Type.String(), Type.String()),
        tags: Type.Array(Type.String(), { maxItems: 5 }),
        unique: Type.Array(Type.String(), { uniqueItems: true }),
        note: Type.Union([Type.String(), Type.Null()]),
        port: Type.Union([Type.Integer(), Type.String()]),
        raw: Type.Unknown(),
        bag: Type.Object({}),
      }),
      "spec",
    );
    assert.deepEqual(s, {
      type: "object",
      properties: {
        name: {
          type: "string",
          minLength: 1,
          maxLength: 10,
          pattern: "^[a-z]+$",
          description: "the name",
        },
        count: { type: "integer", minimum: 0, maximum: 10, exclusiveMaximum: true },
        ratio: { type: "number", minimum: 0, exclusiveMinimum: true },
        on: { type: "boolean", default: true },
        mode: { type: "string", enum: ["fast", "slow"] },
        level: { type: "string", enum: ["a", "b"] },
        one: { type: "integer", enum: [3] },
        labels: { type: "object", additionalProperties: { type: "string" } },
        tags: { type: "array", maxItems: 5, items: { type: "string" } },
        unique: { type: "array", "x-kubernetes-list-type": "set", items: { type: "string" } },
        note: { type: "string", nullable: true },
        port: { "x-kubernetes-int-or-string": true },
        raw: { "x-kubernetes-preserve-unknown-fields": true },
        bag: { type: "object", "x-kubernetes-preserve-unknown-fields": true },
      },
      required: [
        "name",
        "ratio",
        "on",
        "mode",
        "level",
        "one",
        "labels",
        "tags",
        "unique",
        "note",
        "port",
        "raw",
        "bag",
      ],
    });
  });

  it("types literals mixing integers and fractions as numbers; an object closed to fields prunes them", () => {
    assert.deepEqual(fromTypeBox(Type.Union([Type.Literal(1.5), Type.Literal(2)]), "spec"), {
      type: "number",
      enum: [1.5, 2],
    });
    assert.deepEqual(fromTypeBox(Type.Object({}, { additionalProperties: false }), "spec"), {
      type: "object",
    });
    assert.deepEqual(fromTypeBox(Type.Literal(0, { exclusiveMaximum: 6 }), "spec"), {
      type: "integer",
      enum: [0],
      maximum: 6,
      exclusiveMaximum: true,
    });
  });

  it("keeps x-kubernetes-* options given to TypeBox", () => {
    const s = fromTypeBox(
      Type.Array(Type.Object({ name: Type.String() }), {
        "x-kubernetes-list-type": "map",
        "x-kubernetes-list-map-keys": ["name"],
      }),
      "spec.items",
    );
    assert.equal(s["x-kubernetes-list-type"], "map");
    assert.deepEqual(s["x-kubernetes-list-map-keys"], ["name"]);
  });

  it("refuses what has no CRD equivalent, naming the path", () => {
    const cases: [unknown, RegExp][] = [
      [
        Type.Object({ a: Type.Union([Type.String(), Type.Number()]) }),
        /spec\.a: this union is not structural/,
      ],
      [
        Type.Object({ a: Type.Union([Type.Literal("x"), Type.Literal(1)]) }),
        /spec\.a: an enum mixes types/,
      ],
      [Type.Object({ a: Type.Null() }), /spec\.a: a field that can only be null/],
      [Type.Object({ a: Type.Tuple([Type.String()]) }), /spec\.a: tuples are not supported/],
      [Type.Intersect([Type.Object({ a: Type.String() })]), /spec: intersections \(allOf\)/],
      [
        { type: "object", patternProperties: { "^a": { type: "string" } } },
        /patternProperties are not supported/,
      ],
      [{ $ref: "#/defs/x" }, /\$ref is not supported/],
      ["string", /expected a TypeBox schema/],
    ];
    for (const [schema, message] of cases) {
      assert.throws(() => fromTypeBox(schema, "spec"), message);
    }
  });
});
