import { BinaryReader, BinaryWriter, WireType } from "@bufbuild/protobuf/wire";
import { errorMessage } from "../core/index.ts";
import {
  kindMessage,
  type ProtoField,
  type ProtoMessage,
  protoMessage,
} from "./protobuf-schema.ts";
import {
  formatDuration,
  formatMicroTime,
  formatTime,
  parseDuration,
  parseTime,
} from "./protobuf-values.ts";

/*
 * Kubernetes protobuf, both ways, for the kinds of the generated table: a message's bytes to the
 * JSON object the rest of the toolkit holds, that object back to the bytes Go's generated
 * marshallers write, and the `k8s\0` envelope (a runtime.Unknown naming apiVersion and kind)
 * around a whole object.
 *
 * Decoding yields the smallest JSON that decodes to the same Go value: Go writes every field of
 * a struct, empty or not, so a zero scalar or an empty struct is left out unless Go holds it
 * behind a pointer (`replicas: 0` is kept; `paused: false` is not). Encoding writes what Go
 * writes: every non-pointer field, zero when the JSON lacks it; a pointer only when present;
 * fields in ascending number; map entries sorted by key.
 */

/** A body that is not the protobuf it claims to be; the message says what and where. */
export class ProtobufError extends Error {
  override readonly name = "ProtobufError";
}

type Json = Record<string, unknown>;

const MAGIC = new Uint8Array([0x6b, 0x38, 0x73, 0x00]);
const UNKNOWN = "k8s.io.apimachinery.pkg.runtime.Unknown";
const decoder = new TextDecoder();
const encoder = new TextEncoder();

/** True when `bytes` start with the envelope's magic number, `k8s\0`. */
export function hasProtobufMagic(bytes: Uint8Array): boolean {
  return bytes.length >= 4 && MAGIC.every((b, i) => bytes[i] === b);
}

/**
 * The fields of `message` in `bytes` as JSON. A field number the message lacks is skipped, as
 * Go's generated decoders skip it. Throws {@link ProtobufError}.
 */
export function decodeMessage(bytes: Uint8Array, message: ProtoMessage): Json {
  const r = new BinaryReader(bytes);
  try {
    return readBody(r, bytes.length, message) as Json;
  } catch (err) {
    if (err instanceof ProtobufError) throw err;
    throw new ProtobufError(`${message.name}: ${errorMessage(err)}`);
  }
}

/** `object`'s fields as `message`'s bytes, as Go's generated marshaller writes them. */
export function encodeMessage(object: Json, message: ProtoMessage): Uint8Array {
  const w = new BinaryWriter();
  writeFields(w, object, message);
  return w.finish();
}

/**
 * A whole object in the `k8s\0` envelope, its apiVersion and kind in the envelope's type meta.
 * Throws {@link ProtobufError} for a kind without a message (custom resources).
 */
export function encodeObject(object: Json): Uint8Array {
  const apiVersion = String(object.apiVersion ?? "");
  const kind = String(object.kind ?? "");
  const message = kindMessage(apiVersion, kind);
  if (message === undefined) {
    throw new ProtobufError(`${kind} in ${apiVersion || '""'} has no protobuf message`);
  }
  return writeEnvelope(apiVersion, kind, (w) => writeFields(w, object, message));
}

/**
 * An envelope around a raw message given as its parts (written one after another): what a
 * server that keeps each object's message bytes uses to send a list without encoding it again.
 */
export function encodeEnvelope(
  apiVersion: string,
  kind: string,
  raw: readonly Uint8Array[],
): Uint8Array {
  return writeEnvelope(apiVersion, kind, (w) => {
    for (const part of raw) w.raw(part);
  });
}

function writeEnvelope(
  apiVersion: string,
  kind: string,
  raw: (w: BinaryWriter) => void,
): Uint8Array {
  const w = new BinaryWriter().raw(MAGIC);
  w.tag(1, WireType.LengthDelimited).fork();
  w.tag(1, WireType.LengthDelimited).string(apiVersion);
  w.tag(2, WireType.LengthDelimited).string(kind);
  w.join();
  w.tag(2, WireType.LengthDelimited).fork();
  raw(w);
  w.join();
  w.tag(3, WireType.LengthDelimited).string("");
  w.tag(4, WireType.LengthDelimited).string("");
  return w.finish();
}

