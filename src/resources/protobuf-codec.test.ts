/**
 * The protobuf codec against the rules of kube-apiserver's generated Go marshallers: encoding
 * writes every non-pointer field (its zero when absent), a pointer field only when set, fields in
 * ascending number and map entries sorted by key; decoding yields the JSON Go writes for the
 * decoded value, left as small as that allows. Every built-in kind and its list round-trips random objects built from
 * its message table. (protobuf-wire-bytes.test.ts pins the bytes and the errors.)
 */
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { describe, it } from "node:test";
import fc from "fast-check";
import { BUILTIN_RESOURCES } from "./builtin-resources.ts";
import { decodeObject } from "./protobuf-codec.ts";
import { encodeObject } from "./protobuf-encode.ts";
import {
  kindMessage,
  type ProtoField,
  type ProtoMessage,
  protoMessage,
} from "./protobuf-schema.ts";

type Json = Record<string, unknown>;

const _MAGIC = [0x6b, 0x38, 0x73, 0x00];

function _message(name: string): ProtoMessage {
  const m = protoMessage(name);
  assert.ok(m, `the table has ${name}`);
  return m;
}

/** A JSON object whose keys may include `__proto__` as an own key, as JSON.parse makes it. */
const fromEntries = (entries: readonly (readonly [string, unknown])[]): Json =>
  Object.fromEntries(entries);

// ---- random objects that follow a message table ----

/** How deep messages nest in a generated object; deeper fields are left out. */
const MAX_DEPTH = 5;

const text = fc.oneof(
  fc.constantFrom("", "0", "a", "web", "héllo wörld", "日本語", "😀"),
  fc.string({ maxLength: 6 }),
  fc.string({ unit: "grapheme", maxLength: 3 }),
);
const int32 = fc.oneof(
  fc.constantFrom(0, 1, -1, 2 ** 31 - 1, -(2 ** 31)),
  fc.integer({ min: -(2 ** 31), max: 2 ** 31 - 1 }),
);
const base64 = fc.uint8Array({ maxLength: 6 }).map((b) => Buffer.from(b).toString("base64"));
/** Whole seconds from 1970 to 2100, as metav1.Time writes them. */
const seconds = fc.integer({ min: 0, max: 4_102_444_800 });
const time = seconds.map((s) => new Date(s * 1000).toISOString().replace(".000Z", "Z"));
const microTime = fc
  .tuple(seconds, fc.integer({ min: 0, max: 999_999 }))
  .map(
    ([s, us]) => `${new Date(s * 1000).toISOString().slice(0, 19)}.${String(us).padStart(6, "0")}Z`,
  );
const duration = fc.constantFrom("0s", "1ns", "1.5µs", "300ms", "1m0s", "1h0m0s", "-1.5s");
/** Quantities already in their canonical form, which a Quantity writes back unchanged. */
const quantity = fc.constantFrom("0", "1", "64", "500m", "1500m", "1k", "2Gi", "100Mi", "250M");
const mapKey = fc.oneof(
  fc.constantFrom("__proto__", "constructor", "a", "b", "B", "z", "app.kubernetes.io/name"),
  fc.string({ maxLength: 5 }),
);
/** A small JSON object, as an embedded object or a managed-fields set holds. */
const smallJson = fc
  .uniqueArray(
    fc.tuple(
      mapKey,
      fc.oneof(text, int32, fc.boolean(), fc.constant(null), fc.constant({ f: ["x", 1] })),
    ),
    { selector: ([k]) => k, maxLength: 3 },
  )
  .map(fromEntries);

function specialArb(m: ProtoMessage): fc.Arbitrary<unknown> {
  switch (m.special) {
    case "time":
      return time;
    case "microTime":
      return microTime;
    case "duration":
      return duration;
    case "quantity":
      return quantity;
    case "intOrString":
      return fc.oneof(int32, text);
    case "rawExtension":
    case "fieldsV1":
      return smallJson;
    case "list":
      return fc.array(text, { maxLength: 3 });
    case undefined:
      throw new Error(`${m.name} is not special`);
  }
}

/** One value of a field's type: an element of a repeated field, a value of a map. */
function elementArb(f: ProtoField, depth: number): fc.Arbitrary<unknown> {
  switch (f.scalar) {
    case "string":
      return text;
    case "bool":
      return fc.boolean();
    case "int32":
    case "int64":
      return int32;
    case "bytes":
      return base64;
    case undefined:
      return f.message!.special === undefined
        ? objectArb(f.message!, depth + 1)
        : specialArb(f.message!);
  }
}

