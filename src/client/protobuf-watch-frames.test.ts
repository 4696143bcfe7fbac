/**
 * A protobuf watch stream as the client reads it: frames split and joined across network reads,
 * each decoded to its event and checked, an ERROR frame ending the stream with its Status.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import { ApiError, type KubeObject, type WatchEvent } from "../core/index.ts";
import { encodeMessage, encodeObject, protoMessage } from "../resources/index.ts";
import { DecodeError, type DecodeErrorReason } from "./decode-error.ts";
import { decodeProtobufBody, decodeWatchFrame, FrameSplitter } from "./protobuf-stream.ts";
import type { TransportResponse } from "./transport.ts";
import { protobufEvents } from "./watch-stream.ts";

const UNKNOWN = protoMessage("k8s.io.apimachinery.pkg.runtime.Unknown")!;
const WATCH_EVENT = protoMessage("k8s.io.apimachinery.pkg.apis.meta.v1.WatchEvent")!;
const MAGIC = Buffer.from("k8s\0", "latin1");

type Json = Record<string, unknown>;

/** A `k8s\0` envelope built by hand, for bodies the codec will not write. */
function envelope(apiVersion: string, kind: string, raw: Uint8Array): Buffer {
  const unknown = { apiVersion, kind, raw: Buffer.from(raw).toString("base64") };
  return Buffer.concat([MAGIC, encodeMessage(unknown, UNKNOWN)]);
}

function isDecodeError(reason: DecodeErrorReason, message: RegExp) {
  return (err: unknown) => {
    assert.ok(err instanceof DecodeError, `expected a DecodeError, got ${String(err)}`);
    assert.equal(err.reason, reason);
    assert.match(err.message, message);
    return true;
  };
}

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
/** A Status as kube writes it (its ListMeta is held by value: always there, {} when empty). */
const gone = {
  apiVersion: "v1",
  kind: "Status",
  metadata: {},
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