/** The envelope's parts: type meta and the raw message. */
export interface Envelope {
  readonly apiVersion: string;
  readonly kind: string;
  readonly raw: Uint8Array;
}

/** Reads the `k8s\0` envelope. Throws {@link ProtobufError}. */
export function readEnvelope(bytes: Uint8Array): Envelope {
  if (!hasProtobufMagic(bytes)) {
    throw new ProtobufError("the body does not start with the Kubernetes protobuf magic (k8s\\0)");
  }
  const unknown = protoMessage(UNKNOWN)!;
  const fields = decodeMessage(bytes.subarray(MAGIC.length), unknown);
  const raw = fields.raw === undefined ? "" : String(fields.raw);
  return {
    apiVersion: String(fields.apiVersion ?? ""),
    kind: String(fields.kind ?? ""),
    raw: Buffer.from(raw, "base64"),
  };
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
  return { apiVersion, kind, ...decodeMessage(raw, message) };
}

// ---- decoding ----

function wireName(wire: number): string {
  return wire === 0 ? "varint" : wire === 2 ? "length-delimited" : `wire type ${wire}`;
}

/** A length-delimited field's end; throws when its length runs past `limit`. */
function lengthEnd(r: BinaryReader, limit: number, what: string): number {
  const len = r.uint32();
  const end = r.pos + len;
  if (end > limit) {
    throw new ProtobufError(`${what}: its length (${len}) runs past the end of the bytes`);
  }
  return end;
}

/** One message's value (JSON) from `r` up to `end`. */
function readBody(r: BinaryReader, end: number, m: ProtoMessage): unknown {
  switch (m.special) {
    case undefined:
      break;
    case "list": {
      const items: string[] = [];
      readFieldsInto(r, end, m, () => items.push(r.string()), m.name);
      return items;
    }
    default:
      return readSpecial(r, end, m);
  }
  const out: Json = {};
  readFields(r, end, m, out);
  return out;
}

/** Reads the fields of `m` up to `end`, handing each known one to `each`. */
function readFieldsInto(
  r: BinaryReader,
  end: number,
  m: ProtoMessage,
  each: (f: ProtoField, wire: number) => void,
  where: string,
): void {
  while (r.pos < end) {
    const [no, wire] = r.tag();
    const f = m.byNumber[no];
    if (f === undefined) {
      r.skip(wire, no);
      continue;
    }
    const packed = f.repeated && f.wire === 0 && wire === WireType.LengthDelimited;
    if (wire !== f.wire && !packed) {
      throw new ProtobufError(
        `${where}: field ${no} (${f.json || "inline"}) is ${wireName(f.wire)}, but arrived as ${wireName(wire)}`,
      );
    }
    try {
      if (packed) {
        const stop = lengthEnd(r, end, `${where}.${f.json}`);
        while (r.pos < stop) each(f, 0);
      } else each(f, wire);
    } catch (err) {
      if (err instanceof ProtobufError) throw err;
      throw new ProtobufError(`${where}.${f.json || "inline"}: ${errorMessage(err)}`);
    }
  }
  if (r.pos !== end) {
    throw new ProtobufError(`${where}: a field runs past the end of the message`);
  }
}

function readFields(r: BinaryReader, end: number, m: ProtoMessage, out: Json) {
  readFieldsInto(
    r,
    end,
    m,
    (f) => {
      if (f.map) {
        out[f.json] ??= {};
        readMapEntry(r, end, f, m, out[f.json] as Json);
        return;
      }
      const value = readValue(r, end, f, m, out);
      if (f.json === "") return; // inline: read into `out` itself
      if (f.repeated) {
        out[f.json] ??= [];
        (out[f.json] as unknown[]).push(value ?? zeroOf(f));
      } else if (f.pointer) {
        if (value === undefined) delete out[f.json];
        else out[f.json] = value;
      } else if (isZero(f, value)) delete out[f.json];
      else out[f.json] = value;
    },
    m.name,
  );
}

