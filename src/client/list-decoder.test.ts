import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import { DecodeError } from "./decode-error.ts";
import { ListDecoder } from "./list-decoder.ts";

/** Decodes `text` fed in chunks cut at `cuts` (byte offsets). */
function decode(text: string | Buffer, cuts: number[] = []) {
  const buf = typeof text === "string" ? Buffer.from(text) : text;
  const items: unknown[] = [];
  const d = new ListDecoder((t) => items.push(JSON.parse(t)), 1 << 20);
  let at = 0;
  for (const c of [...cuts].sort((a, b) => a - b)) {
    d.push(buf.subarray(at, c));
    at = c;
  }
  d.push(buf.subarray(at));
  return { items, envelope: d.end() };
}

const tricky = {
  kind: "ConfigMapList",
  apiVersion: "v1",
  metadata: { resourceVersion: "42", continue: 'tok"en\\' },
  items: [
    { metadata: { name: "a" }, data: { k: 'quote " and \\ backslash', "}": "]", items: "[" } },
    { metadata: { name: "b", labels: { "x/y": "z" } }, data: { arr: "[[{}]]", uni: "é ☃ 😀" } },
    { metadata: { name: "c" }, list: [1, [2, { items: [3] }], null, true] },
  ],
};

describe("ListDecoder", () => {
  it("emits each item and the envelope without items, for every two-chunk split", () => {
    const text = Buffer.from(JSON.stringify(tricky));
    for (let cut = 0; cut <= text.length; cut++) {
      const { items, envelope } = decode(text, [cut]);
      assert.deepEqual(items, tricky.items, `cut at ${cut}`);
      assert.deepEqual(envelope, { ...tricky, items: [] }, `cut at ${cut}`);
    }
  });

  it("decodes one byte at a time, including backslash runs across chunks", () => {
    const obj = { metadata: { resourceVersion: "1" }, items: [{ s: '\\\\\\"\\\\' }, { s: '\\"' }] };
    const text = Buffer.from(JSON.stringify(obj));
    const cuts = Array.from({ length: text.length }, (_, i) => i);
    assert.deepEqual(decode(text, cuts).items, obj.items);
  });

  it("finds items wherever the key is, and ignores nested keys named items", () => {
    const text = '{"metadata":{"items":[1]},"items":[{"a":1}],"kind":"L","x":{"items":[{"b":2}]}}';
    const { items, envelope } = decode(text);
    assert.deepEqual(items, [{ a: 1 }]);
    assert.deepEqual(envelope, {
      metadata: { items: [1] },
      items: [],
      kind: "L",
      x: { items: [{ b: 2 }] },
    });
  });

  it("accepts an empty or null items and whitespace around everything", () => {
    assert.deepEqual(decode(' { "items" : [ ] , "metadata" : {} } ').items, []);
    assert.deepEqual(decode('{"items":null,"metadata":{"resourceVersion":"3"}}').envelope, {
      items: null,
      metadata: { resourceVersion: "3" },
    });
  });

  it("reports a body that ends inside an item, a string or the envelope as Truncated", () => {
    const text = JSON.stringify(tricky);
    for (const cut of [1, text.indexOf('"a"') + 2, text.length - 3, text.length - 1]) {
      assert.throws(
        () => decode(text.slice(0, cut)),
        (e: unknown) => e instanceof DecodeError && e.reason === "Truncated",
        `cut at ${cut}`,
      );
    }
  });

  it("rejects items that are not objects, invalid envelopes and oversized items", () => {
    assert.throws(() => decode('{"items":[1,2]}'), /not an object/);
    assert.throws(
      () => decode('{"items":[], nope}'),
      (e: unknown) => e instanceof DecodeError && e.reason === "InvalidJSON",
    );
    assert.throws(
      () => decode('[{"items":[]}]'),
      (e: unknown) => e instanceof DecodeError,
    );
    const d = new ListDecoder(() => {}, 8);
    assert.throws(
      () => d.push(Buffer.from('{"items":[{"aaaaaaaaaaaaa')),
      (e: unknown) =>
        e instanceof DecodeError &&
        e.reason === "TooLarge" &&
        /raise the client's maxObjectBytes/.test(e.message),
    );
  });

  it("agrees with JSON.parse on random lists cut at random places", () => {
    const item = fc.record({
      metadata: fc.record({ name: fc.string(), labels: fc.dictionary(fc.string(), fc.string()) }),
      data: fc.jsonValue(),
    });
    fc.assert(
      fc.property(
        fc.array(item, { maxLength: 8 }),
        fc.string(),
        fc.array(fc.nat(), { maxLength: 12 }),
        (items, rv, rawCuts) => {
          const list = { kind: "XList", metadata: { resourceVersion: rv }, items };
          const text = Buffer.from(JSON.stringify(list));
          const cuts = rawCuts.map((c) => c % (text.length + 1));
          const out = decode(text, cuts);
          assert.deepEqual(out.items, JSON.parse(JSON.stringify(items)));
          assert.deepEqual(out.envelope, { ...list, items: [] });
        },
      ),
      { numRuns: 300 },
    );
  });
});
