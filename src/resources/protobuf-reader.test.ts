/**
 * The decoder's wire reader against @bufbuild/protobuf's writer (which passes the protobuf
 * conformance suite): every value it writes reads back the same, every cut or overlong input is
 * refused with the library's wording, and the table that shares short strings never answers with another's text.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { BinaryWriter, WireType } from "@bufbuild/protobuf/wire";
import fc from "fast-check";
import { WireReader } from "./protobuf-reader.ts";

const INT64 = { min: -(2n ** 63n), max: 2n ** 63n - 1n };

describe("WireReader reads what the library writes", () => {
  it("reads an int64 as the number Number(BigInt) gives, negatives and past 2^53 included", () => {
    fc.assert(
      fc.property(fc.bigInt(INT64), (value) => {
        const r = new WireReader(new BinaryWriter().int64(value).finish());
        assert.equal(r.int64(), Number(value));
        assert.equal(r.pos, r.len);
      }),
    );
    for (const value of [0n, -1n, INT64.min, INT64.max, 2n ** 53n + 1n, -(2n ** 31n)]) {
      assert.equal(new WireReader(new BinaryWriter().int64(value).finish()).int64(), Number(value));
    }
  });

  it("reads uint32, int32 (negatives sent in ten bytes) and bool", () => {
    fc.assert(
      fc.property(
        fc.nat({ max: 2 ** 32 - 1 }),
        fc.integer({ min: -(2 ** 31), max: 2 ** 31 - 1 }),
        fc.boolean(),
        (u, i, b) => {
          const r = new WireReader(new BinaryWriter().uint32(u).int32(i).bool(b).finish());
          assert.deepEqual([r.uint32(), r.int32(), r.bool()], [u, i, b]);
          assert.equal(r.pos, r.len);
        },
      ),
    );
  });

  it("reads any string, ASCII or not, short or long", () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.oneof(fc.string(), fc.string({ unit: "grapheme" }), fc.string({ minLength: 41 })),
        ),
        (texts) => {
          const w = new BinaryWriter();
          for (const t of texts) w.string(t);
          const r = new WireReader(w.finish());
          assert.deepEqual(
            texts.map(() => r.string()),
            texts,
          );
        },
      ),
    );
  });

  it("gives the bytes of a length-delimited field as a view of the input", () => {
    const input = new BinaryWriter()
      .bytes(new Uint8Array([1, 2, 3]))
      .uint32(7)
      .finish();
    const r = new WireReader(input);
    const bytes = r.bytes();
    assert.deepEqual([...bytes], [1, 2, 3]);
    assert.equal(bytes.buffer, input.buffer);
    assert.equal(r.uint32(), 7);
  });

  it("skips a field of every wire type, groups included, and stops at the next", () => {
    const w = new BinaryWriter()
      .tag(1, WireType.Varint)
      .int64(-5n)
      .tag(2, WireType.Bit64)
      .fixed64(9n)
      .tag(3, WireType.LengthDelimited)
      .string("skipped")
      .tag(4, WireType.StartGroup)
      .tag(1, WireType.Varint)
      .uint32(300)
      .tag(4, WireType.EndGroup)
      .tag(5, WireType.Bit32)
      .fixed32(1)
      .tag(6, WireType.Varint)
      .uint32(42);
    const r = new WireReader(w.finish());
    for (let n = 0; n < 5; n++) {
      const key = r.uint32();
      r.skip(key & 7, key >>> 3);
    }
    assert.equal(r.uint32(), (6 << 3) | WireType.Varint);
    assert.equal(r.uint32(), 42);
  });
});

describe("WireReader refuses bad input", () => {
  const cut = (bytes: Uint8Array) => new WireReader(bytes.subarray(0, bytes.length - 1));

  it("refuses a read past the end: premature EOF", () => {
    assert.throws(() => cut(new BinaryWriter().uint32(300).finish()).uint32(), /premature EOF/);
    assert.throws(() => cut(new BinaryWriter().int64(-1n).finish()).int64(), /premature EOF/);
    assert.throws(() => cut(new BinaryWriter().string("abc").finish()).string(), /premature EOF/);
    assert.throws(
      () => cut(new BinaryWriter().bytes(new Uint8Array(4)).finish()).bytes(),
      /premature EOF/,
    );
    assert.throws(
      () => new WireReader(new Uint8Array([0])).skip(WireType.Bit64, 1),
      /premature EOF/,
    );
  });

  it("refuses a varint of more than ten bytes", () => {
    const overlong = new Uint8Array([...new Array(10).fill(0x80), 0x01]);
    assert.throws(() => new WireReader(overlong).uint32(), /invalid varint/);
    assert.throws(() => new WireReader(overlong).int64(), /invalid varint/);
  });

  it("refuses an end-group tag that closes another group, and an unknown wire type", () => {
    const w = new BinaryWriter().tag(4, WireType.StartGroup).tag(5, WireType.EndGroup).finish();
    const r = new WireReader(w);
    const key = r.uint32();
    assert.throws(() => r.skip(key & 7, key >>> 3), /invalid end group tag/);
    assert.throws(() => new WireReader(new Uint8Array([0])).skip(7, 1), /cant skip wire type 7/);
  });
});

describe("WireReader's table of short strings", () => {
  it("gives each read its own text when strings seen before come back from other bytes", () => {
    // The table answers a read with a string it holds only when the bytes match it whole:
    // strings alike at the ends and in length (which share a slot) stay apart.
    const alike = fc.stringMatching(/^web-[a-z0-9]{1,3}-x$/);
    fc.assert(
      fc.property(
        fc.array(fc.oneof(alike, fc.string({ maxLength: 40 })), { maxLength: 60 }),
        (texts) => {
          for (const order of [texts, [...texts].reverse()]) {
            const w = new BinaryWriter();
            for (const t of order) w.string(t);
            const r = new WireReader(w.finish());
            assert.deepEqual(
              order.map(() => r.string()),
              order,
            );
          }
        },
      ),
    );
  });
});
