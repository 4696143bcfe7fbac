import { WireType } from "@bufbuild/protobuf/wire";
import { errorMessage } from "../core/index.ts";
import {
  type DecodeHelpers,
  emptyOf,
  type FieldsReader,
  generateReader,
} from "./protobuf-decode-gen.ts";
import { WireReader } from "./protobuf-reader.ts";
import { kindMessage, type ProtoField, type ProtoMessage } from "./protobuf-schema.ts";
import { formatDuration, formatMicroTime, formatTime } from "./protobuf-values.ts";

/*
 * Kubernetes protobuf decoded, for the kinds of the generated table: a message's bytes to the
 * JSON object the rest of the toolkit holds, and the `k8s\0` envelope (a runtime.Unknown naming
 * apiVersion and kind) around a whole object. (protobuf-encode.ts goes the other way.)
 *
 * Decoding yields the smallest JSON that decodes to the same Go value: Go writes every field of
 * a struct, empty or not, so a zero scalar or an empty struct is left out unless Go holds it
 * behind a pointer (`replicas: 0` is kept; `paused: false` is not).
 */

/** A body that is not the protobuf it claims to be; the message says what and where. */
export class ProtobufError extends Error {
  override readonly name = "ProtobufError";
}

type Json = Record<string, unknown>;

/** The envelope's magic number, `k8s\0`. */
export const MAGIC = new Uint8Array([0x6b, 0x38, 0x73, 0x00]);

/** True when `bytes` start with the envelope's magic number, `k8s\0`. */
export function hasProtobufMagic(bytes: Uint8Array): boolean {
  return (
    bytes.length >= 4 &&
    bytes[0] === 0x6b &&
    bytes[1] === 0x38 &&
    bytes[2] === 0x73 &&
    bytes[3] === 0x00
  );
}

/**
 * The fields of `message` in `bytes` as JSON. A field number the message lacks is skipped, as
 * Go's generated decoders skip it. Throws {@link ProtobufError}.
 */
export function decodeMessage(bytes: Uint8Array, message: ProtoMessage): Json {
  const r = reader(bytes);
  try {
    return readBody(r, bytes.length, message) as Json;
  } catch (err) {
    if (err instanceof ProtobufError) throw err;
    throw new ProtobufError(`${message.name}: ${errorMessage(err)}`);
  }
}

/** The envelope's parts: type meta and the raw message. */
export interface Envelope {
  readonly apiVersion: string;
  readonly kind: string;
  readonly raw: Uint8Array;
}

/** Reads the `k8s\0` envelope (its raw message a view, not a copy). Throws {@link ProtobufError}. */
export function readEnvelope(bytes: Uint8Array): Envelope {
  if (!hasProtobufMagic(bytes)) {
    throw new ProtobufError("the body does not start with the Kubernetes protobuf magic (k8s\\0)");
  }
  const r = reader(bytes);
  r.pos = MAGIC.length;
  let apiVersion = "";
  let kind = "";
  let raw: Uint8Array = new Uint8Array(0);
  try {
    while (r.pos < bytes.length) {
      const key = r.uint32();
      const no = key >>> 3;
      const wire = key & 7;
      if (no === 1 && wire === WireType.LengthDelimited) {
        const end = lengthEnd(r, bytes.length, "the envelope's type meta", "");
        while (r.pos < end) {
          const k = r.uint32();
          if (k === 0x0a) apiVersion = r.string();
          else if (k === 0x12) kind = r.string();
          else r.skip(k & 7, k >>> 3);
        }
        if (r.pos !== end) throw new ProtobufError("the envelope's type meta runs past its end");
      } else if (no === 2 && wire === WireType.LengthDelimited) raw = r.bytes();
      else r.skip(wire, no);
    }
  } catch (err) {
    if (err instanceof ProtobufError) throw err;
    throw new ProtobufError(`the envelope: ${errorMessage(err)}`);
  }
  return { apiVersion, kind, raw };
}

