import { BinaryWriter, WireType } from "@bufbuild/protobuf/wire";
import { MAGIC, ProtobufError, zeroOf } from "./protobuf-codec.ts";
import { kindMessage, type ProtoField, type ProtoMessage } from "./protobuf-schema.ts";
import { parseDuration, parseTime } from "./protobuf-values.ts";

/*
 * Kubernetes protobuf encoded: a JSON object to the bytes Go's generated marshallers write for
 * it — every non-pointer field, zero when the JSON lacks it; a pointer only when present; fields
 * in ascending number; map entries sorted by key — and the `k8s\0` envelope around a whole
 * object. (protobuf-codec.ts goes the other way.)
 */

type Json = Record<string, unknown>;

const encoder = new TextEncoder();

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
