/**
 * `typeBox` (the schema half of `kontroller gen types`) against `fromTypeBox` (the schema half of
 * `defineResource`): for any CRD schema node in the dialect both speak, the generated TypeBox
 * code converts back to the same node. The whole-module round trip is test/resources/codegen.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import { Type } from "typebox";
import { typeBox } from "./codegen.ts";
import { fromTypeBox } from "./from-typebox.ts";
import type { OpenApiSchema } from "./openapi-schema.ts";

/** Runs generated TypeBox source, as the generated module would. */
const run = (source: string): unknown => new Function("Type", `return ${source}`)(Type);

const roundTrip = (s: OpenApiSchema): OpenApiSchema => fromTypeBox(run(typeBox(s)), "spec");

const text = fc.string({ maxLength: 12 });
/** Numbers that survive JSON (no -0), some of them integers. */
const num = fc.integer({ min: -400, max: 400 }).map((i) => (i === 0 ? 0 : i / 4));
const maybe = <T>(a: fc.Arbitrary<T>) => fc.option(a, { nil: undefined });

/** Drops undefined fields, so that a generated node has only the keys it means. */
function node(fields: Record<string, unknown>): OpenApiSchema {
  return Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== undefined));
}

const annotations = {
  description: maybe(text),
  title: maybe(text),
  nullable: maybe(fc.constant(true)),
};

const bounds = fc.oneof(
  fc.constant({}),
  fc.record({ minimum: fc.integer({ min: -5, max: 5 }) }),
  fc.record({ maximum: fc.integer({ min: 6, max: 99 }), exclusiveMaximum: fc.constant(true) }),
);

const scalar: fc.Arbitrary<OpenApiSchema> = fc.oneof(
  fc
    .record({
      ...annotations,
      minLength: maybe(fc.nat(5)),
      maxLength: maybe(fc.integer({ min: 5, max: 50 })),
      pattern: maybe(fc.constantFrom("^[a-z]+$", "[0-9]")),
      format: maybe(fc.constantFrom("date-time", "email", "byte")),
      enum: maybe(fc.uniqueArray(text, { minLength: 1, maxLength: 3 })),
      default: maybe(text),
      anyOf: maybe(fc.constant([{ pattern: "^a" }, { pattern: "^b" }])),
    })
    .map((s) => node({ type: "string", ...s })),
  fc
    .record({
      ...annotations,
      bounds,
      format: maybe(fc.constantFrom("int32", "int64")),
      enum: maybe(fc.uniqueArray(fc.integer({ min: -9, max: 9 }), { minLength: 1, maxLength: 3 })),
    })
    .map(({ bounds: b, ...s }) => node({ type: "integer", ...b, ...s })),
  fc
    .record({
      ...annotations,
      bounds,
      multipleOf: maybe(fc.constant(0.5)),
      enum: maybe(fc.uniqueArray(num, { minLength: 1, maxLength: 3 })),
    })
    .map(({ bounds: b, ...s }) => node({ type: "number", ...b, ...s })),
  fc
    .record({ ...annotations, default: maybe(fc.boolean()) })
    .map((s) => node({ type: "boolean", ...s })),
  fc
    .record({ nullable: annotations.nullable, description: annotations.description })
    .map((s) => node({ "x-kubernetes-int-or-string": true, ...s })),
  fc
    .record({ nullable: annotations.nullable })
    .map((s) => node({ "x-kubernetes-preserve-unknown-fields": true, ...s })),
  fc.record({ ...annotations, preserve: fc.boolean() }).map(({ preserve, ...s }) =>
    node({
      type: "object",
      ...(preserve ? { "x-kubernetes-preserve-unknown-fields": true } : {}),
      ...s,
    }),
  ),
);

const names = fc.constantFrom("a", "b", "c-d", "e_f", "$g", "h1", "kind", "spec");

const { schema } = fc.letrec<{ schema: OpenApiSchema }>((tie) => ({
  schema: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    scalar,
    fc
      .record({
        ...annotations,
        items: tie("schema"),
        maxItems: maybe(fc.nat(10)),
        listType: maybe(fc.constant("atomic" as const)),
      })
      .map(({ listType, ...s }) =>
        node({ type: "array", ...s, "x-kubernetes-list-type": listType }),
      ),
    fc
      .record({
        ...annotations,
        properties: fc.dictionary(names, tie("schema"), {
          minKeys: 1,
          maxKeys: 3,
          noNullPrototype: true,
        }),
        requiredMask: fc.array(fc.boolean(), { minLength: 3, maxLength: 3 }),
        preserve: maybe(fc.constant(true)),
        mapType: maybe(fc.constantFrom("atomic" as const, "granular" as const)),
        embedded: maybe(fc.constant(true)),
      })
      .map(({ properties, requiredMask, preserve, mapType, embedded, ...s }) => {
        const required = Object.keys(properties).filter((_, i) => requiredMask[i]);
        return node({
          type: "object",
          properties,
          ...(required.length > 0 ? { required } : {}),
          "x-kubernetes-preserve-unknown-fields": preserve,
          "x-kubernetes-map-type": mapType,
          "x-kubernetes-embedded-resource": embedded,
          ...s,
        });
      }),
    fc
      .record({
        ...annotations,
        additionalProperties: tie("schema"),
        maxProperties: maybe(fc.nat(9)),
      })
      .map((s) => node({ type: "object", ...s })),
  ),
}));

describe("typeBox", () => {
  it("round-trips every CRD schema node through generated TypeBox code", () => {
    fc.assert(
      fc.property(schema, (s) => {
        assert.deepEqual(roundTrip(s), s, typeBox(s));
      }),
      { numRuns: 1000 },
    );
  });

  it("keeps what the first version lost: nullable int-or-string, number enums, empty objects, enums beside anyOf", () => {
    for (const s of [
      { type: "string", enum: ["x", "y"], anyOf: [{ pattern: "^x" }, { pattern: "^y" }] },
      { type: "integer", maximum: 6, exclusiveMaximum: true, enum: [0] },
      { "x-kubernetes-int-or-string": true, nullable: true },
      { type: "number", enum: [1, 2.5] },
      { type: "number", enum: [1, 2] },
      { type: "object" },
      { "x-kubernetes-preserve-unknown-fields": true, nullable: true },
    ] as OpenApiSchema[]) {
      assert.deepEqual(roundTrip(s), s, typeBox(s));
    }
  });

  it("writes equivalent forms for the spellings TypeBox has one word for", () => {
    assert.deepEqual(roundTrip({ type: "object", properties: {} }), { type: "object" });
    assert.deepEqual(roundTrip({ type: "object", additionalProperties: true }), {
      type: "object",
      "x-kubernetes-preserve-unknown-fields": true,
    });
  });
});