function readValue(
  r: BinaryReader,
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
      return Number(r.int64());
    case "bytes":
      return Buffer.from(r.bytes()).toString("base64");
  }
  const end = lengthEnd(r, limit, `${parent.name}.${f.json || "inline"}`);
  if (f.json === "") {
    readFields(r, end, f.message!, into);
    return undefined;
  }
  return readBody(r, end, f.message!);
}

function readMapEntry(
  r: BinaryReader,
  limit: number,
  f: ProtoField,
  parent: ProtoMessage,
  entries: Json,
): void {
  const where = `${parent.name}.${f.json}`;
  const end = lengthEnd(r, limit, where);
  let key = "";
  let value: unknown;
  while (r.pos < end) {
    const [no, wire] = r.tag();
    if (no === 1 && wire === WireType.LengthDelimited) key = r.string();
    else if (no === 2 && wire === f.wire) value = readValue(r, end, f, parent, {});
    else r.skip(wire, no);
  }
  if (r.pos !== end) throw new ProtobufError(`${where}: a map entry runs past its end`);
  // Defined, not assigned: a key "__proto__" is an ordinary key, as JSON.parse makes it.
  Object.defineProperty(entries, key, {
    value: value ?? zeroOf(f),
    enumerable: true,
    writable: true,
    configurable: true,
  });
}

/** The hand-marshalled messages: their fields read, then turned into their JSON form. */
function readSpecial(r: BinaryReader, end: number, m: ProtoMessage): unknown {
  const fields: Record<number, unknown> = {};
  readFieldsInto(
    r,
    end,
    m,
    (f) => {
      fields[f.no] = f.scalar === "bytes" ? r.bytes() : readValue(r, end, f, m, {});
    },
    m.name,
  );
  const seconds = Number(fields[1] ?? 0);
  switch (m.special) {
    case "time":
      // Go reads no nanoseconds into a Time, and a zero-length one is the zero time (null).
      return r.pos === end && fields[1] === undefined && fields[2] === undefined
        ? undefined
        : formatTime(seconds);
    case "microTime":
      return fields[1] === undefined && fields[2] === undefined
        ? undefined
        : formatMicroTime(seconds, Number(fields[2] ?? 0));
    case "duration":
      return formatDuration(seconds);
    case "quantity":
      return fields[1] === undefined ? undefined : String(fields[1]);
    case "intOrString":
      return Number(fields[1] ?? 0) === 1 ? String(fields[3] ?? "") : Number(fields[2] ?? 0);
    default:
      return fields[1] === undefined ? undefined : rawJson(fields[1] as Uint8Array, m);
  }
}

/** An embedded object's raw bytes: JSON, or a protobuf envelope. */
function rawJson(raw: Uint8Array, m: ProtoMessage): unknown {
  if (raw.length === 0) return undefined;
  if (hasProtobufMagic(raw)) return decodeObject(raw);
  try {
    return JSON.parse(decoder.decode(raw));
  } catch {
    throw new ProtobufError(`${m.name}: its raw bytes are neither JSON nor a protobuf object`);
  }
}

function zeroOf(f: ProtoField): unknown {
  if (f.message !== undefined) return f.message.special === "quantity" ? "0" : {};
  return f.scalar === "bool" ? false : f.scalar === "int32" || f.scalar === "int64" ? 0 : "";
}

/**
 * Whether a non-pointer field's value is Go's zero value, which Go writes for an absent field
 * too. A value that only looks empty is not: the string "0" (only a Quantity's "0" is its zero),
 * a string IntOrString "" (Type String), an embedded object {} (raw bytes "{}"), bytes "" (set,
 * though empty, on the wire).
 */
function isZero(f: ProtoField, v: unknown): boolean {
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
  if (f.message !== undefined) return typeof v === "object" && v !== null && isEmptyObject(v);
  return f.scalar !== "bytes" && (v === "" || v === 0 || v === false);
}

