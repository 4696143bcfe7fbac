import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { OpenApiSchema } from "./openapi-schema.ts";
import { applyDefaults } from "./schema-defaults.ts";
import { prune } from "./schema-prune.ts";
import { compileSchema, fieldPath } from "./schema-validator.ts";

const schema: OpenApiSchema = {
  type: "object",
  properties: {
    spec: {
      type: "object",
      required: ["name"],
      properties: {
        name: { type: "string", minLength: 2, maxLength: 5, pattern: "^[a-z]+$" },
        replicas: { type: "integer", minimum: 1, maximum: 9, default: 1 },
        ratio: { type: "number", minimum: 0, exclusiveMinimum: true },
        mode: { type: "string", enum: ["fast", "slow"], default: "slow" },
        port: { "x-kubernetes-int-or-string": true },
        tags: {
          type: "array",
          maxItems: 2,
          items: { type: "string" },
          "x-kubernetes-list-type": "set",
        },
        ports: {
          type: "array",
          "x-kubernetes-list-type": "map",
          "x-kubernetes-list-map-keys": ["name"],
          items: {
            type: "object",
            properties: { name: { type: "string" }, port: { type: "integer" } },
          },
        },
        when: { type: "string", format: "date-time" },
        id: { type: "string", format: "some-unknown-format" },
        extra: {
          type: "object",
          "x-kubernetes-preserve-unknown-fields": true,
          properties: { keep: { type: "string" } },
        },
        labels: {
          type: "object",
          additionalProperties: {
            type: "object",
            properties: { v: { type: "string", default: "d" } },
          },
        },
        note: { type: "string", nullable: true },
      },
    },
  },
};

const validate = compileSchema(schema);
const causes = (spec: unknown) => validate({ spec }).map((c) => [c.reason, c.field, c.message]);

describe("compileSchema", () => {
  it("accepts a valid object", () => {
    assert.deepEqual(
      causes({
        name: "abc",
        replicas: 3,
        ratio: 0.5,
        mode: "fast",
        port: "http",
        tags: ["a"],
        when: "2026-01-01T00:00:00Z",
        id: "whatever",
        note: null,
      }),
      [],
    );
    assert.deepEqual(causes({ name: "ab", port: 8080 }), []);
  });

  it("reports each violation with kube's field path, cause type and message", () => {
    const table: [unknown, [string, string, string]][] = [
      [{}, ["FieldValueRequired", "spec.name", "Required value"]],
      [
        { name: 5 },
        [
          "FieldValueTypeInvalid",
          "spec.name",
          'Invalid value: "integer": spec.name in body must be of type string: "integer"',
        ],
      ],
      [
        { name: "a" },
        [
          "FieldValueInvalid",
          "spec.name",
          'Invalid value: "a": spec.name in body should be at least 2 chars long',
        ],
      ],
      [
        { name: "abcdef" },
        ["FieldValueTooLong", "spec.name", "Too long: may not be more than 5 bytes"],
      ],
      [
        { name: "AB" },
        [
          "FieldValueInvalid",
          "spec.name",
          `Invalid value: "AB": spec.name in body should match '^[a-z]+$'`,
        ],
      ],
      [
        { name: "ab", replicas: 0 },
        [
          "FieldValueInvalid",
          "spec.replicas",
          "Invalid value: 0: spec.replicas in body should be greater than or equal to 1",
        ],
      ],
      [
        { name: "ab", replicas: 10 },
        [
          "FieldValueInvalid",
          "spec.replicas",
          "Invalid value: 10: spec.replicas in body should be less than or equal to 9",
        ],
      ],
      [
        { name: "ab", ratio: 0 },
        [
          "FieldValueInvalid",
          "spec.ratio",
          "Invalid value: 0: spec.ratio in body should be greater than 0",
        ],
      ],
      [
        { name: "ab", mode: "warp" },
        [
          "FieldValueNotSupported",
          "spec.mode",
          'Unsupported value: "warp": supported values: "fast", "slow"',
        ],
      ],
      [
        { name: "ab", port: 1.5 },
        [
          "FieldValueTypeInvalid",
          "spec.port",
          'Invalid value: "number": spec.port in body must be of type integer,string: "number"',
        ],
      ],
      [
        { name: "ab", tags: ["a", "b", "c"] },
        ["FieldValueTooMany", "spec.tags", "Too many: 3: must have at most 2 items"],
      ],
      [
        { name: "ab", tags: ["a", "a"] },
        ["FieldValueDuplicate", "spec.tags[1]", 'Duplicate value: "a"'],
      ],
      [
        { name: "ab", ports: [{ name: "x" }, { name: "x", port: 2 }] },
        ["FieldValueDuplicate", "spec.ports[1]", 'Duplicate value: ["x"]'],
      ],
      [
        { name: "ab", tags: [1] },
        [
          "FieldValueTypeInvalid",
          "spec.tags[0]",
          'Invalid value: "integer": spec.tags[0] in body must be of type string: "integer"',
        ],
      ],
      [
        { name: "ab", when: "yesterday" },
        [
          "FieldValueInvalid",
          "spec.when",
          'Invalid value: "yesterday": spec.when in body must be of type date-time',
        ],
      ],
    ];
    for (const [spec, want] of table) {
      assert.deepEqual(causes(spec), [want], JSON.stringify(spec));
    }
  });

  it("reports a failed anyOf once, not once per alternative", () => {
    const v = compileSchema({
      type: "object",
      properties: {
        d: { type: "string", anyOf: [{ pattern: "^[0-9]+h$" }, { pattern: "^[0-9]+m$" }] },
      },
    });
    assert.deepEqual(v({ d: "5h" }), []);
    assert.deepEqual(v({ d: "5s" }), [
      {
        reason: "FieldValueInvalid",
        field: "d",
        message: 'Invalid value: "5s": d in body must validate at least one schema (anyOf)',
      },
    ]);
  });

  it("reports every violation at once", () => {
    assert.equal(causes({ name: 1, replicas: "x", mode: "warp" }).length, 3);
  });

  it("caches one validator per schema object", () => {
    assert.equal(compileSchema(schema), validate);
  });

  it("turns JSON pointers into kube field paths", () => {
    assert.equal(fieldPath(""), "");
    assert.equal(fieldPath("/spec/items/0/name"), "spec.items[0].name");
    assert.equal(fieldPath("/metadata/annotations/a~1b"), "metadata.annotations.a/b");
  });
});