/**
 * A whole object from its envelope: apiVersion and kind from the type meta, the rest from the
 * raw message of that kind. Throws {@link ProtobufError}, also for a kind without a message.
 */
export function decodeObject(bytes: Uint8Array): Json {
  const { apiVersion, kind, raw } = readEnvelope(bytes);
  if (kind === "") throw new ProtobufError("the protobuf envelope names no kind");
  const message = kindMessage(apiVersion, kind);
  if (message === undefined) {
    throw new ProtobufError(`${kind} in ${apiVersion || '""'} has no protobuf message`);
  }
  const r = reader(raw);
  try {
    // TypeMeta's apiVersion is omitempty: /api's APIVersions names none.
    const out: Json = apiVersion === "" ? { kind } : { apiVersion, kind };
    readFields(r, raw.length, message, out);
    return out;
  } catch (err) {
    if (err instanceof ProtobufError) throw err;
    throw new ProtobufError(`${message.name}: ${errorMessage(err)}`);
  }
}

// ---- decoding ----

function reader(bytes: Uint8Array): WireReader {
  return new WireReader(bytes);
}
//
// One loop per message, no closure per field: a list of 10 000 Pods is some millions of fields.

function wireName(wire: number): string {
  return wire === 0 ? "varint" : wire === 2 ? "length-delimited" : `wire type ${wire}`;
}

/**
 * A length-delimited field's end; throws when its length runs past `limit`, naming
 * `owner.field` (two strings, joined only then: this runs for every nested message).
 */
function lengthEnd(r: WireReader, limit: number, owner: string, field: string): number {
  const len = r.uint32();
  const end = r.pos + len;
  if (end > limit) {
    const what = field === "" ? owner : `${owner}.${field}`;
    throw new ProtobufError(`${what}: its length (${len}) runs past the end of the bytes`);
  }
  return end;
}

/** One message's value (JSON) from `r` up to `end`. */
function readBody(r: WireReader, end: number, m: ProtoMessage): unknown {
  if (m.special === undefined) {
    const out: Json = {};
    readFields(r, end, m, out);
    return out;
  }
  return readSpecial(r, end, m);
}

/** The field of `m` a key names, its wire type checked; undefined for one `m` lacks (skipped). */
function fieldOf(r: WireReader, m: ProtoMessage, key: number): ProtoField | undefined {
  const no = key >>> 3;
  const wire = key & 7;
  const f = m.byNumber[no];
  if (f === undefined) {
    r.skip(wire, no);
    return undefined;
  }
  if (wire !== f.wire && !(f.repeated && f.wire === 0 && wire === WireType.LengthDelimited)) {
    throw new ProtobufError(
      `${m.name}: field ${no} (${f.json || "inline"}) is ${wireName(f.wire)}, but arrived as ${wireName(wire)}`,
    );
  }
  return f;
}

/** Reads the fields of `m` up to `end` into `out`, by the reader generated for `m`. */
function readFields(r: WireReader, end: number, m: ProtoMessage, out: Json): void {
  readerOf(m)(r, end, out);
}

const readers = new Map<ProtoMessage, FieldsReader>();

function readerOf(m: ProtoMessage): FieldsReader {
  let read = readers.get(m);
  if (read === undefined) {
    try {
      read = generateReader(m, HELPERS);
    } catch {
      // A process that forbids code from strings (--disallow-code-generation-from-strings)
      // walks the table instead: slower, the same JSON.
      read = (r, end, out) => walkFields(r, end, m, out);
    }
    readers.set(m, read);
  }
  return read;
}

/** The fields of `m` up to `end`, each by {@link readField}. */
function walkFields(r: WireReader, end: number, m: ProtoMessage, out: Json): void {
  let no = 0;
  try {
    while (r.pos < end) {
      const key = r.uint32();
      no = key >>> 3;
      readField(r, end, m, out, key);
    }
  } catch (err) {
    HELPERS.fail(m, no, err);
  }
  if (r.pos !== end) HELPERS.pastEnd(m);
  for (const f of m.fields) {
    if (f.zeroWritten && (f.repeated || f.map) && out[f.json] === undefined) {
      out[f.json] = emptyOf(m, f) === "[]" ? [] : null;
    }
  }
}

