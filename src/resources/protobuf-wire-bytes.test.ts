/**
 * The protobuf codec's wire bytes against what kube-apiserver's Go marshallers write — pointer
 * and non-pointer fields, IntOrString, maps, times, inline structs, the envelope — and its
 * errors, which say what broke and where.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  decodeMessage,
  decodeObject,
  hasProtobufMagic,
  ProtobufError,
  readEnvelope,
} from "./protobuf-codec.ts";
import { encodeMessage, encodeObject } from "./protobuf-encode.ts";
import { type ProtoMessage, protoMessage } from "./protobuf-schema.ts";

type Json = Record<string, unknown>;

const MAGIC = [0x6b, 0x38, 0x73, 0x00];

function message(name: string): ProtoMessage {
  const m = protoMessage(name);
  assert.ok(m, `the table has ${name}`);
  return m;
}

/** A JSON object whose keys may include `__proto__` as an own key, as JSON.parse makes it. */
describe("pointer and non-pointer fields", () => {
  it("keeps a Deployment's replicas: 0 (a pointer), drops paused: false (not one), writes its empty structs", () => {
    const deployment = {
      apiVersion: "apps/v1",
      kind: "Deployment",
      metadata: { name: "web", namespace: "default" },
      spec: {
        replicas: 0,
        paused: false,
        minReadySeconds: 0,
        selector: { matchLabels: { app: "web" } },
        template: {
          metadata: { labels: { app: "web" } },
          spec: { containers: [{ name: "web", image: "nginx" }] },
        },
      },
    };
    const back = decodeObject(encodeObject(deployment));
    // Structs held by value come back as {} (Go sends them, and its JSON writes them).
    assert.deepEqual(back, {
      apiVersion: "apps/v1",
      kind: "Deployment",
      metadata: { name: "web", namespace: "default" },
      spec: {
        replicas: 0,
        selector: { matchLabels: { app: "web" } },
        template: {
          metadata: { labels: { app: "web" } },
          spec: { containers: [{ name: "web", image: "nginx", resources: {} }] },
        },
        strategy: {},
      },
      status: {},
    });
  });

  it("writes every non-pointer field, zero when absent, and a pointer only when set", () => {
    const spec = message("k8s.io.api.apps.v1.DeploymentSpec");
    const bytes = encodeMessage({}, spec);
    // template (3), strategy (4), minReadySeconds (5) and paused (7), in ascending number.
    assert.deepEqual([...readTags(bytes)], [3, 4, 5, 7]);
    assert.deepEqual([...bytes.subarray(-4)], [0x28, 0x00, 0x38, 0x00]);
    assert.deepEqual([...readTags(encodeMessage({ replicas: 0 }, spec))], [1, 3, 4, 5, 7]);
  });
});

/** A varint's bytes. */
function varint(n: number): number[] {
  const out: number[] = [];
  for (; n >= 0x80; n = Math.floor(n / 0x80)) out.push((n % 0x80) | 0x80);
  out.push(n);
  return out;
}

/** A length-delimited field's bytes. */
const ld = (no: number, bytes: readonly number[]): number[] => [
  ...varint(no * 8 + 2),
  ...varint(bytes.length),
  ...bytes,
];

const utf8 = (s: string): number[] => [...Buffer.from(s)];

/** The field numbers of the top-level fields of a message, in the order they are written. */
function* readTags(bytes: Uint8Array): Generator<number> {
  let at = 0;
  const varint = () => {
    let v = 0;
    for (let shift = 0; ; shift += 7) {
      const b = bytes[at++]!;
      v += (b & 0x7f) * 2 ** shift;
      if (b < 0x80) return v;
    }
  };
  while (at < bytes.length) {
    const tag = varint();
    yield Math.floor(tag / 8);
    if (tag % 8 === 0) varint();
    else {
      const length = varint();
      at += length;
    }
  }
}

