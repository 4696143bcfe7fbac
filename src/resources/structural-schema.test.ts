import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { OpenApiSchema } from "./openapi-schema.ts";
import { structuralProblems } from "./structural-schema.ts";

const root = (spec: OpenApiSchema): OpenApiSchema => ({ type: "object", properties: { spec } });

describe("structuralProblems", () => {
  it("accepts a structural schema", () => {
    const ok = root({
      type: "object",
      properties: {
        a: { type: "string", enum: ["x"] },
        b: { "x-kubernetes-int-or-string": true },
        c: { "x-kubernetes-preserve-unknown-fields": true },
        d: { type: "array", items: { type: "integer" }, "x-kubernetes-list-type": "set" },
        e: { type: "object", additionalProperties: { type: "string" } },
        f: { type: "string", anyOf: [{ pattern: "^a" }, { pattern: "^b" }] },
        g: {
          type: "array",
          "x-kubernetes-list-type": "map",
          "x-kubernetes-list-map-keys": ["name"],
          items: { type: "object", properties: { name: { type: "string" } }, required: ["name"] },
        },
      },
    });
    assert.deepEqual(structuralProblems(ok, "openAPIV3Schema"), []);
  });

  it("reports each problem with kube's field path and message", () => {
    const cases: [OpenApiSchema, string, RegExp][] = [
      [{ type: "string" }, "openAPIV3Schema.type", /must be object at the root/],
      [{}, "openAPIV3Schema.type", /Required value: must not be empty at the root/],
      [
        root({ type: "object", properties: { a: {} } }),
        "openAPIV3Schema.properties[spec].properties[a].type",
        /must not be empty for specified object fields/,
      ],
      [
        root({ type: "array", items: {} }),
        "openAPIV3Schema.properties[spec].items.type",
        /must not be empty for array items/,
      ],
      [
        root({ type: "array" }),
        "openAPIV3Schema.properties[spec].items",
        /Required value: must be specified/,
      ],
      [
        root({
          type: "object",
          properties: { a: { type: "string" } },
          additionalProperties: { type: "string" },
        }),
        "openAPIV3Schema.properties[spec].additionalProperties",
        /mutual exclusive/,
      ],
      [
        root({ type: "object", additionalProperties: false }),
        "openAPIV3Schema.properties[spec].additionalProperties",
        /must not be false/,
      ],
      [
        root({ type: "array", items: { type: "string" }, uniqueItems: true }),
        "openAPIV3Schema.properties[spec].uniqueItems",
        /quadratic/,
      ],
      [
        root({ type: "string", anyOf: [{ type: "string" }] }),
        "openAPIV3Schema.properties[spec].anyOf[0].type",
        /must be empty to be structural/,
      ],
      [
        root({ type: "string", "x-kubernetes-int-or-string": true }),
        "openAPIV3Schema.properties[spec].type",
        /must be empty if x-kubernetes-int-or-string/,
      ],
      [
        root({ type: "date" as never }),
        "openAPIV3Schema.properties[spec].type",
        /Unsupported value: "date"/,
      ],
      [
        root({ type: "object", ["$ref" as never]: "#/x" }),
        "openAPIV3Schema.properties[spec].$ref",
        /\$ref is not supported/,
      ],
      [
        root({ type: "object", ["patternProperties" as never]: {} }),
        "openAPIV3Schema.properties[spec].patternProperties",
        /not supported/,
      ],
      [
        root({ type: "object", ["frobnicate" as never]: 1 }),
        "openAPIV3Schema.properties[spec].frobnicate",
        /unknown schema keyword "frobnicate"/,
      ],
      [
        root({ type: "string", "x-kubernetes-list-type": "set" }),
        "openAPIV3Schema.properties[spec].x-kubernetes-list-type",
        /only be used if type is array/,
      ],
      [
        root({
          type: "array",
          "x-kubernetes-list-type": "map",
          items: { type: "object", properties: { a: { type: "string" } } },
        }),
        "openAPIV3Schema.properties[spec].x-kubernetes-list-map-keys",
        /must not be empty/,
      ],
      [
        root({
          type: "array",
          "x-kubernetes-list-type": "map",
          "x-kubernetes-list-map-keys": ["b"],
          items: { type: "object", properties: { a: { type: "string" } } },
        }),
        "openAPIV3Schema.properties[spec].x-kubernetes-list-map-keys",
        /"b": entries must all be names of item properties/,
      ],
      [
        {
          type: "object",
          properties: { metadata: { type: "object", properties: { labels: { type: "object" } } } },
        },
        "openAPIV3Schema.properties[metadata]",
        /must not specify anything other than name and generateName/,
      ],
    ];
    for (const [schema, field, message] of cases) {
      const problems = structuralProblems(schema, "openAPIV3Schema");
      const hit = problems.find((p) => p.field === field);
      assert.ok(hit, `${field} not among ${JSON.stringify(problems)}`);
      assert.match(hit.message ?? "", message);
    }
  });
});
