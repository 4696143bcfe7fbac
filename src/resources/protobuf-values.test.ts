/**
 * The JSON forms of metav1.Time, metav1.MicroTime and metav1.Duration against Go: a Duration's
 * text is Go's `time.Duration.String()` and reads as `time.ParseDuration` reads it; a Time is
 * RFC 3339 in UTC with whole seconds; a MicroTime always has six fractional digits.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import {
  formatDuration,
  formatMicroTime,
  formatTime,
  parseDuration,
  parseTime,
} from "./protobuf-values.ts";

const NS = 1;
const US = 1e3;
const MS = 1e6;
const S = 1e9;
const M = 60 * S;
const H = 60 * M;

describe("formatDuration, as Go's time.Duration.String()", () => {
  const cases: [number, string][] = [
    [0, "0s"],
    [1 * NS, "1ns"],
    [999 * NS, "999ns"],
    [1 * US, "1µs"],
    [1.5 * US, "1.5µs"],
    [1 * MS, "1ms"],
    [1.5 * MS, "1.5ms"],
    [1 * MS + 1, "1.000001ms"],
    [1 * S, "1s"],
    [1 * S + 1, "1.000000001s"],
    [59 * S, "59s"],
    [1 * M, "1m0s"],
    [90 * S, "1m30s"],
    [1 * H, "1h0m0s"],
    [1 * H + 5 * S, "1h0m5s"],
    [72 * H + 3 * M + 0.5 * S, "72h3m0.5s"],
    [-1 * NS, "-1ns"],
    [-1.5 * US, "-1.5µs"],
    [-1.5 * S, "-1.5s"],
    [-(2 * H + 45 * M), "-2h45m0s"],
  ];
  for (const [nanos, text] of cases) {
    it(`writes ${nanos}ns as ${text}`, () => {
      assert.equal(formatDuration(nanos), text);
    });
  }

  it("writes the micro sign U+00B5, as Go does, not the Greek mu", () => {
    assert.equal(formatDuration(2 * US).codePointAt(1), 0xb5);
  });
});

describe("parseDuration, as Go's time.ParseDuration", () => {
  const cases: [string, number][] = [
    ["0", 0],
    ["+0", 0],
    ["-0", 0],
    ["0s", 0],
    ["-0s", 0],
    ["1ns", 1],
    ["1.5µs", 1.5 * US],
    ["1.5μs", 1.5 * US], // Greek mu, which Go accepts too
    ["1.5us", 1.5 * US],
    ["300ms", 300 * MS],
    ["1s", S],
    ["1m0s", M],
    ["1h0m0s", H],
    ["1h30m", 90 * M],
    ["1.5h", 90 * M],
    ["72h3m0.5s", 72 * H + 3 * M + 0.5 * S],
    ["-1.5h", -90 * M],
    ["+5s", 5 * S],
    ["-2h45m", -(2 * H + 45 * M)],
    ["2h45m", 2 * H + 45 * M],
    ["1h1h", 2 * H], // units may repeat, and add
    ["30m1h", 90 * M], // and come in any order
    [".5s", 0.5 * S],
    ["5.s", 5 * S],
    ["1.004s", 1004 * MS],
    ["1.000000001s", S + 1],
    ["100.00100s", 100 * S + 1 * MS],
    ["0.3333333333333333333h", 20 * M],
    // Go cuts a fraction of a nanosecond off rather than rounding it.
    ["1.9ns", 1],
    ["0.830103483285477580700h", 49 * M + 48 * S + 372539827],
    ["2562047h", 2562047 * H],
  ];
  for (const [text, nanos] of cases) {
    it(`reads ${JSON.stringify(text)} as ${nanos}ns`, () => {
      assert.equal(parseDuration(text), nanos);
    });
  }

  const bad = [
    "",
    "3", // a number needs its unit, but for 0
    "-",
    "s",
    ".",
    "-.",
    ".s",
    "+.s",
    "1d",
    "1.5",
    "1h 30m",
    "1h-30m",
    "--1s",
    "+-1s",
    "1e3s",
    "1,5s",
    " 1s",
    "1s ",
    "1S",
    "2562048h", // past the largest int64 of nanoseconds
    "9223372036854775810ns",
  ];
  for (const text of bad) {
    it(`refuses ${JSON.stringify(text)}, naming it`, () => {
      assert.throws(
        () => parseDuration(text),
        (err: Error) => err.message.includes(JSON.stringify(text)) && /duration/.test(err.message),
      );
    });
  }

  it("reads back what formatDuration writes", () => {
    const samples = [1, 999, 1500, 123456789, 61 * S, 3 * H + 7 * M + 12345, -(25 * H + 1)];
    for (const nanos of samples) assert.equal(parseDuration(formatDuration(nanos)), nanos);
  });
});

describe("formatTime and formatMicroTime, as metav1.Time and MicroTime write JSON", () => {
  it("writes whole seconds in UTC with Z", () => {
    assert.equal(formatTime(0), "1970-01-01T00:00:00Z");
    assert.equal(formatTime(1_795_798_684), "2026-11-27T16:58:04Z");
    assert.equal(formatTime(-1), "1969-12-31T23:59:59Z");
  });

  it("writes any second of years 0 to 9999 as the ISO text without its milliseconds", () => {
    const first = Date.parse("0000-01-01T00:00:00Z") / 1000;
    const last = Date.UTC(9999, 11, 31, 23, 59, 59) / 1000;
    fc.assert(
      fc.property(fc.integer({ min: first, max: last }), (seconds) => {
        const iso = new Date(seconds * 1000).toISOString();
        assert.equal(formatTime(seconds), `${iso.slice(0, 19)}Z`);
      }),
    );
  });

  it("writes a year past 9999 with its sign and six digits, as the ISO text does", () => {
    assert.equal(formatTime(Date.UTC(10_000, 0, 1) / 1000), "+010000-01-01T00:00:00Z");
  });

  it("writes six fractional digits always, cutting nanoseconds to microseconds", () => {
    assert.equal(formatMicroTime(1_795_798_684, 0), "2026-11-27T16:58:04.000000Z");
    assert.equal(formatMicroTime(1_795_798_684, 123_456_789), "2026-11-27T16:58:04.123456Z");
    assert.equal(formatMicroTime(1_795_798_684, 1_000), "2026-11-27T16:58:04.000001Z");
    assert.equal(formatMicroTime(1_795_798_684, 999), "2026-11-27T16:58:04.000000Z");
    assert.equal(formatMicroTime(1_795_798_684, 500_000_000), "2026-11-27T16:58:04.500000Z");
  });
});

describe("parseTime, as Go's time.Parse with RFC 3339", () => {
  it("reads a UTC time", () => {
    assert.deepEqual(parseTime("2026-11-27T16:58:04Z"), { seconds: 1_795_798_684, nanos: 0 });
  });

  it("converts an offset to UTC seconds", () => {
    assert.deepEqual(parseTime("2026-11-27T18:58:04+02:00"), {
      seconds: 1_795_798_684,
      nanos: 0,
    });
    assert.deepEqual(parseTime("2026-11-27T11:28:04-05:30"), {
      seconds: 1_795_798_684,
      nanos: 0,
    });
    assert.deepEqual(parseTime("2026-11-28T00:58:04+08:00"), {
      seconds: 1_795_798_684,
      nanos: 0,
    });
  });

  it("reads a fraction of one to nine digits as nanoseconds", () => {
    assert.deepEqual(parseTime("2026-11-27T16:58:04.5Z"), {
      seconds: 1_795_798_684,
      nanos: 500_000_000,
    });
    assert.deepEqual(parseTime("2026-11-27T16:58:04.123456Z"), {
      seconds: 1_795_798_684,
      nanos: 123_456_000,
    });
    assert.deepEqual(parseTime("2026-11-27T18:58:04.123456789+02:00"), {
      seconds: 1_795_798_684,
      nanos: 123_456_789,
    });
  });

  it("keeps the seconds whole and the nanoseconds forward in time before 1970", () => {
    assert.deepEqual(parseTime("1969-12-31T23:59:59.25Z"), { seconds: -1, nanos: 250_000_000 });
  });

  it("reads back what formatTime and formatMicroTime write", () => {
    for (const seconds of [0, 1, 1_795_798_684, -86_400, 4_102_444_800]) {
      assert.deepEqual(parseTime(formatTime(seconds)), { seconds, nanos: 0 });
      assert.deepEqual(parseTime(formatMicroTime(seconds, 7_000)), { seconds, nanos: 7_000 });
    }
  });

  const bad = [
    "",
    "2026-11-27",
    "2026-11-27T16:58:04", // no zone
    "2026-11-27 16:58:04Z",
    "2026-11-27T16:58Z",
    "2026-11-27T16:58:04.Z",
    "2026-11-27T16:58:04.1234567890Z", // ten fractional digits
    "2026-11-27T16:58:04+0200",
    "2026-11-27T16:58:04 UTC",
    "26-11-27T16:58:04Z",
    "1795798684",
    "2026-13-01T00:00:00Z", // month out of range
    "2026-00-10T00:00:00Z",
    "2026-02-30T00:00:00Z", // day out of range, which Go refuses rather than rolling over
    "2026-04-31T00:00:00Z",
    "2026-01-01T24:00:00Z", // hour out of range
    "2026-01-01T23:60:00Z",
    "2026-01-01T23:59:60Z",
  ];
  for (const text of bad) {
    it(`refuses ${JSON.stringify(text)}, naming it`, () => {
      assert.throws(
        () => parseTime(text),
        (err: Error) => err.message.includes(JSON.stringify(text)) && /RFC 3339/.test(err.message),
      );
    });
  }
});