describe("IntOrString", () => {
  const port = message("k8s.io.api.core.v1.ServicePort");

  it("writes an int as type 0 with intVal, every field present, as Go does", () => {
    const bytes = encodeMessage({ name: "web", port: 80, targetPort: 8080 }, port);
    assert.deepEqual(
      [...bytes],
      [
        ...[0x0a, 0x03, ...Buffer.from("web")], // name
        ...[0x12, 0x00], // protocol ""
        ...[0x18, 0x50], // port 80
        ...[0x22, 0x07, 0x08, 0x00, 0x10, 0x90, 0x3f, 0x1a, 0x00], // targetPort {type 0, 8080, ""}
        ...[0x28, 0x00], // nodePort 0
      ],
    );
    assert.deepEqual(decodeMessage(bytes, port), { name: "web", port: 80, targetPort: 8080 });
  });

  it("writes a string as type 1 with strVal, and reads it back a string", () => {
    const bytes = encodeMessage({ port: 80, targetPort: "http" }, port);
    const targetPort = [0x22, 0x0a, 0x08, 0x01, 0x10, 0x00, 0x1a, 0x04, ...Buffer.from("http")];
    assert.ok(Buffer.from(bytes).includes(Buffer.from(targetPort)));
    assert.deepEqual(decodeMessage(bytes, port), { port: 80, targetPort: "http" });
  });

  it('keeps a string "0" apart from the int 0, its zero, which Go\'s JSON writes', () => {
    // port (no omitempty) is written at its zero; so is targetPort, a struct, omitempty or not.
    assert.deepEqual(decodeMessage(encodeMessage({ targetPort: "0" }, port), port), {
      port: 0,
      targetPort: "0",
    });
    assert.deepEqual(decodeMessage(encodeMessage({ targetPort: 0 }, port), port), {
      port: 0,
      targetPort: 0,
    });
  });
});

describe("maps", () => {
  it("writes a ConfigMap's data sorted by key", () => {
    const configMap = message("k8s.io.api.core.v1.ConfigMap");
    const bytes = Buffer.from(encodeMessage({ data: { b: "2", c: "3", a: "1" } }, configMap));
    const entry = (k: string, v: string) =>
      Buffer.from([0x12, 0x06, 0x0a, 0x01, ...Buffer.from(k), 0x12, 0x01, ...Buffer.from(v)]);
    const at = ["a", "b", "c"].map((k, i) => bytes.indexOf(entry(k, String(i + 1))));
    assert.ok(at[0]! >= 0 && at[0]! < at[1]! && at[1]! < at[2]!, `entries at ${at}`);
    assert.deepEqual(decodeMessage(bytes, configMap), {
      metadata: {},
      data: { a: "1", b: "2", c: "3" },
    });
  });

  it("sorts keys by their UTF-8 bytes, as Go's sort.Strings does", () => {
    const spec = message("k8s.io.api.authorization.v1.SubjectAccessReviewSpec");
    // UTF-16 order would put the emoji (a surrogate pair, 0xD83D…) before U+FFFD; UTF-8 puts
    // U+FFFD (EF BF BD) before it (F0 9F 98 80).
    const extra = { "😀": ["x"], "\uFFFD": ["y"], z: ["w"] };
    const bytes = Buffer.from(encodeMessage({ extra }, spec));
    const at = ["z", "\uFFFD", "😀"].map((k) => bytes.indexOf(Buffer.from(k)));
    assert.ok(at[0]! < at[1]! && at[1]! < at[2]!, `keys at ${at}`);
    assert.deepEqual(decodeMessage(bytes, spec), { extra });
  });

  it('keeps a key "__proto__" as an ordinary key', () => {
    const configMap = message("k8s.io.api.core.v1.ConfigMap");
    const data = JSON.parse('{"__proto__": "x", "a": ""}') as Json;
    const back = decodeMessage(encodeMessage({ data }, configMap), configMap);
    assert.deepEqual(Object.entries(back.data as Json), [
      ["__proto__", "x"],
      ["a", ""],
    ]);
  });

  it("round-trips a Secret's data as base64 of the raw bytes", () => {
    const raw = Buffer.from([0x00, 0xff, 0x10, 0x80, 0x7f]);
    const secret = {
      apiVersion: "v1",
      kind: "Secret",
      metadata: { name: "s" },
      type: "Opaque",
      data: { key: raw.toString("base64"), empty: "" },
    };
    const bytes = Buffer.from(encodeObject(secret));
    assert.ok(bytes.includes(raw), "the raw bytes are on the wire, not their base64");
    assert.deepEqual(decodeObject(bytes), secret);
  });
});

