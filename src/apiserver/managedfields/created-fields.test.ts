import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import type { OpenApiSchema } from "../../resources/index.ts";
import { builtinType } from "./builtin-schema.ts";
import { crdType } from "./crd-schema.ts";
import { createdFieldsV1 } from "./created-fields.ts";
import { UNOWNED_FIELDS } from "./field-manager.ts";
import { FieldSet } from "./field-set.ts";
import { toFieldsV1 } from "./fields-v1.ts";
import { fieldElement } from "./path-element.ts";
import type { JsonObject, TypeNode } from "./schema.ts";
import { Updater } from "./updater.ts";

/** What the general path gives a create's manager: an update from nothing, less unowned fields. */
function general(object: JsonObject, type: TypeNode, ignoreStatus: boolean): string | undefined {
  const updater = new Updater({
    version: "v",
    views: (v) => (v === "v" ? { type, toVersion: (o) => o, fromVersion: (o) => o } : undefined),
    ...(ignoreStatus ? { ignored: FieldSet.of([fieldElement("status")]) } : {}),
  });
  const set = updater.update({}, object, new Map(), "m").get("m")?.set.difference(UNOWNED_FIELDS);
  return set === undefined || set.isEmpty() ? undefined : JSON.stringify(toFieldsV1(set));
}

function fast(object: JsonObject, type: TypeNode, ignoreStatus: boolean): string | undefined {
  const f = createdFieldsV1(object, type, new Set(ignoreStatus ? ["status"] : []));
  return f === undefined ? undefined : JSON.stringify(f);
}

const str: OpenApiSchema = { type: "string" };
const crd = crdType({
  type: "object",
  properties: {
    spec: {
      type: "object",
      properties: {
        n: { type: "integer" },
        m: { type: "object", additionalProperties: str },
        atomic: { type: "object", "x-kubernetes-map-type": "atomic", additionalProperties: str },
        set: { type: "array", "x-kubernetes-list-type": "set", items: str },
        list: {
          type: "array",
          "x-kubernetes-list-type": "map",
          "x-kubernetes-list-map-keys": ["k"],
          items: {
            type: "object",
            properties: { k: str, v: { type: "object", additionalProperties: str } },
          },
        },
        free: { type: "object", "x-kubernetes-preserve-unknown-fields": true },
      },
    },
    status: { type: "object", properties: { n: { type: "integer" } } },
  },
});

const word = fc.constantFrom("a", "b", "c");
const maybe = <T>(a: fc.Arbitrary<T>) => fc.option(a, { nil: undefined, freq: 2 });
const strMap = fc.dictionary(word, fc.option(word, { nil: null, freq: 6 }), { maxKeys: 3 });
const json = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: "small" },
    word,
    fc.integer(),
    fc.constant(null),
    fc.array(tie("value"), { maxLength: 2 }),
    fc.dictionary(word, tie("value"), { maxKeys: 3 }),
  ),
})).value;

const customResource = fc.record(
  {
    apiVersion: fc.constant("x/v"),
    kind: fc.constant("K"),
    metadata: fc.record(
      {
        name: word,
        labels: strMap,
        finalizers: fc.array(word, { maxLength: 3 }),
        generation: fc.nat(),
      },
      { requiredKeys: ["name"] },
    ),
    spec: fc.record({
      n: maybe(fc.integer()),
      m: maybe(strMap),
      atomic: maybe(strMap),
      set: maybe(fc.array(word, { maxLength: 3 })),
      list: maybe(
        fc.array(fc.record({ k: word, v: maybe(strMap) }, { requiredKeys: ["k"] }), {
          maxLength: 3,
        }),
      ),
      free: maybe(fc.dictionary(word, json, { maxKeys: 3 })),
    }),
    status: maybe(fc.record({ n: maybe(fc.integer()) })),
  },
  { requiredKeys: ["apiVersion", "kind", "metadata"] },
);

const container = fc.record(
  {
    name: word,
    image: word,
    args: fc.array(word, { maxLength: 2 }),
    ports: fc.array(
      fc.record({ containerPort: fc.nat(3), protocol: maybe(fc.constantFrom("TCP", "UDP")) }),
      {
        maxLength: 2,
      },
    ),
    resources: fc.record({ limits: strMap }, { requiredKeys: [] }),
  },
  { requiredKeys: ["name"] },
);
const deployment = fc.record(
  {
    apiVersion: fc.constant("apps/v1"),
    kind: fc.constant("Deployment"),
    metadata: fc.record({ name: word, labels: strMap }, { requiredKeys: ["name"] }),
    spec: fc.record(
      {
        replicas: fc.nat(3),
        selector: fc.record({ matchLabels: strMap }),
        strategy: fc.record({ type: word }, { requiredKeys: [] }),
        template: fc.record(
          {
            metadata: fc.record({ labels: strMap }, { requiredKeys: [] }),
            spec: fc.record(
              { containers: fc.array(container, { maxLength: 2 }) },
              { requiredKeys: [] },
            ),
          },
          { requiredKeys: [] },
        ),
      },
      { requiredKeys: [] },
    ),
    status: fc.record({ replicas: fc.nat(3) }, { requiredKeys: [] }),
  },
  { requiredKeys: ["apiVersion", "kind", "metadata"] },
);

/** Drops the `undefined`s fast-check's records leave for absent optional keys. */
const plain = (v: unknown) => JSON.parse(JSON.stringify(v)) as JsonObject;

describe("createdFieldsV1 (the create fast path)", () => {
  for (const [name, arb, type, ignoreStatus] of [
    ["custom resources", customResource, crd, true],
    ["custom resources without a status subresource", customResource, crd, false],
    ["Deployments", deployment, builtinType("apps", "v1", "Deployment")!, true],
  ] as const) {
    it(`agrees with the general path on ${name} (property)`, () => {
      let decided = 0;
      fc.assert(
        fc.property(arb, (raw) => {
          const o = plain(raw);
          let want: string | undefined;
          try {
            want = general(o, type, ignoreStatus);
          } catch {
            assert.throws(() => fast(o, type, ignoreStatus), "the general path refused it");
            return;
          }
          let got: string | undefined;
          try {
            got = fast(o, type, ignoreStatus);
          } catch {
            return; // the general path decides, and did
          }
          decided++;
          assert.equal(got, want);
        }),
        { numRuns: 500 },
      );
      assert.ok(decided > 400, `the fast path decided only ${decided} of 500`);
    });
  }
});
