/**
 * A protobuf list as the client reads it: items decoded as their bytes arrive, whatever the
 * network's chunking, and a body that is not a whole list refused with what is wrong.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import {
  decodeObject,
  encodeMessage,
  encodeObject,
  kindMessage,
  protoMessage,
} from "../resources/index.ts";
import { DecodeError, type DecodeErrorReason } from "./decode-error.ts";
import { ProtobufListDecoder } from "./protobuf-stream.ts";

const UNKNOWN = protoMessage("k8s.io.apimachinery.pkg.runtime.Unknown")!;
const MAGIC = Buffer.from("k8s\0", "latin1");

type Json = Record<string, unknown>;

/** `body` fed to a list decoder in chunks cut at `cuts` (byte offsets, any order). */
function decodeList(body: Uint8Array, cuts: number[] = [], maxItemBytes = 1 << 20) {
  const items: Json[] = [];
  const d = new ProtobufListDecoder((item) => items.push(item), maxItemBytes);
  let at = 0;
  for (const c of [...cuts].sort((a, b) => a - b)) {
    d.push(body.subarray(at, c));
    at = c;
  }
  d.push(body.subarray(at));
  return { items, envelope: d.end() };
}

/** A `k8s\0` envelope built by hand, for bodies the codec will not write. */
function envelope(apiVersion: string, kind: string, raw: Uint8Array): Buffer {
  const unknown = { apiVersion, kind, raw: Buffer.from(raw).toString("base64") };
  return Buffer.concat([MAGIC, encodeMessage(unknown, UNKNOWN)]);
}

/** A length-delimited field `no` holding `bytes` (lengths below 128 only). */
function field(no: number, bytes: Uint8Array): Buffer {
  assert.ok(bytes.length < 128);
  return Buffer.concat([Buffer.from([(no << 3) | 2, bytes.length]), bytes]);
}

function isDecodeError(reason: DecodeErrorReason, message: RegExp) {
  return (err: unknown) => {
    assert.ok(err instanceof DecodeError, `expected a DecodeError, got ${String(err)}`);
    assert.equal(err.reason, reason);
    assert.match(err.message, message);
    return true;
  };
}

const configMaps = [
  { metadata: { name: "a", namespace: "ns", resourceVersion: "5" }, data: { k: "v", e: "é ☃" } },
  { metadata: { name: "b", namespace: "ns", resourceVersion: "6", labels: { app: "x" } } },
  { metadata: { name: "c", namespace: "ns", resourceVersion: "7" }, binaryData: { b: "AAE=" } },
];
const configMapList = {
  apiVersion: "v1",
  kind: "ConfigMapList",
  metadata: { resourceVersion: "7", continue: "tok", remainingItemCount: 3 },
  items: configMaps,
};
const configMapBody = Buffer.from(encodeObject(configMapList));
const expectedConfigMaps = configMaps.map((cm) => ({ kind: "ConfigMap", apiVersion: "v1", ...cm }));
const expectedEnvelope = {
  apiVersion: "v1",
  kind: "ConfigMapList",
  metadata: { resourceVersion: "7", continue: "tok", remainingItemCount: 3 },
  items: true,
};

// Go's runtime.Unknown always ends with contentEncoding "" and contentType "" (fields 3 and 4):
// the list's raw message ends four bytes before the body does.
const TRAILER = Buffer.from([0x1a, 0x00, 0x22, 0x00]);
const rawEnd = configMapBody.length - TRAILER.length;

