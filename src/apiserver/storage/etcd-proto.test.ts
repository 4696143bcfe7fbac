import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  decodeRangeResponse,
  decodeTxnResponse,
  encodeCompactionRequest,
  encodeDeleteRangeRequest,
  encodeRangeRequest,
  encodeTxnRequest,
  Reader,
} from "./etcd-proto.ts";

const hex = (b: Buffer) => b.toString("hex");
const b = (s: string) => Buffer.from(s);

/** Protobuf bytes by hand: tags and varints as numbers, strings as UTF-8. */
function bytes(...parts: (number | number[] | string | Buffer)[]): Buffer {
  return Buffer.concat(
    parts.map((p) =>
      typeof p === "number"
        ? Buffer.from([p])
        : typeof p === "string"
          ? Buffer.from(p)
          : Buffer.isBuffer(p)
            ? p
            : Buffer.from(p),
    ),
  );
}
const len = (m: Buffer) => bytes(m.length, m);

describe("etcd protobuf codec", () => {
  it("encodes requests with etcd's field numbers, leaving out proto3 defaults", () => {
    assert.equal(
      hex(encodeRangeRequest({ key: b("a"), range_end: b("b"), limit: 5, revision: 300 })),
      "0a0161120162180520ac02",
    );
    assert.equal(
      hex(encodeRangeRequest({ key: b("a"), count_only: true, limit: 0 })),
      "0a01614801",
    );
    assert.equal(hex(encodeDeleteRangeRequest({ key: b("k"), prev_kv: true })), "0a016b1801");
    assert.equal(hex(encodeCompactionRequest({ revision: 2 ** 40 })), "08808080808020");
  });

  it("sends a compare's zero value (create_revision = 0: the key does not exist)", () => {
    const txn = encodeTxnRequest({
      compare: [{ key: b("k"), target: "Create", result: "Equal", create_revision: 0 }],
      success: [{ request_put: { key: b("k"), value: b("v") } }],
      failure: [],
    });
    // compare{result 0, target 1, key "k", create_revision 0}, success{put{key, value}}
    assert.equal(hex(txn), `0a09${"0800"}${"1001"}${"1a016b"}${"2800"}1208${"1206"}0a016b120176`);
    const cas = encodeTxnRequest({
      compare: [{ key: b("k"), target: "Mod", result: "Equal", mod_revision: 7 }],
      success: [{ request_delete_range: { key: b("k"), prev_kv: true } }],
      failure: [{ request_range: { key: b("k") } }],
    });
    assert.equal(
      hex(cas),
      "0a09080010021a016b3007" + "1207" + "1a05" + "0a016b1801" + "1a05" + "0a03" + "0a016b",
    );
  });

  it("decodes responses, skipping fields it does not read", () => {
    const header = bytes(
      0x08,
      [0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01],
      0x18,
      [0xac, 0x02],
      0x20,
      2,
    );
    const kv = bytes(0x0a, len(b("/k")), 0x10, 5, 0x18, 7, 0x20, 2, 0x2a, len(b("val")), 0x30, 9);
    const unknownFixed32 = bytes(0x9d, 0x06, [1, 2, 3, 4]); // field 99, wire type 5
    const range = bytes(
      0x0a,
      len(header),
      0x12,
      len(kv),
      0x18,
      1,
      0x20,
      [0x80, 0x80, 0x80, 0x80, 0x10],
      unknownFixed32,
    );
    const r = decodeRangeResponse(new Reader(range));
    assert.equal(r.header.revision, 300);
    assert.equal(r.more, true);
    assert.equal(r.count, 2 ** 32);
    assert.equal(r.kvs.length, 1);
    assert.deepEqual(
      { ...r.kvs[0]!, key: r.kvs[0]!.key.toString(), value: r.kvs[0]!.value.toString() },
      { key: "/k", value: "val", create_revision: 5, mod_revision: 7, version: 2 },
    );
    const put = bytes(0x0a, len(header), 0x12, len(kv));
    const txn = decodeTxnResponse(
      new Reader(bytes(0x0a, len(header), 0x10, 1, 0x1a, len(bytes(0x12, len(put))))),
    );
    assert.equal(txn.succeeded, true);
    assert.equal(txn.responses[0]!.response_put!.prev_kv!.mod_revision, 7);
    assert.equal(decodeTxnResponse(new Reader(Buffer.alloc(0))).succeeded, false, "all defaults");
  });

  it("refuses truncated messages", () => {
    assert.throws(() => decodeRangeResponse(new Reader(bytes(0x12, 10, 1, 2))), /truncated/);
    assert.throws(() => decodeRangeResponse(new Reader(bytes(0x18, 0x80))), /truncated/);
  });
});