describe("times", () => {
  it("keeps an Event's eventTime to the microsecond", () => {
    const event = {
      apiVersion: "events.k8s.io/v1",
      kind: "Event",
      metadata: { name: "e", namespace: "default" },
      eventTime: "2026-11-27T16:58:04.123456Z",
      reason: "Started",
    };
    const bytes = encodeObject(event);
    // regarding and deprecatedSource are structs held by value: sent, and written as {}; the
    // deprecated times are Times held by value: written as null (omitempty leaves no struct out).
    assert.deepEqual(decodeObject(bytes), {
      ...event,
      regarding: {},
      deprecatedSource: {},
      deprecatedFirstTimestamp: null,
      deprecatedLastTimestamp: null,
    });
    const micro = ld(2, [0x08, ...varint(1_795_798_684), 0x10, ...varint(123_456_000)]);
    assert.ok(Buffer.from(bytes).includes(Buffer.from(micro)), "eventTime is seconds and nanos");
  });

  it("converts a core Event's offset microTime to UTC", () => {
    const event = {
      apiVersion: "v1",
      kind: "Event",
      metadata: { name: "e" },
      eventTime: "2026-11-27T18:58:04.000001+02:00",
    };
    assert.equal(decodeObject(encodeObject(event)).eventTime, "2026-11-27T16:58:04.000001Z");
  });

  it("writes a Time's whole seconds only, as kube-apiserver does", () => {
    const meta = message("k8s.io.apimachinery.pkg.apis.meta.v1.ObjectMeta");
    const back = decodeMessage(
      encodeMessage({ creationTimestamp: "2026-11-27T16:58:04.9Z" }, meta),
      meta,
    );
    assert.deepEqual(back, { creationTimestamp: "2026-11-27T16:58:04Z" });
  });

  it("reads an absent non-pointer Time as absent, and writes it as an empty message", () => {
    const meta = message("k8s.io.apimachinery.pkg.apis.meta.v1.ObjectMeta");
    const bytes = Buffer.from(encodeMessage({}, meta));
    assert.ok(bytes.includes(Buffer.from([0x42, 0x00])), "creationTimestamp (8) is empty");
    assert.deepEqual(decodeMessage(bytes, meta), {});
  });
});

describe("inline structs", () => {
  it("round-trips a Volume's inline VolumeSource and its inline LocalObjectReference", () => {
    const pod = {
      apiVersion: "v1",
      kind: "Pod",
      metadata: { name: "p" },
      spec: {
        containers: [{ name: "c", image: "busybox" }],
        volumes: [
          { name: "cfg", configMap: { name: "settings", defaultMode: 420 } },
          { name: "scratch", emptyDir: {} },
        ],
      },
    };
    const bytes = Buffer.from(encodeObject(pod));
    // Volume field 2 holds the VolumeSource, whose configMap (19) holds field 1, its inline
    // LocalObjectReference.
    const reference = ld(1, ld(1, utf8("settings")));
    const source = ld(2, ld(19, [...reference, 0x18, ...varint(420)]));
    const volume = ld(1, [...ld(1, utf8("cfg")), ...source]);
    assert.ok(bytes.includes(Buffer.from(volume)), "configMap nests inside the VolumeSource");
    const back = decodeObject(bytes) as typeof pod & { status?: unknown };
    assert.deepEqual(back.spec.volumes, pod.spec.volumes);
    // The container's resources and the status are structs held by value: written as {}.
    assert.deepEqual(back, {
      ...pod,
      spec: { ...pod.spec, containers: [{ ...pod.spec.containers[0], resources: {} }] },
      status: {},
    });
  });
});

describe("the envelope", () => {
  it("wraps an object in k8s\\0 and a runtime.Unknown naming its type", () => {
    const bytes = encodeObject({ apiVersion: "v1", kind: "ConfigMap", metadata: { name: "c" } });
    assert.ok(hasProtobufMagic(bytes));
    assert.deepEqual([...bytes.subarray(0, 4)], MAGIC);
    const envelope = readEnvelope(bytes);
    assert.equal(envelope.apiVersion, "v1");
    assert.equal(envelope.kind, "ConfigMap");
    assert.deepEqual(decodeMessage(envelope.raw, message("k8s.io.api.core.v1.ConfigMap")), {
      metadata: { name: "c" },
    });
  });

  it("decodes an embedded object held as a protobuf object of its own", () => {
    const revision = message("k8s.io.api.apps.v1.ControllerRevision");
    const inner = encodeObject({ apiVersion: "v1", kind: "ConfigMap", data: { a: "b" } });
    const back = decodeMessage(encodeMessage({ data: inner, revision: 3 }, revision), revision);
    assert.deepEqual(back, {
      metadata: {},
      data: { apiVersion: "v1", kind: "ConfigMap", metadata: {}, data: { a: "b" } },
      revision: 3,
    });
  });
});

// ---- broken bodies ----

/** Asserts `fn` throws a ProtobufError whose message matches every pattern. */
function throwsProtobuf(fn: () => unknown, ...patterns: RegExp[]): void {
  assert.throws(fn, (err: unknown) => {
    assert.ok(err instanceof ProtobufError, `a ProtobufError, not ${String(err)}`);
    for (const p of patterns) assert.match(err.message, p);
    return true;
  });
}

