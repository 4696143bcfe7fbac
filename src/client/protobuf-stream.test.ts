import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import { ApiError, type KubeObject, type WatchEvent } from "../core/index.ts";
import {
  decodeObject,
  encodeMessage,
  encodeObject,
  kindMessage,
  protoMessage,
} from "../resources/index.ts";
import { DecodeError, type DecodeErrorReason } from "./decode-error.ts";
import {
  decodeProtobufBody,
  decodeWatchFrame,
  FrameSplitter,
  ProtobufListDecoder,
} from "./protobuf-stream.ts";
import type { TransportResponse } from "./transport.ts";
import { protobufEvents } from "./watch-stream.ts";

const UNKNOWN = protoMessage("k8s.io.apimachinery.pkg.runtime.Unknown")!;
const WATCH_EVENT = protoMessage("k8s.io.apimachinery.pkg.apis.meta.v1.WatchEvent")!;
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

/** A watch frame: a 4-byte big-endian length, then the bytes. */
function frame(bytes: Uint8Array): Buffer {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(bytes.length);
  return Buffer.concat([length, bytes]);
}

/** A protobuf watch frame of `type` carrying `object` in its own envelope. */
function eventFrame(type: string, object: Json): Buffer {
  return frame(encodeMessage({ type, object: encodeObject(object) }, WATCH_EVENT));
}

describe("FrameSplitter", () => {
  const payloads = [Buffer.from("first"), Buffer.alloc(0), Buffer.alloc(300, 7), Buffer.from("z")];
  const stream = Buffer.concat(payloads.map(frame));

  function split(cuts: number[], max = 1 << 20) {
    const s = new FrameSplitter(max);
    const out: Buffer[] = [];
    let at = 0;
    for (const c of [...cuts].sort((a, b) => a - b)) {
      s.push(stream.subarray(at, c), out);
      at = c;
    }
    s.push(stream.subarray(at), out);
    return { frames: out.map((f) => Buffer.from(f)), pending: s.pendingBytes };
  }

  it("hands out several frames of one chunk whole and in order", () => {
    assert.deepEqual(split([]), { frames: payloads, pending: 0 });
  });

  it("joins frames split across chunks, one byte at a time or anywhere (property)", () => {
    assert.deepEqual(split(Array.from({ length: stream.length }, (_, i) => i)), {
      frames: payloads,
      pending: 0,
    });
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.integer({ min: 0, max: stream.length }), { maxLength: 30 }),
        (cuts) => assert.deepEqual(split(cuts), { frames: payloads, pending: 0 }),
      ),
    );
  });

  it("reports a partial frame in pendingBytes, and none once it is whole", () => {
    const s = new FrameSplitter(1 << 20);
    const out: Buffer[] = [];
    const f = frame(Buffer.from("hello"));
    s.push(f.subarray(0, 2), out);
    assert.equal(s.pendingBytes, 2);
    s.push(f.subarray(2, 7), out);
    assert.equal(s.pendingBytes, 7);
    assert.deepEqual(out, []);
    s.push(Buffer.concat([f.subarray(7), f.subarray(0, 3)]), out);
    assert.deepEqual(out.map(String), ["hello"]);
    assert.equal(s.pendingBytes, 3);
  });

  it("refuses a frame over the limit as TooLarge as soon as its length is in", () => {
    const s = new FrameSplitter(100);
    const out: Buffer[] = [];
    s.push(frame(Buffer.alloc(100)), out); // exactly the limit is fine
    assert.equal(out.length, 1);
    assert.throws(
      () => s.push(frame(Buffer.alloc(101)).subarray(0, 4), out),
      isDecodeError("TooLarge", /watch frame of 101 bytes is over the limit of 100/),
    );
  });
});

const cm = (name: string, rv: string) => ({
  apiVersion: "v1",
  kind: "ConfigMap",
  metadata: { name, namespace: "ns", resourceVersion: rv },
  data: { k: name },
});
const gone = {
  apiVersion: "v1",
  kind: "Status",
  status: "Failure",
  message: "too old resource version: 1 (5)",
  reason: "Expired",
  code: 410,
};

describe("decodeWatchFrame", () => {
  it("decodes ADDED, BOOKMARK and ERROR frames to their type and object", () => {
    const bookmark = {
      apiVersion: "v1",
      kind: "ConfigMap",
      metadata: { resourceVersion: "12", annotations: { "k8s.io/initial-events-end": "true" } },
    };
    for (const [type, object] of [
      ["ADDED", cm("a", "3")],
      ["BOOKMARK", bookmark],
      ["ERROR", gone],
    ] as const) {
      assert.deepEqual(decodeWatchFrame(eventFrame(type, object).subarray(4)), { type, object });
    }
  });

  it("refuses a frame without an object, or without a type, as InvalidProtobuf", () => {
    assert.throws(
      () => decodeWatchFrame(Buffer.from(encodeMessage({ type: "ADDED" }, WATCH_EVENT))),
      isDecodeError(
        "InvalidProtobuf",
        /watch frame could not be decoded: .*without a type or an object/,
      ),
    );
    assert.throws(
      () =>
        decodeWatchFrame(
          Buffer.from(encodeMessage({ object: encodeObject(cm("a", "1")) }, WATCH_EVENT)),
        ),
      isDecodeError("InvalidProtobuf", /without a type or an object/),
    );
  });

  it("refuses garbage, and an object in an envelope of an unknown kind, as InvalidProtobuf", () => {
    assert.throws(
      () => decodeWatchFrame(Buffer.from([0xff, 0xff, 0xff])),
      isDecodeError("InvalidProtobuf", /watch frame could not be decoded/),
    );
    const widget = envelope("example.com/v1", "Widget", new Uint8Array(0));
    assert.throws(
      () =>
        decodeWatchFrame(
          Buffer.from(encodeMessage({ type: "ADDED", object: widget }, WATCH_EVENT)),
        ),
      isDecodeError("InvalidProtobuf", /Widget in example\.com\/v1 has no protobuf message/),
    );
  });
});

