import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import { isStatus } from "../core/index.ts";
import { DecodeError, type DecodeErrorReason } from "./decode-error.ts";
import { decodeWatchLine } from "./watch-decoder.ts";

const expect = { kind: "ConfigMap", apiVersion: "v1" };
const cm = { kind: "ConfigMap", apiVersion: "v1", metadata: { name: "a", resourceVersion: "5" } };

function fails(line: string, reason: DecodeErrorReason) {
  assert.throws(
    () => decodeWatchLine(line, expect),
    (e: unknown) => e instanceof DecodeError && e.reason === reason && e.sample.length > 0,
    line,
  );
}

describe("decodeWatchLine", () => {
  it("decodes ADDED, MODIFIED and DELETED events of the expected kind", () => {
    for (const type of ["ADDED", "MODIFIED", "DELETED"] as const) {
      assert.deepEqual(decodeWatchLine(JSON.stringify({ type, object: cm }), expect), {
        type,
        object: cm,
      });
    }
  });

  it("accepts objects that omit kind and apiVersion", () => {
    const object = { metadata: { name: "a", resourceVersion: "1" } };
    assert.deepEqual(
      decodeWatchLine(JSON.stringify({ type: "ADDED", object }), expect).object,
      object,
    );
  });

  it("accepts a bookmark with only a resourceVersion (and annotations)", () => {
    const object = {
      kind: "ConfigMap",
      apiVersion: "v1",
      metadata: { resourceVersion: "9", annotations: { "k8s.io/initial-events-end": "true" } },
    };
    assert.deepEqual(decodeWatchLine(JSON.stringify({ type: "BOOKMARK", object }), expect), {
      type: "BOOKMARK",
      object,
    });
  });

  it("passes ERROR events through, making a Status of anything else", () => {
    const status = {
      kind: "Status",
      apiVersion: "v1",
      metadata: {},
      status: "Failure",
      reason: "Expired",
      code: 410,
    };
    assert.deepEqual(decodeWatchLine(JSON.stringify({ type: "ERROR", object: status }), expect), {
      type: "ERROR",
      object: status,
    });
    const odd = decodeWatchLine('{"type":"ERROR","object":{"oops":1}}', expect);
    assert.equal(odd.type, "ERROR");
    assert.ok(isStatus(odd.object));
    assert.equal(odd.object.code, 500);
  });

  it("rejects every kind of bad line with its reason and a sample", () => {
    fails("not json", "InvalidJSON");
    fails(
      '{"type":"ADDED","object":{"metadata":{"name":"a","resourceVersion":"1"}}',
      "InvalidJSON",
    );
    fails('["ADDED"]', "InvalidEvent");
    fails('{"type":"ADDED"}', "InvalidEvent");
    fails('{"type":7,"object":{}}', "InvalidEvent");
    fails(`{"type":"RENAMED","object":${JSON.stringify(cm)}}`, "UnknownEventType");
    fails(`{"type":"ADDED","object":${JSON.stringify({ ...cm, kind: "Secret" })}}`, "WrongKind");
    fails(`{"type":"ADDED","object":${JSON.stringify({ ...cm, apiVersion: "v2" })}}`, "WrongKind");
    fails('{"type":"ADDED","object":"x"}', "InvalidObject");
    fails('{"type":"ADDED","object":{"metadata":{"name":"a"}}}', "InvalidObject");
    fails('{"type":"MODIFIED","object":{"metadata":{"resourceVersion":"1"}}}', "InvalidObject");
    fails('{"type":"BOOKMARK","object":{"metadata":{}}}', "InvalidObject");
  });

  it("cuts the sample of a huge bad line", () => {
    const line = `{"type":"ADDED","object":"${"x".repeat(100_000)}"}`;
    try {
      decodeWatchLine(line, expect);
      assert.fail("expected a DecodeError");
    } catch (e) {
      assert.ok(e instanceof DecodeError);
      assert.ok(e.sample.length < 400, `sample length ${e.sample.length}`);
      assert.ok(e.message.length < 600);
    }
  });

  it("decodes a line as the server writes it exactly as the full parse does, whatever it holds", () => {
    // The full path: JSON allows a leading space, which the shortcut for a line as servers
    // write it does not take.
    type Outcome =
      | { ok: ReturnType<typeof decodeWatchLine> }
      | { reason: DecodeErrorReason; sample: string };
    const outcome = (line: string): Outcome => {
      try {
        return { ok: decodeWatchLine(line, expect) };
      } catch (e) {
        assert.ok(e instanceof DecodeError, String(e));
        return { reason: e.reason, sample: e.sample };
      }
    };
    const object = fc.oneof(
      fc.record({
        kind: fc.constantFrom("ConfigMap", "Secret", undefined),
        apiVersion: fc.constantFrom("v1", "v2", undefined),
        metadata: fc.option(
          fc.record(
            { name: fc.constantFrom("a", "", 7), resourceVersion: fc.constantFrom("5", 5) },
            { requiredKeys: [] },
          ),
          { nil: undefined },
        ),
        data: fc.dictionary(fc.string(), fc.string()),
      }),
      fc.jsonValue(),
    );
    fc.assert(
      fc.property(
        fc.constantFrom("ADDED", "MODIFIED", "DELETED", "BOOKMARK", "ERROR", "RENAMED"),
        object,
        fc.constantFrom("", ',"extra":1', ',"object":{}', "}", " ", "]"),
        (type, obj, tail) => {
          const text = JSON.stringify(obj) ?? "null";
          const line = `{"type":"${type}","object":${text}${tail}}`;
          const fast = outcome(line);
          const full = outcome(` ${line}`);
          // (An ERROR event without a Status quotes its line, space and all.)
          const quoted = (r: typeof fast) =>
            "ok" in r && r.ok.type === "ERROR" ? { ...r.ok.object, message: "" } : undefined;
          if ("ok" in fast && "ok" in full) {
            assert.equal(fast.ok.type, full.ok.type);
            assert.deepEqual(quoted(fast) ?? fast.ok, quoted(full) ?? full.ok);
          } else assert.equal("reason" in fast && fast.reason, "reason" in full && full.reason);
        },
      ),
      { numRuns: 2000 },
    );
  });
});