describe("prune", () => {
  it("leaves an object's metadata alone even when the schema declares metadata as a bare object", () => {
    const crdRoot: OpenApiSchema = {
      type: "object",
      properties: {
        metadata: { type: "object" },
        spec: { type: "object", properties: { a: { type: "string" } } },
      },
    };
    const obj = { metadata: { name: "x", labels: { a: "b" } }, spec: { a: "1", b: 2 } };
    assert.deepEqual(prune(crdRoot, obj), ["spec.b"]);
    assert.deepEqual(obj.metadata, { name: "x", labels: { a: "b" } });
  });

  it("drops unknown fields, keeps preserved ones and root metadata, reports what it removed", () => {
    const obj = {
      apiVersion: "example.com/v1",
      kind: "X",
      metadata: { name: "x", labels: { a: "b" } },
      spec: {
        name: "ab",
        bogus: 1,
        extra: { keep: "k", anything: { deep: true } },
        labels: { one: { v: "x", junk: 1 } },
        ports: [{ name: "p", port: 1, junk: true }],
      },
      status: { gone: true },
    };
    const removed = prune(schema, obj);
    assert.deepEqual(obj, {
      apiVersion: "example.com/v1",
      kind: "X",
      metadata: { name: "x", labels: { a: "b" } },
      spec: {
        name: "ab",
        extra: { keep: "k", anything: { deep: true } },
        labels: { one: { v: "x" } },
        ports: [{ name: "p", port: 1 }],
      },
    });
    assert.deepEqual(removed.sort(), [
      "spec.bogus",
      "spec.labels.one.junk",
      "spec.ports[0].junk",
      "status",
    ]);
  });
});

describe("applyDefaults", () => {
  it("fills missing fields and non-nullable nulls, in nested maps too, with copies", () => {
    const obj = {
      spec: { name: "ab", replicas: null, labels: { a: {}, b: { v: "set" } } },
    } as Record<string, unknown>;
    applyDefaults(schema, obj);
    assert.deepEqual(obj, {
      spec: { name: "ab", replicas: 1, mode: "slow", labels: { a: { v: "d" }, b: { v: "set" } } },
    });
  });

  it("leaves a null in a nullable field", () => {
    const withDefault: OpenApiSchema = {
      type: "object",
      properties: { n: { type: "string", nullable: true, default: "x" } },
    };
    const obj = { n: null };
    applyDefaults(withDefault, obj);
    assert.deepEqual(obj, { n: null });
  });
});

describe("patterns", () => {
  it("match as RE2: inline flags work, and a pattern that backtracks in JavaScript is just a pattern", () => {
    const validate = compileSchema({
      type: "object",
      properties: {
        day: { type: "string", pattern: "^((?i)sun|mon)day$" },
        a: { type: "string", pattern: "^(a+)+$" },
      },
    });
    assert.deepEqual(validate({ day: "SUNday", a: "aaaa" }), []);
    assert.deepEqual(
      validate({ day: "Tuesday", a: `${"a".repeat(64)}!` })
        .map((c) => c.field)
        .sort(),
      ["a", "day"],
    );
  });
});