describe("errors say what broke and where", () => {
  const configMap = message("k8s.io.api.core.v1.ConfigMap");

  it("refuses a body without the magic", () => {
    throwsProtobuf(() => decodeObject(Buffer.from('{"kind":"ConfigMap"}')), /magic/, /k8s\\0/);
    throwsProtobuf(() => readEnvelope(new Uint8Array([0x6b, 0x38])), /magic/);
  });

  it("refuses an envelope that names no kind", () => {
    const unknown = message("k8s.io.apimachinery.pkg.runtime.Unknown");
    const body = encodeMessage({ apiVersion: "v1", raw: "" }, unknown);
    throwsProtobuf(() => decodeObject(Buffer.from([...MAGIC, ...body])), /envelope/, /no kind/);
  });

  it("refuses to encode a kind without a message, such as a custom resource", () => {
    throwsProtobuf(
      () => encodeObject({ apiVersion: "example.com/v1", kind: "Widget", spec: {} }),
      /Widget/,
      /example\.com\/v1/,
      /no protobuf message/,
    );
  });

  it("refuses to decode an envelope of a kind without a message", () => {
    const unknown = message("k8s.io.apimachinery.pkg.runtime.Unknown");
    const body = encodeMessage({ apiVersion: "example.com/v1", kind: "Widget" }, unknown);
    throwsProtobuf(() => decodeObject(Buffer.from([...MAGIC, ...body])), /Widget/, /no protobuf/);
  });

  it("refuses a length that runs past the end, naming the field", () => {
    // metadata (1) claims 16 bytes; 2 follow.
    throwsProtobuf(
      () => decodeMessage(new Uint8Array([0x0a, 0x10, 0x0a, 0x00]), configMap),
      /ConfigMap\.metadata/,
      /length \(16\)/,
      /past the end/,
    );
  });

  it("refuses a field that runs past the end of its enclosing message, naming that message", () => {
    // metadata (1) holds 3 bytes, but its name (1) claims 5, which the bytes after it supply.
    throwsProtobuf(
      () => decodeMessage(new Uint8Array([0x0a, 0x03, 0x0a, 0x05, ...utf8("abcde")]), configMap),
      /ObjectMeta/,
      /runs past the end of the message/,
    );
  });

  it("refuses a string whose length runs past the end of the bytes, naming the field", () => {
    throwsProtobuf(
      () => decodeMessage(new Uint8Array([0x0a, 0x05, 0x0a, 0x05, ...utf8("abc")]), configMap),
      /ObjectMeta\.name/,
      /premature EOF/,
    );
  });

  it("refuses a field in the wrong wire type, naming field and types", () => {
    // metadata (1) as a varint.
    throwsProtobuf(
      () => decodeMessage(new Uint8Array([0x08, 0x01]), configMap),
      /ConfigMap/,
      /field 1 \(metadata\)/,
      /length-delimited/,
      /varint/,
    );
    // immutable (4, a bool) as length-delimited.
    throwsProtobuf(
      () => decodeMessage(new Uint8Array([0x22, 0x01, 0x01]), configMap),
      /field 4 \(immutable\)/,
      /is varint, but arrived as length-delimited/,
    );
  });

  it("refuses a truncated varint, naming the message", () => {
    // replicas (1) with a continuation bit and nothing after it.
    throwsProtobuf(
      () =>
        decodeMessage(new Uint8Array([0x08, 0x80]), message("k8s.io.api.apps.v1.DeploymentSpec")),
      /DeploymentSpec\.replicas/,
      /premature EOF/,
    );
  });

  it("refuses an embedded object that is neither JSON nor protobuf", () => {
    const revision = message("k8s.io.apimachinery.pkg.runtime.RawExtension");
    const bytes = encodeMessage(
      { data: new Uint8Array([0x01, 0x02, 0xff]) },
      message("k8s.io.api.apps.v1.ControllerRevision"),
    );
    throwsProtobuf(
      () => decodeMessage(bytes, message("k8s.io.api.apps.v1.ControllerRevision")),
      new RegExp(revision.name.replaceAll(".", "\\.")),
      /neither JSON nor a protobuf object/,
    );
  });

  it("skips a field number the message does not have, as Go's decoders do", () => {
    const bytes = encodeMessage({ metadata: { name: "c" }, data: { a: "b" } }, configMap);
    const unknownFields = [
      ...[0xf8, 0x06, 0x2a], // field 111, varint 42
      ...[0xf2, 0x06, 0x02, 0x68, 0x69], // field 110, "hi"
      ...[0xed, 0x06, 0x01, 0x02, 0x03, 0x04], // field 109, fixed32
      ...[0xe9, 0x06, 1, 2, 3, 4, 5, 6, 7, 8], // field 109, fixed64
    ];
    const withUnknown = new Uint8Array([...unknownFields, ...bytes, ...unknownFields]);
    assert.deepEqual(decodeMessage(withUnknown, configMap), {
      metadata: { name: "c" },
      data: { a: "b" },
    });
    // Inside a nested message too: metadata with name and field 99.
    const nested = new Uint8Array([0x0a, 0x06, 0x0a, 0x01, 0x63, 0x98, 0x06, 0x07]);
    assert.deepEqual(decodeMessage(nested, configMap), { metadata: { name: "c" } });
  });
});