/**
 * One field by walking the table: what a generated reader hands on — a field number the
 * message lacks (skipped, as Go skips it), a packed list, a wire type that does not match (an
 * error naming the field).
 */
function readField(r: WireReader, end: number, m: ProtoMessage, out: Json, key: number): void {
  const f = fieldOf(r, m, key);
  if (f === undefined) return;
  if (f.map) {
    const entries = (out[f.json] ?? {}) as Json;
    out[f.json] = entries;
    readMapEntry(r, end, f, m, entries);
  } else if (f.repeated) {
    const items = (out[f.json] ?? []) as unknown[];
    out[f.json] = items;
    if ((key & 7) !== f.wire) {
      const stop = lengthEnd(r, end, m.name, f.json);
      while (r.pos < stop) items.push(readValue(r, end, f, m, out));
    } else items.push(readValue(r, end, f, m, out) ?? zeroOf(f));
  } else {
    const value = readValue(r, end, f, m, out);
    if (f.json === "") return; // inline: read into `out` itself
    if (f.zeroWritten) out[f.json] = value ?? writtenZero(f);
    else if (f.pointer ? value === undefined : isZero(f, value)) delete out[f.json];
    else out[f.json] = value;
  }
}

const HELPERS: DecodeHelpers = {
  field: readField,
  lengthEnd,
  special: readSpecial,
  mapEntry: readMapEntry,
  isZero,
  zeroOf,
  writtenZero,
  base64: (bytes) => bytes.toString("base64"),
  reader: readerOf,
  fail(m, no, err) {
    const f = m.byNumber[no];
    if (err instanceof ProtobufError || f === undefined) throw err;
    throw new ProtobufError(`${m.name}.${f.json || "inline"}: ${errorMessage(err)}`);
  },
  pastEnd(m) {
    throw new ProtobufError(`${m.name}: a field runs past the end of the message`);
  },
};

/** The `into` of a field that is not inline (a map value, a hand-marshalled message's field): never written. */
const NOT_INLINE: Json = Object.freeze({});

function readValue(
  r: WireReader,
  limit: number,
  f: ProtoField,
  parent: ProtoMessage,
  into: Json,
): unknown {
  switch (f.scalar) {
    case "string":
      return r.string();
    case "bool":
      return r.bool();
    case "int32":
      return r.int32();
    case "int64":
      return r.int64();
    case "bytes":
      return r.bytes().toString("base64");
  }
  const end = lengthEnd(r, limit, parent.name, f.json || "inline");
  if (f.json === "") {
    readFields(r, end, f.message!, into);
    return undefined;
  }
  return readBody(r, end, f.message!);
}

function readMapEntry(
  r: WireReader,
  limit: number,
  f: ProtoField,
  parent: ProtoMessage,
  entries: Json,
): void {
  const end = lengthEnd(r, limit, parent.name, f.json);
  let key = "";
  let value: unknown;
  while (r.pos < end) {
    const tag = r.uint32();
    if (tag === 0x0a) key = r.string();
    else if (tag === (0x10 | f.wire)) value = readValue(r, end, f, parent, NOT_INLINE);
    else r.skip(tag & 7, tag >>> 3);
  }
  if (r.pos !== end)
    throw new ProtobufError(`${parent.name}.${f.json}: a map entry runs past its end`);
  if (key === "__proto__") {
    // Defined, not assigned: a key "__proto__" is an ordinary key, as JSON.parse makes it.
    Object.defineProperty(entries, key, {
      value: value ?? zeroOf(f),
      enumerable: true,
      writable: true,
      configurable: true,
    });
  } else entries[key] = value ?? zeroOf(f);
}