function fieldArb(f: ProtoField, depth: number): fc.Arbitrary<unknown> {
  const one = elementArb(f, depth);
  if (f.map) {
    return fc
      .uniqueArray(fc.tuple(mapKey, one), { selector: ([k]) => k, maxLength: 3 })
      .map(fromEntries);
  }
  return f.repeated ? fc.array(one, { maxLength: 2 }) : one;
}

const objectArbs = new Map<string, fc.Arbitrary<Json>>();

/** A JSON object of message `m`: any subset of its fields, inline structs' fields among them. */
function objectArb(m: ProtoMessage, depth: number): fc.Arbitrary<Json> {
  const key = `${m.name}@${depth}`;
  const done = objectArbs.get(key);
  if (done !== undefined) return done;
  const own: Record<string, fc.Arbitrary<unknown>> = {};
  const inline: fc.Arbitrary<Json>[] = [];
  for (const f of m.fields) {
    if (f.json === "") inline.push(objectArb(f.message!, depth));
    else if (f.message?.special !== undefined || f.message === undefined || depth < MAX_DEPTH) {
      own[f.json] = fieldArb(f, depth);
    }
  }
  const arb = fc
    .tuple(fc.record(own, { requiredKeys: [] }), ...inline)
    .map(([fields, ...inlined]) => Object.assign({}, ...inlined, fields) as Json);
  objectArbs.set(key, arb);
  return arb;
}

// ---- the reference: what decoding an encoded object must give ----

/**
 * Whether a non-pointer field's normalized value is its Go zero value, which Go writes for an
 * absent field too, so that decoding leaves it out. A value that only looks empty in JSON but
 * is not Go's zero stays: a string IntOrString "" (Type String), an embedded object {} (its raw
 * bytes are "{}"), bytes "" (present, though empty, on the wire).
 */
function isGoZero(f: ProtoField, v: unknown): boolean {
  switch (f.scalar) {
    case "string":
      return v === "";
    case "bool":
      return v === false;
    case "int32":
    case "int64":
      return v === 0;
    case "bytes":
      return false;
    case undefined:
      switch (f.message!.special) {
        case undefined:
          return false; // a struct: Go writes it, {} when empty
        case "quantity":
          return v === "0";
        case "intOrString":
          return v === 0;
        case "duration":
          return v === "0s";
        default:
          return false;
      }
  }
}

/** What Go's JSON writes for a zero it always writes: null for a time, the zero otherwise. */
function writtenZero(f: ProtoField): unknown {
  switch (f.message?.special) {
    case "time":
    case "microTime":
      return null;
    case "quantity":
      return "0";
    case "duration":
      return "0s";
    case "intOrString":
      return 0;
  }
  return f.scalar === "bool" ? false : f.scalar === "string" ? "" : 0;
}

/** One value of a field's type, normalized: a plain message's fields, anything else as it is. */
function normalizeValue(f: ProtoField, v: unknown): unknown {
  return f.message !== undefined && f.message.special === undefined
    ? normalize(v as Json, f.message)
    : v;
}

/**
 * `x` as decoding must give it back: empty maps and arrays gone (nothing is on the wire), a
 * non-pointer field at its Go zero gone, a pointer field kept whatever it holds, repeated
 * elements and map values kept; and a struct held by value, or a zero Go's JSON writes, there
 * even when absent (encoding sends it, as Go's marshallers do, and Go's JSON writes it).
 */
function normalize(x: Json, m: ProtoMessage): Json {
  const out: Json = {};
  for (const f of m.fields) {
    if (f.json === "") {
      Object.assign(out, normalize(x, f.message!));
      continue;
    }
    const byValue =
      !f.pointer &&
      !f.repeated &&
      !f.map &&
      f.message !== undefined &&
      f.message.special === undefined;
    const emptyList = f.repeated || f.map;
    if (f.zeroWritten && emptyList) {
      // An empty one sends nothing; Go decodes nil and its JSON writes null (a list's items []).
      const v = x[f.json];
      const empty = v === undefined || v === null || Object.keys(v as object).length === 0;
      if (empty) {
        out[f.json] = f.json === "items" && m.name.endsWith("List") ? [] : null;
        continue;
      }
    }
    if (!Object.hasOwn(x, f.json)) {
      if (byValue) out[f.json] = normalize({}, f.message!);
      else if (f.zeroWritten) out[f.json] = writtenZero(f);
      continue;
    }
    if (f.zeroWritten && !emptyList) {
      out[f.json] = x[f.json] ?? writtenZero(f);
      continue;
    }
    const v = x[f.json];
    if (f.map) {
      const entries = Object.entries(v as Json);
      if (entries.length > 0) {
        out[f.json] = fromEntries(entries.map(([k, e]) => [k, normalizeValue(f, e)]));
      }
    } else if (f.repeated) {
      const items = v as unknown[];
      if (items.length > 0) out[f.json] = items.map((e) => normalizeValue(f, e));
    } else {
      const n = normalizeValue(f, v);
      if (f.pointer || !isGoZero(f, n)) out[f.json] = n;
    }
  }
  return out;
}

