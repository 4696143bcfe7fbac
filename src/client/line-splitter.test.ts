import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import { DecodeError } from "./decode-error.ts";
import { LineSplitter } from "./line-splitter.ts";

function split(text: string, cuts: number[], max = 1 << 20) {
  const buf = Buffer.from(text);
  const s = new LineSplitter(max);
  const out: string[] = [];
  let at = 0;
  for (const c of [...cuts].sort((a, b) => a - b)) {
    s.push(buf.subarray(at, c), out);
    at = c;
  }
  s.push(buf.subarray(at), out);
  return { out, pending: s.pendingBytes, pendingText: s.pendingText() };
}

describe("LineSplitter", () => {
  it("yields complete lines, drops blank ones and a trailing CR, and holds the partial line", () => {
    const r = split('{"a":1}\r\n\n  \n{"b":"é"}\n{"c"', [3, 9, 15]);
    assert.deepEqual(r.out, ['{"a":1}', '{"b":"é"}']);
    assert.equal(r.pendingText, '{"c"');
    assert.equal(r.pending, 4);
  });

  it("keeps a multi-byte character split across chunks intact", () => {
    const text = "☃😀\n";
    const bytes = Buffer.from(text).length;
    for (let cut = 0; cut <= bytes; cut++) assert.deepEqual(split(text, [cut]).out, ["☃😀"]);
  });

  it("throws TooLarge when a line outgrows the limit, with its start as the sample", () => {
    const s = new LineSplitter(10);
    const out: string[] = [];
    s.push(Buffer.from("0123456"), out);
    assert.throws(
      () => s.push(Buffer.from("789abcdef"), out),
      (e: unknown) =>
        e instanceof DecodeError &&
        e.reason === "TooLarge" &&
        e.sample.startsWith("0123456") &&
        /raise the client's maxObjectBytes/.test(e.message),
    );
    assert.equal(s.pendingBytes, 0);
  });

  it("produces the same lines however the stream is cut", () => {
    fc.assert(
      fc.property(
        fc.array(
          fc
            .string({ unit: "grapheme", minLength: 1 })
            .filter((l) => !l.includes("\n") && l.trim() !== "" && !l.endsWith("\r")),
        ),
        fc.array(fc.nat()),
        (lines, rawCuts) => {
          const text = lines.map((l) => `${l}\n`).join("");
          const len = Buffer.byteLength(text);
          const r = split(
            text,
            rawCuts.map((c) => c % (len + 1)),
          );
          assert.deepEqual(r.out, lines);
          assert.equal(r.pending, 0);
        },
      ),
    );
  });
});