describe("ProtobufListDecoder", () => {
  it("decodes a whole ConfigMapList: its items with the item kind and apiVersion, and the list meta", () => {
    assert.deepEqual(configMapBody.subarray(rawEnd), TRAILER);
    const { items, envelope } = decodeList(configMapBody);
    assert.deepEqual(items, expectedConfigMaps);
    assert.deepEqual(envelope, expectedEnvelope);
  });

  it("decodes the same, in order, fed one byte at a time, each item as soon as its bytes are in", () => {
    const items: Json[] = [];
    const d = new ProtobufListDecoder((item) => items.push(item), 1 << 20);
    const seenAt: number[] = [];
    for (let i = 0; i < configMapBody.length; i++) {
      d.push(configMapBody.subarray(i, i + 1));
      if (items.length > seenAt.length) seenAt.push(i);
    }
    assert.deepEqual(items, expectedConfigMaps);
    assert.deepEqual(d.end(), expectedEnvelope);
    // Each item was handed on before the body ended, the last one by the raw message's end.
    assert.equal(seenAt.length, 3);
    assert.ok(seenAt[0]! < seenAt[1]! && seenAt[1]! < seenAt[2]!);
    assert.equal(seenAt[2], rawEnd - 1);
  });

  it("decodes the same for every two-chunk split", () => {
    for (let cut = 0; cut <= configMapBody.length; cut++) {
      const { items, envelope } = decodeList(configMapBody, [cut]);
      assert.deepEqual(items, expectedConfigMaps, `cut at ${cut}`);
      assert.deepEqual(envelope, expectedEnvelope, `cut at ${cut}`);
    }
  });

  it("decodes the same wherever the network cuts the body (property)", () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.integer({ min: 0, max: configMapBody.length }), { maxLength: 40 }),
        (cuts) => {
          const { items, envelope } = decodeList(configMapBody, cuts);
          assert.deepEqual(items, expectedConfigMaps);
          assert.deepEqual(envelope, expectedEnvelope);
        },
      ),
    );
  });

  it("decodes a PodList's items as the whole-object decoder decodes each Pod, for any chunking (property)", () => {
    const pods = Array.from({ length: 4 }, (_, i) => ({
      metadata: { name: `p${i}`, namespace: "default", resourceVersion: `${10 + i}` },
      spec: {
        containers: [{ name: "app", image: `img:${i}`, ports: [{ containerPort: 8080 + i }] }],
        nodeName: i % 2 === 0 ? "node-a" : "",
      },
      status: { phase: "Running", podIP: `10.0.0.${i}` },
    }));
    const body = encodeObject({
      apiVersion: "v1",
      kind: "PodList",
      metadata: { resourceVersion: "13" },
      items: pods,
    });
    const expected = pods.map((p) =>
      decodeObject(encodeObject({ apiVersion: "v1", kind: "Pod", ...p })),
    );
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.integer({ min: 0, max: body.length }), { maxLength: 60 }),
        (cuts) => {
          const { items, envelope } = decodeList(body, cuts);
          assert.deepEqual(items, expected);
          assert.deepEqual(envelope, {
            apiVersion: "v1",
            kind: "PodList",
            metadata: { resourceVersion: "13" },
            items: true,
          });
        },
      ),
    );
  });

  it("decodes an empty list: no items, the list meta kept", () => {
    const body = encodeObject({
      apiVersion: "v1",
      kind: "ConfigMapList",
      metadata: { resourceVersion: "9" },
      items: [],
    });
    for (const cuts of [[], Array.from({ length: body.length }, (_, i) => i)]) {
      const { items, envelope } = decodeList(body, cuts);
      assert.deepEqual(items, []);
      assert.deepEqual(envelope, {
        apiVersion: "v1",
        kind: "ConfigMapList",
        metadata: { resourceVersion: "9" },
        items: true,
      });
    }
  });

  describe("errors", () => {
    it("refuses a body that does not start with k8s\\0 (JSON, say) as InvalidProtobuf", () => {
      const json = Buffer.from(JSON.stringify(configMapList));
      assert.throws(() => decodeList(json), isDecodeError("InvalidProtobuf", /k8s\\0/));
      const wrong = Buffer.from(configMapBody);
      wrong[2] = 0x74; // "k8t\0"
      assert.throws(() => decodeList(wrong), isDecodeError("InvalidProtobuf", /k8s\\0/));
    });

    it("refuses an item whose length runs past the end of its list as InvalidProtobuf", () => {
      const item = field(2, field(1, field(1, Buffer.from("a"))));
      // The raw message holds the item's tag and length, but says it ends two bytes early.
      const raw = Buffer.concat([field(1, field(2, Buffer.from("1"))), item]);
      const body = envelope("v1", "ConfigMapList", raw);
      const at = body.indexOf(raw);
      body[at - 1] = raw.length - 2;
      assert.throws(
        () => decodeList(body),
        isDecodeError("InvalidProtobuf", /runs past the end of the list/),
      );
    });

    it("reports a body that ends inside the envelope, an item or between items as Truncated from end()", () => {
      // Every cut before the raw message's end loses part of the list, whether it falls inside
      // a field or between two: the raw message's length says how much is still to come.
      for (let cut = 0; cut < rawEnd; cut++) {
        const items: Json[] = [];
        const d = new ProtobufListDecoder((item) => items.push(item), 1 << 20);
        d.push(configMapBody.subarray(0, cut));
        assert.throws(
          () => d.end(),
          isDecodeError("Truncated", /ended inside/),
          `cut at ${cut} (${items.length} items decoded)`,
        );
      }
      // Inside the trailing contentType field: its tag is in, its length is not.
      assert.throws(
        () => decodeList(configMapBody.subarray(0, configMapBody.length - 1)),
        isDecodeError("Truncated", /ended inside/),
      );
    });

    it("refuses an item over maxItemBytes as TooLarge as soon as its length is read, before its bytes arrive", () => {
      const big = {
        apiVersion: "v1",
        kind: "ConfigMapList",
        metadata: { resourceVersion: "1" },
        items: [
          { metadata: { name: "small", resourceVersion: "1" } },
          { metadata: { name: "big", resourceVersion: "1" }, data: { blob: "x".repeat(100_000) } },
        ],
      };
      const body = encodeObject(big);
      const items: Json[] = [];
      const d = new ProtobufListDecoder((item) => items.push(item), 1000);
      let fed = 0;
      const err = (() => {
        try {
          for (; fed < body.length; fed++) d.push(body.subarray(fed, fed + 1));
        } catch (e) {
          return e;
        }
        return undefined;
      })();
      isDecodeError("TooLarge", /list item of \d+ bytes is over the limit of 1000/)(err);
      // The small item came through; the big one was refused within a few bytes of its start,
      // so the decoder never held more than its length prefix.
      assert.deepEqual(
        items.map((i) => (i.metadata as Json).name),
        ["small"],
      );
      assert.ok(fed < body.length - 100_000, `refused after ${fed} of ${body.length} bytes`);
    });

    it("refuses a list kind without a protobuf message as InvalidProtobuf, naming the kind", () => {
      const body = envelope("example.com/v1", "WidgetList", field(1, new Uint8Array(0)));
      assert.throws(
        () => decodeList(body),
        isDecodeError("InvalidProtobuf", /WidgetList in example\.com\/v1/),
      );
    });

    it("refuses a body of a kind that is not a list as InvalidProtobuf, naming the kind", () => {
      const pod = { apiVersion: "v1", kind: "Pod", metadata: { name: "p" } };
      assert.throws(
        () => decodeList(encodeObject(pod)),
        isDecodeError("InvalidProtobuf", /Pod in v1 is not a list/),
      );
      // A Pod without metadata: its raw message is only a spec (field 2, where a list keeps its
      // items). It must not come out as a "list" of PodSpecs.
      const spec = encodeMessage(
        { containers: [{ name: "c", image: "i" }] },
        protoMessage("k8s.io.api.core.v1.PodSpec")!,
      );
      const items: Json[] = [];
      const d = new ProtobufListDecoder((item) => items.push(item), 1 << 20);
      assert.throws(
        () => {
          d.push(envelope("v1", "Pod", field(2, spec)));
          d.end();
        },
        isDecodeError("InvalidProtobuf", /Pod in v1 is not a list/),
      );
      assert.deepEqual(items, []);
      const secret = { apiVersion: "v1", kind: "Secret", metadata: { name: "s" } };
      assert.throws(
        () => decodeList(encodeObject(secret)),
        isDecodeError("InvalidProtobuf", /Secret in v1 is not a list/),
      );
    });

    it("refuses a corrupt item as InvalidProtobuf, after the good items before it", () => {
      const item = (name: string) =>
        encodeMessage(
          { metadata: { name, resourceVersion: "1" } },
          kindMessage("v1", "ConfigMap")!,
        );
      const corrupt = Buffer.from(item("bad"));
      corrupt[0] = 0x08; // field 1 (metadata) as a varint
      const listMeta = field(1, new Uint8Array(0));
      const raw = Buffer.concat([listMeta, field(2, item("good")), field(2, corrupt)]);
      const items: Json[] = [];
      const d = new ProtobufListDecoder((i) => items.push(i), 1 << 20);
      assert.throws(
        () => d.push(envelope("v1", "ConfigMapList", raw)),
        isDecodeError("InvalidProtobuf", /protobuf list could not be decoded: .*metadata/),
      );
      assert.deepEqual(
        items.map((i) => (i.metadata as Json).name),
        ["good"],
      );
    });
  });
});
