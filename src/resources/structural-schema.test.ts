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

  it("accepts int-or-string spelled as generated CRDs spell it, and only that form", () => {
    const intOrString = [{ type: "integer" }, { type: "string" }] as OpenApiSchema[];
    const ok = root({
      type: "object",
      properties: {
        port: { "x-kubernetes-int-or-string": true, anyOf: intOrString },
        quantity: {
          "x-kubernetes-int-or-string": true,
          pattern: "^[0-9]+$",
          allOf: [{ anyOf: intOrString }, { pattern: "^1" }],
        },
      },
    });
    assert.deepEqual(structuralProblems(ok, "openAPIV3Schema"), []);
    const at = "openAPIV3Schema.properties[spec].properties[p]";
    for (const [p, where] of [
      // Without the extension, a junctor's type is forbidden as ever.
      [{ anyOf: intOrString, type: "integer" }, `${at}.anyOf[0].type`],
      // Another pair is not the int-or-string form.
      [
        { "x-kubernetes-int-or-string": true, anyOf: [{ type: "string" }, { type: "integer" }] },
        `${at}.anyOf[0].type`,
      ],
      [
        {
          "x-kubernetes-int-or-string": true,
          anyOf: [{ type: "integer", minimum: 1 }, { type: "string" }],
        },
        `${at}.anyOf[0].type`,
      ],
    ] as [OpenApiSchema, string][]) {
      const problems = structuralProblems(
        root({ type: "object", properties: { p } }),
        "openAPIV3Schema",
      );
      assert.ok(
        problems.some(
          (c) => c.field === where && /must be empty to be structural/.test(c.message ?? ""),
        ),
        `${JSON.stringify(p)}: ${JSON.stringify(problems)}`,
      );
    }
  });

  it("compiles patterns as RE2, as kube does: inline flags accepted, Perl-only syntax refused with Go's words", () => {
    const p = (pattern: string) =>
      structuralProblems(
        root({ type: "object", properties: { p: { type: "string", pattern } } }),
        "openAPIV3Schema",
      );
    assert.deepEqual(p("^((?i)sun|mon)day$"), []);
    assert.deepEqual(p("^[a-z]+$"), []);
    const at = "openAPIV3Schema.properties[spec].properties[p].pattern";
    assert.deepEqual(
      p("+").map((c) => `${c.field}: ${c.message}`),
      [
        `${at}: Invalid value: "+": must be a valid regular expression, but isn't: error parsing regexp: missing argument to repetition operator: \`+\``,
      ],
    );
    for (const perlOnly of ["(a)\\1", "(?=a)b", "(?<=a)b"]) {
      assert.equal(p(perlOnly)[0]?.field, at, perlOnly);
    }
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

  it("accepts the list, map and default forms kube accepts", () => {
    const ok = root({
      type: "object",
      properties: {
        set: {
          type: "array",
          "x-kubernetes-list-type": "set",
          items: { type: "object", "x-kubernetes-map-type": "atomic", properties: {} },
        },
        map: {
          type: "array",
          "x-kubernetes-list-type": "map",
          "x-kubernetes-list-map-keys": ["name", "port"],
          items: {
            type: "object",
            required: ["name"],
            properties: { name: { type: "string" }, port: { type: "integer", default: 80 } },
          },
        },
        granular: { type: "object", "x-kubernetes-map-type": "granular" },
        size: { type: "integer", minimum: 1, default: 3 },
        nothing: { type: "string", nullable: true, default: null },
        obj: {
          type: "object",
          properties: { a: { type: "string" } },
          default: { a: "x" },
        },
        free: {
          type: "object",
          "x-kubernetes-preserve-unknown-fields": true,
          default: { anything: [1] },
        },
      },
    });
    assert.deepEqual(structuralProblems(ok, "openAPIV3Schema"), []);
  });

  it("refuses list and map extensions kube refuses, at kube's paths", () => {
    const list = (extra: OpenApiSchema, items: OpenApiSchema): OpenApiSchema =>
      root({ type: "object", properties: { l: { type: "array", items, ...extra } } });
    const at = "openAPIV3Schema.properties[spec].properties[l]";
    const cases: [OpenApiSchema, string, RegExp][] = [
      [
        list({ "x-kubernetes-list-type": "bag" as never }, { type: "string" }),
        `${at}.x-kubernetes-list-type`,
        /Unsupported value: "bag": supported values: "atomic", "map", "set"/,
      ],
      [
        list({ "x-kubernetes-list-type": "set" }, { type: "object", properties: {} }),
        `${at}.items.x-kubernetes-map-type`,
        /must be atomic as item of a list with x-kubernetes-list-type=set/,
      ],
      [
        list(
          { "x-kubernetes-list-type": "set" },
          { type: "array", items: { type: "string" }, "x-kubernetes-list-type": "set" },
        ),
        `${at}.items.x-kubernetes-list-type`,
        /must be atomic as item/,
      ],
      [
        list({ "x-kubernetes-list-type": "set" }, { type: "string", nullable: true }),
        `${at}.items.nullable`,
        /cannot be nullable when x-kubernetes-list-type is set/,
      ],
      [
        list(
          { "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["k"] },
          { type: "object", properties: { k: { type: "string" } } },
        ),
        `${at}.items.properties[k].default`,
        /must have a default or be a required property/,
      ],
      [
        list(
          { "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["k"] },
          {
            type: "object",
            required: ["k"],
            properties: { k: { type: "object", properties: { a: { type: "string" } } } },
          },
        ),
        `${at}.items.properties[k].type`,
        /must be a scalar type/,
      ],
      [
        list(
          { "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["k"] },
          {
            type: "object",
            required: ["k"],
            properties: { k: { type: "string", nullable: true } },
          },
        ),
        `${at}.items.properties[k].nullable`,
        /cannot be nullable/,
      ],
      [
        list(
          { "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["k", "k"] },
          { type: "object", required: ["k"], properties: { k: { type: "string" } } },
        ),
        `${at}.x-kubernetes-list-map-keys`,
        /"k": must not contain duplicate entries/,
      ],
      [
        list({ "x-kubernetes-list-map-keys": ["k"] }, { type: "string" }),
        `${at}.x-kubernetes-list-map-keys`,
        /must not be set if x-kubernetes-list-type is not "map"/,
      ],
      [
        root({ type: "string", "x-kubernetes-map-type": "atomic" }),
        "openAPIV3Schema.properties[spec].type",
        /"string": must be object if x-kubernetes-map-type is specified/,
      ],
      [
        root({ type: "object", "x-kubernetes-map-type": "loose" as never }),
        "openAPIV3Schema.properties[spec].x-kubernetes-map-type",
        /Unsupported value: "loose"/,
      ],
    ];
    for (const [schema, field, message] of cases) {
      const problems = structuralProblems(schema, "openAPIV3Schema");
      const hit = problems.find((p) => p.field === field);
      assert.ok(hit, `${field} not among ${JSON.stringify(problems)}`);
      assert.match(hit.message ?? "", message);
    }
  });

  it("refuses defaults their own schema rejects, reporting inside the default", () => {
    const at = "openAPIV3Schema.properties[spec].properties[a].default";
    const cases: [OpenApiSchema, string, RegExp][] = [
      [{ type: "string", default: 5 }, at, new RegExp(`${esc(at)} in body must be of type string`)],
      [{ type: "integer", minimum: 1, default: 0 }, at, /should be greater than or equal to 1/],
      [{ type: "string", enum: ["x"], default: "y" }, at, /Unsupported value: "y"/],
      [{ type: "string", default: null }, at, /must be of type string/],
      [
        { type: "object", properties: { b: { type: "string" } }, default: { b: "x", c: 1 } },
        at,
        /must not have unknown fields/,
      ],
      [
        {
          type: "object",
          required: ["b"],
          properties: { b: { type: "string" }, n: { type: "integer" } },
          default: { n: "one" },
        },
        `${at}.n`,
        /default\.n in body must be of type integer/,
      ],
      [
        { type: "object", required: ["b"], properties: { b: { type: "string" } }, default: {} },
        `${at}.b`,
        /Required value/,
      ],
      [
        { type: "array", items: { type: "integer" }, default: [1, "2"] },
        `${at}[1]`,
        /must be of type integer/,
      ],
    ];
    for (const [a, field, message] of cases) {
      const schema = root({ type: "object", properties: { a } });
      const problems = structuralProblems(schema, "openAPIV3Schema");
      const hit = problems.find((p) => p.field === field);
      assert.ok(hit, `${field} not among ${JSON.stringify(problems)}`);
      assert.match(hit.message ?? "", message);
    }
    const typeMeta: OpenApiSchema = {
      type: "object",
      properties: { kind: { type: "string", default: "X" }, spec: { type: "object" } },
    };
    assert.deepEqual(
      structuralProblems(typeMeta, "openAPIV3Schema").map((p) => [p.field, p.message]),
      [
        [
          "openAPIV3Schema.properties[kind].default",
          "Forbidden: must not be set in top-level kind",
        ],
      ],
    );
  });
});

function esc(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}