/** The hand-marshalled messages: their (at most three) fields read, then their JSON form. */
function readSpecial(r: WireReader, end: number, m: ProtoMessage): unknown {
  let f1: unknown;
  let f2: unknown;
  let f3: unknown;
  let items: string[] | undefined;
  let f: ProtoField | undefined;
  try {
    while (r.pos < end) {
      f = fieldOf(r, m, r.uint32());
      if (f === undefined) continue;
      if (m.special === "list") {
        items ??= [];
        items.push(r.string());
      } else {
        const v = f.scalar === "bytes" ? r.bytes() : readValue(r, end, f, m, NOT_INLINE);
        if (f.no === 1) f1 = v;
        else if (f.no === 2) f2 = v;
        else f3 = v;
      }
    }
  } catch (err) {
    if (err instanceof ProtobufError || f === undefined) throw err;
    throw new ProtobufError(`${m.name}.${f.json}: ${errorMessage(err)}`);
  }
  if (r.pos !== end) throw new ProtobufError(`${m.name}: a field runs past the end of the message`);
  switch (m.special) {
    case "list":
      return items ?? [];
    case "time":
      // Go reads no nanoseconds into a Time, and a zero-length one is the zero time (null).
      return f1 === undefined && f2 === undefined ? undefined : timeText(Number(f1 ?? 0));
    case "microTime":
      return f1 === undefined && f2 === undefined
        ? undefined
        : formatMicroTime(Number(f1 ?? 0), Number(f2 ?? 0));
    case "duration":
      return formatDuration(Number(f1 ?? 0));
    case "quantity":
      return f1 === undefined ? undefined : String(f1);
    case "intOrString":
      return Number(f1 ?? 0) === 1 ? String(f3 ?? "") : Number(f2 ?? 0);
    default:
      return f1 === undefined ? undefined : rawJson(f1 as Buffer, m);
  }
}

/** The last time formatted, and its seconds: an object's times are mostly the same second. */
let lastSeconds = Number.NaN;
let lastTime = "";

function timeText(seconds: number): string {
  if (seconds !== lastSeconds) {
    lastTime = formatTime(seconds);
    lastSeconds = seconds;
  }
  return lastTime;
}

/** An embedded object's raw bytes: JSON, or a protobuf envelope. */
function rawJson(raw: Buffer, m: ProtoMessage): unknown {
  if (raw.length === 0) return undefined;
  if (hasProtobufMagic(raw)) return decodeObject(raw);
  try {
    // Buffer's UTF-8 decoding: TextDecoder costs more per call, and a managed-fields set is one
    // small call per entry.
    return JSON.parse(raw.toString("utf8"));
  } catch {
    throw new ProtobufError(`${m.name}: its raw bytes are neither JSON nor a protobuf object`);
  }
}

/** A field's Go zero value in JSON (a map value or list item the wire left empty). */
export function zeroOf(f: ProtoField): unknown {
  if (f.message !== undefined) return f.message.special === "quantity" ? "0" : {};
  return f.scalar === "bool" ? false : f.scalar === "int32" || f.scalar === "int64" ? 0 : "";
}

/** The zero Go's JSON writes for a field it always writes: a zero time is `null`. */
function writtenZero(f: ProtoField): unknown {
  const special = f.message?.special;
  return special === "time" || special === "microTime" ? null : zeroOf(f);
}

/**
 * Whether a non-pointer field's value is Go's zero value, which Go writes for an absent field
 * too. A value that only looks empty is not: the string "0" (only a Quantity's "0" is its zero),
 * a string IntOrString "" (Type String), an embedded object {} (raw bytes "{}"), bytes "" (set,
 * though empty, on the wire).
 */
export function isZero(f: ProtoField, v: unknown): boolean {
  if (v === undefined) return true;
  switch (f.message?.special) {
    case undefined:
      break;
    case "quantity":
      return v === "0";
    case "intOrString":
      return v === 0;
    case "duration":
      return v === "0s";
    default:
      return false;
  }
  // A struct held by value is never left out: Go's JSON writes it, as {} when empty (omitempty
  // does not apply to structs), and Go's protobuf always sends it.
  if (f.message !== undefined) return false;
  return f.scalar !== "bytes" && (v === "" || v === 0 || v === false);
}
