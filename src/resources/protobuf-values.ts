/*
 * The JSON forms of the values Go marshals by hand in Kubernetes' protobuf messages: metav1.Time
 * (RFC 3339 in UTC, whole seconds), metav1.MicroTime (six fractional digits, always) and
 * metav1.Duration (Go's time.Duration text: "1h2m3.5s", "1.5ms", "0s").
 */

/** The character codes of a Time's text, refilled by each {@link formatTime}. */
const timeCodes: number[] = new Array<number>(20).fill(0);

/** Writes `value` as `width` decimal digits into {@link timeCodes} from `at`. */
function digits(value: number, width: number, at: number): void {
  for (let i = at + width - 1; i >= at; i--) {
    timeCodes[i] = 0x30 + (value % 10);
    value = Math.floor(value / 10);
  }
}

/**
 * `2026-11-27T16:58:04Z` from Unix seconds, as metav1.Time writes it. The text is built from its
 * character codes, one flat string: an informer holds every object's times, and slicing and
 * joining the ISO text held three strings for each.
 */
export function formatTime(seconds: number): string {
  const d = new Date(seconds * 1000);
  const year = d.getUTCFullYear();
  // Years outside 0–9999 have a sign and six digits.
  if (year < 0 || year > 9999) return d.toISOString().replace(/\.\d+Z$/, "Z");
  digits(year, 4, 0);
  digits(d.getUTCMonth() + 1, 2, 5);
  digits(d.getUTCDate(), 2, 8);
  digits(d.getUTCHours(), 2, 11);
  digits(d.getUTCMinutes(), 2, 14);
  digits(d.getUTCSeconds(), 2, 17);
  timeCodes[4] = timeCodes[7] = 0x2d; // -
  timeCodes[10] = 0x54; // T
  timeCodes[13] = timeCodes[16] = 0x3a; // :
  timeCodes[19] = 0x5a; // Z
  return String.fromCharCode.apply(null, timeCodes);
}

/** `2026-11-27T16:58:04.123456Z`, as metav1.MicroTime writes it (nanos cut to micros). */
export function formatMicroTime(seconds: number, nanos: number): string {
  const micros = String(Math.floor(nanos / 1000)).padStart(6, "0");
  return `${formatTime(seconds).slice(0, -1)}.${micros}Z`;
}

const RFC3339 = /^(\d{4}-\d{2}-\d{2}[Tt]\d{2}:\d{2}:\d{2})(?:\.(\d{1,9}))?([Zz]|[+-]\d{2}:\d{2})$/;

/** True when a date and time of day names a real one: Date.parse rolls 02-30 over, Go refuses. */
function inRange(dateTime: string): boolean {
  const ms = Date.parse(`${dateTime}Z`);
  return !Number.isNaN(ms) && new Date(ms).toISOString().startsWith(dateTime.toUpperCase());
}

/** Unix seconds and nanoseconds of an RFC 3339 time; throws on any other text. */
export function parseTime(text: string): { seconds: number; nanos: number } {
  const m = RFC3339.exec(text);
  const ms = m === null || !inRange(m[1]!) ? Number.NaN : Date.parse(`${m[1]}${m[3]}`);
  if (m === null || Number.isNaN(ms)) {
    throw new Error(`${JSON.stringify(text)} is not an RFC 3339 time`);
  }
  return { seconds: Math.floor(ms / 1000), nanos: Number((m[2] ?? "").padEnd(9, "0")) };
}

/** `v` in units of `10^digits`, its fraction's trailing zeros cut: frac(1500, 3) is "1.5". */
function frac(v: number, digits: number): string {
  const scale = 10 ** digits;
  const whole = Math.floor(v / scale);
  const rest = String(v % scale)
    .padStart(digits, "0")
    .replace(/0+$/, "");
  return rest === "" ? String(whole) : `${whole}.${rest}`;
}

/** Go's `time.Duration.String()` of a count of nanoseconds. */
export function formatDuration(nanos: number): string {
  if (nanos === 0) return "0s";
  let u = Math.abs(nanos);
  let text: string;
  if (u < 1e3) text = `${u}ns`;
  else if (u < 1e6) text = `${frac(u, 3)}µs`;
  else if (u < 1e9) text = `${frac(u, 6)}ms`;
  else {
    const hours = Math.floor(u / 3.6e12);
    u -= hours * 3.6e12;
    const minutes = Math.floor(u / 6e10);
    u -= minutes * 6e10;
    text = `${hours > 0 ? `${hours}h` : ""}${hours > 0 || minutes > 0 ? `${minutes}m` : ""}${frac(u, 9)}s`;
  }
  return nanos < 0 ? `-${text}` : text;
}

const UNIT_NANOS: Readonly<Record<string, number>> = {
  ns: 1,
  us: 1e3,
  µs: 1e3,
  μs: 1e3,
  ms: 1e6,
  s: 1e9,
  m: 6e10,
  h: 3.6e12,
};

/** The largest count of nanoseconds an int64 holds, plus one. */
const INT64_LIMIT = 2n ** 63n;

/**
 * A fraction's digits as Go reads them: as an integer and its power of ten, digits past what an
 * int64 holds ignored.
 */
function fraction(digits: string): { f: bigint; scale: number } {
  let f = 0n;
  let scale = 1;
  for (const d of digits) {
    const next = f * 10n + BigInt(d);
    if (next >= INT64_LIMIT) break;
    f = next;
    scale *= 10;
  }
  return { f, scale };
}

/**
 * Go's `time.ParseDuration`: "1h2m3.5s", "-1.5ms", "0"; throws on any other text and past the
 * int64 range. Each part counts exactly in whole units; its fraction is cut (not rounded) to the
 * nanosecond, as Go cuts it.
 */
export function parseDuration(text: string): number {
  const fail = () => new Error(`${JSON.stringify(text)} is not a duration`);
  const negative = text.startsWith("-");
  const body = text.replace(/^[-+]/, "");
  if (body === "0") return 0;
  if (body === "") throw fail();
  const part = /(\d*)(?:\.(\d*))?(ns|us|µs|μs|ms|s|m|h)/y;
  let total = 0n;
  let at = 0;
  while (at < body.length) {
    part.lastIndex = at;
    const m = part.exec(body);
    if (m === null || (m[1] === "" && !m[2])) throw fail();
    const unit = UNIT_NANOS[m[3]!]!;
    const { f, scale } = fraction(m[2] ?? "");
    total += BigInt(m[1] || "0") * BigInt(unit) + BigInt(Math.trunc(Number(f) * (unit / scale)));
    if (total > INT64_LIMIT) throw fail();
    at = part.lastIndex;
  }
  if (!negative && total === INT64_LIMIT) throw fail();
  return negative ? -Number(total) || 0 : Number(total);
}