function isEmptyObject(v: object): boolean {
  for (const _ in v) return false;
  return true;
}

// ---- encoding ----

function writeFields(w: BinaryWriter, object: Json, m: ProtoMessage): void {
  for (const f of m.fields) {
    const v = f.json === "" ? object : object[f.json];
    if (f.map) {
      if (v === null || typeof v !== "object") continue;
      const entries = v as Json;
      for (const key of Object.keys(entries).sort(byUtf8)) {
        w.tag(f.no, WireType.LengthDelimited).fork();
        w.tag(1, WireType.LengthDelimited).string(key);
        const value = entries[key];
        if (value !== null && value !== undefined) writeValue(w, 2, f, value);
        w.join();
      }
    } else if (f.repeated) {
      if (Array.isArray(v)) for (const item of v) writeValue(w, f.no, f, item);
    } else if (v !== undefined && v !== null) writeValue(w, f.no, f, v);
    else if (!f.pointer && f.scalar !== "bytes") writeZero(w, f);
  }
}

/** Go's order of strings, by their UTF-8 bytes (UTF-16 units put U+E000–U+FFFF after emoji). */
function byUtf8(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a), Buffer.from(b));
}

/** What Go writes for a non-pointer field the object lacks: its zero value. */
function writeZero(w: BinaryWriter, f: ProtoField): void {
  const special = f.message?.special;
  if (f.message === undefined || special === undefined) {
    writeValue(w, f.no, f, f.message === undefined ? zeroOf(f) : {});
  } else if (special === "quantity" || special === "intOrString" || special === "duration") {
    writeValue(w, f.no, f, special === "quantity" ? "0" : special === "duration" ? "0s" : 0);
  } else w.tag(f.no, WireType.LengthDelimited).bytes(new Uint8Array(0));
}

function writeValue(w: BinaryWriter, no: number, f: ProtoField, v: unknown): void {
  switch (f.scalar) {
    case "string":
      w.tag(no, WireType.LengthDelimited).string(String(v));
      return;
    case "bool":
      w.tag(no, WireType.Varint).bool(v === true);
      return;
    case "int32":
      w.tag(no, WireType.Varint).int32(Number(v));
      return;
    case "int64":
      w.tag(no, WireType.Varint).int64(Number(v));
      return;
    case "bytes":
      w.tag(no, WireType.LengthDelimited).bytes(Buffer.from(String(v), "base64"));
      return;
  }
  w.tag(no, WireType.LengthDelimited).fork();
  writeBody(w, f.message!, v);
  w.join();
}

function writeBody(w: BinaryWriter, m: ProtoMessage, v: unknown): void {
  switch (m.special) {
    case undefined:
      if (typeof v === "object" && v !== null) writeFields(w, v as Json, m);
      return;
    case "time": {
      w.tag(1, WireType.Varint).int64(parseTime(String(v)).seconds);
      w.tag(2, WireType.Varint).int32(0);
      return;
    }
    case "microTime": {
      const t = parseTime(String(v));
      w.tag(1, WireType.Varint).int64(t.seconds);
      w.tag(2, WireType.Varint).int32(Math.floor(t.nanos / 1000) * 1000);
      return;
    }
    case "duration":
      w.tag(1, WireType.Varint).int64(parseDuration(String(v)));
      return;
    case "quantity":
      w.tag(1, WireType.LengthDelimited).string(String(v));
      return;
    case "intOrString": {
      const isString = typeof v === "string";
      w.tag(1, WireType.Varint).int64(isString ? 1 : 0);
      w.tag(2, WireType.Varint).int32(isString ? 0 : Number(v));
      w.tag(3, WireType.LengthDelimited).string(isString ? v : "");
      return;
    }
    case "list":
      if (Array.isArray(v))
        for (const item of v) w.tag(1, WireType.LengthDelimited).string(String(item));
      return;
    default:
      // Raw bytes are written as they are (a watch event's object, in its own envelope).
      w.tag(1, WireType.LengthDelimited).bytes(
        v instanceof Uint8Array ? v : encoder.encode(JSON.stringify(v)),
      );
  }
}