describe("decodeProtobufBody", () => {
  it("decodes a whole object, and names the request when the bytes are not protobuf", () => {
    assert.deepEqual(decodeProtobufBody(Buffer.from(encodeObject(gone)), "GET /x"), gone);
    assert.throws(
      () => decodeProtobufBody(Buffer.from("{}"), "GET /api/v1/pods"),
      isDecodeError("InvalidProtobuf", /the answer to GET \/api\/v1\/pods is not valid protobuf/),
    );
  });
});

/** A fake response whose body yields `chunks`, counting discard() calls. */
function response(chunks: Uint8Array[]) {
  const state = { discarded: 0 };
  const res: TransportResponse = {
    status: 200,
    header: () => undefined,
    body: (async function* () {
      yield* chunks;
    })(),
    discard: () => {
      state.discarded++;
    },
  };
  return { res, state };
}

/** The batches a protobuf watch over `chunks` yields, and the error it ends with. */
async function watch(chunks: Uint8Array[], maxBytes = 1 << 20) {
  const { res, state } = response(chunks);
  const batches: (readonly WatchEvent<KubeObject>[])[] = [];
  let error: unknown;
  try {
    const stream = {
      res,
      path: "/api/v1/namespaces/ns/configmaps",
      expect: { kind: "ConfigMap", apiVersion: "v1" },
      maxBytes,
    };
    for await (const batch of protobufEvents<KubeObject>(stream)) batches.push(batch);
  } catch (err) {
    error = err;
  }
  return { batches, error, discarded: state.discarded };
}

describe("protobufEvents", () => {
  it("yields one batch per network read, with frames split across reads joined", async () => {
    const [a, b, c, d] = [cm("a", "1"), cm("b", "2"), cm("c", "3"), cm("d", "4")];
    const third = eventFrame("DELETED", c);
    const chunks = [
      Buffer.concat([eventFrame("ADDED", a), eventFrame("MODIFIED", b), third.subarray(0, 9)]),
      third.subarray(9),
      Buffer.alloc(0),
      eventFrame("ADDED", d),
    ];
    const { batches, error, discarded } = await watch(chunks);
    assert.equal(error, undefined);
    assert.deepEqual(batches, [
      [
        { type: "ADDED", object: a },
        { type: "MODIFIED", object: b },
      ],
      [{ type: "DELETED", object: c }],
      [{ type: "ADDED", object: d }],
    ]);
    assert.equal(discarded, 1);
  });

  it("ends with an ApiError carrying the Status of an ERROR frame, after the events before it", async () => {
    const chunks = [
      Buffer.concat([
        eventFrame("ADDED", cm("a", "1")),
        eventFrame("ERROR", gone),
        eventFrame("ADDED", cm("never", "2")),
      ]),
    ];
    const { batches, error, discarded } = await watch(chunks);
    assert.deepEqual(batches, [[{ type: "ADDED", object: cm("a", "1") }]]);
    assert.ok(error instanceof ApiError, `expected an ApiError, got ${String(error)}`);
    assert.deepEqual(error.status, gone);
    assert.equal(error.code, 410);
    assert.equal(discarded, 1);
  });

  it("throws Truncated, naming the watch, when the stream ends inside a frame", async () => {
    const second = eventFrame("ADDED", cm("b", "2"));
    const { batches, error } = await watch([
      eventFrame("ADDED", cm("a", "1")),
      second.subarray(0, 10),
    ]);
    assert.deepEqual(batches, [[{ type: "ADDED", object: cm("a", "1") }]]);
    isDecodeError(
      "Truncated",
      /GET \/api\/v1\/namespaces\/ns\/configmaps: .*ended inside a frame/,
    )(error);
  });

  it("refuses an object of another kind as WrongKind", async () => {
    const secret = {
      apiVersion: "v1",
      kind: "Secret",
      metadata: { name: "s", resourceVersion: "2" },
    };
    const { batches, error } = await watch([
      Buffer.concat([eventFrame("ADDED", cm("a", "1")), eventFrame("ADDED", secret)]),
    ]);
    assert.deepEqual(batches, [[{ type: "ADDED", object: cm("a", "1") }]]);
    isDecodeError("WrongKind", /expected v1 ConfigMap, got v1 Secret/)(error);
  });

  it("refuses a frame over maxBytes as TooLarge, and a garbled frame as InvalidProtobuf", async () => {
    const big = await watch([eventFrame("ADDED", cm("a", "1"))], 10);
    assert.deepEqual(big.batches, []);
    isDecodeError("TooLarge", /over the limit of 10/)(big.error);
    assert.equal(big.discarded, 1);
    const garbled = await watch([frame(Buffer.from([0xff, 0xff, 0xff]))]);
    isDecodeError("InvalidProtobuf", /watch frame could not be decoded/)(garbled.error);
  });
});