const apiVersionOf = (group: string, version: string) =>
  group === "" ? version : `${group}/${version}`;

/** Every built-in kind and its list, once each. */
const KINDS = [
  ...new Map(
    BUILTIN_RESOURCES.flatMap(({ group, version, kind }) => [
      [`${apiVersionOf(group, version)} ${kind}`, [apiVersionOf(group, version), kind]],
      [
        `${apiVersionOf(group, version)} ${kind}List`,
        [apiVersionOf(group, version), `${kind}List`],
      ],
    ]),
  ).values(),
] as [string, string][];

const sameBytes = (a: Uint8Array, b: Uint8Array) => Buffer.compare(a, b) === 0;

describe("every built-in kind round-trips through protobuf", () => {
  const reachable = KINDS.filter(([apiVersion, kind]) => kindMessage(apiVersion, kind));

  it("reaches a message for every built-in kind, and for the lists of all but create-only ones", () => {
    // The two whose Go types live outside k8s.io/api, in the apiextensions and aggregator
    // servers, have none in the table.
    const without = BUILTIN_RESOURCES.filter(
      ({ group, version, kind }) => !kindMessage(apiVersionOf(group, version), kind),
    ).map(({ kind }) => kind);
    assert.deepEqual(without, ["CustomResourceDefinition", "APIService"]);
    // Kinds kube-apiserver serves only for create (reviews, bindings) have no List.
    const unreachable = KINDS.filter(([apiVersion, kind]) => !kindMessage(apiVersion, kind));
    for (const [apiVersion, kind] of unreachable) {
      if (without.some((k) => kind === k || kind === `${k}List`)) continue;
      const of = BUILTIN_RESOURCES.find(
        (r) => apiVersionOf(r.group, r.version) === apiVersion && `${r.kind}List` === kind,
      );
      assert.ok(of, `${kind} in ${apiVersion} has a message`);
      assert.ok(!of.verbs.includes("list"), `${of.kind} is listed, so ${kind} needs a message`);
    }
  });

  for (const [apiVersion, kind] of reachable) {
    it(`${kind} in ${apiVersion}: decode(encode(x)) is x normalized, and encodes to the same bytes`, () => {
      const m = kindMessage(apiVersion, kind)!;
      fc.assert(
        fc.property(objectArb(m, 0), (x) => {
          const bytes = encodeObject({ apiVersion, kind, ...x });
          const back = decodeObject(bytes);
          assert.deepEqual(back, { apiVersion, kind, ...normalize(x, m) });
          assert.ok(sameBytes(encodeObject(back), bytes), "re-encoding writes other bytes");
        }),
        { numRuns: 12 },
      );
    });
  }
});

describe("without code generation from strings", () => {
  it("decodes what the generated readers decode, by walking the table", () => {
    // A Deployment reaches scalars, pointers, maps, lists, Times, Quantities, IntOrStrings and
    // an inline struct (a volume's source).
    const deployment = {
      apiVersion: "apps/v1",
      kind: "Deployment",
      metadata: { name: "web", labels: { app: "web" }, creationTimestamp: "2026-11-27T12:00:00Z" },
      spec: {
        replicas: 0,
        selector: { matchLabels: { app: "web" } },
        strategy: { type: "RollingUpdate", rollingUpdate: { maxSurge: "25%", maxUnavailable: 1 } },
        template: {
          metadata: { labels: { app: "web" } },
          spec: {
            volumes: [{ name: "c", configMap: { name: "web", defaultMode: 420 } }],
            containers: [{ name: "web", image: "nginx", resources: { limits: { cpu: "500m" } } }],
          },
        },
      },
    };
    const bytes = Buffer.from(encodeObject(deployment)).toString("base64");
    const script = `import { decodeObject } from "kontroller/resources";
      process.stdout.write(JSON.stringify(decodeObject(Buffer.from("${bytes}", "base64"))));`;
    const walked = execFileSync(
      process.execPath,
      [
        "--conditions=kontroller-source",
        "--disallow-code-generation-from-strings",
        "--input-type=module",
        "--eval",
        script,
      ],
      { encoding: "utf8" },
    );
    const generated = decodeObject(Buffer.from(bytes, "base64"));
    assert.deepEqual(JSON.parse(walked), generated);
    // Go sends the empty status it holds by value, and its JSON writes it.
    assert.deepEqual(generated, { ...deployment, status: {} });
  });
});
