import type { WireReader } from "./protobuf-reader.ts";
import type { ProtoField, ProtoMessage } from "./protobuf-schema.ts";

/*
 * A decoder generated for each message on its first use: one `switch` over the field keys it
 * expects, each case straight-line code that reads the value and stores it under its JSON name
 * as a constant — so every store has an inline cache of its own, where a loop walking the table
 * stores through one megamorphic `out[name]`. Whatever a case does not expect (a field number
 * the message lacks, a packed list, a wire type that does not match) goes to the table-walking
 * path, `h.field`, which also raises the errors.
 */

type Json = Record<string, unknown>;

/** Reads a message's fields from `r` up to `end` into `out`. */
export type FieldsReader = (r: WireReader, end: number, out: Json) => void;

/** What the generated code calls (protobuf-codec.ts supplies it). */
export interface DecodeHelpers {
  /** One field by the table-walking path (unknown, packed, mismatched: skipped or refused). */
  field(r: WireReader, end: number, m: ProtoMessage, out: Json, key: number): void;
  lengthEnd(r: WireReader, limit: number, owner: string, field: string): number;
  /** A hand-marshalled message's value. */
  special(r: WireReader, end: number, m: ProtoMessage): unknown;
  mapEntry(r: WireReader, limit: number, f: ProtoField, m: ProtoMessage, entries: Json): void;
  isZero(f: ProtoField, v: unknown): boolean;
  zeroOf(f: ProtoField): unknown;
  /** The zero Go's JSON writes for a field it always writes (`null` for a time). */
  writtenZero(f: ProtoField): unknown;
  base64(bytes: Buffer): string;
  /** The reader of a message. */
  reader(m: ProtoMessage): FieldsReader;
  /** The error of field `no` of `m` (names it), or of `m` past its end. */
  fail(m: ProtoMessage, no: number, err: unknown): never;
  pastEnd(m: ProtoMessage): never;
}

/** The JavaScript of one field's case: read, then store as Go's presence rules say. */
function caseOf(f: ProtoField, i: number): string {
  const K = JSON.stringify(f.json);
  const F = `F[${i}]`;
  const W = JSON.stringify(f.json || "inline");
  // Stores a non-pointer value unless it is Go's zero (a field sent twice keeps the last).
  const keep = (value: string, zero: string) =>
    `{ const v = ${value}; if (${zero}) { if (out[${K}] !== undefined) delete out[${K}]; } else out[${K}] = v; }`;
  // A list's first item makes it: `[v]` holds exactly one, where `[]` grows to seventeen slots
  // on its first push (the message's end trims longer lists, see generateReader).
  const push = (value: string) =>
    `{ const v = ${value}; const a = out[${K}]; if (a === undefined) out[${K}] = [v]; else a.push(v); }`;
  if (f.map) {
    return `{ let e = out[${K}]; if (e === undefined) out[${K}] = e = {}; h.mapEntry(r, end, ${F}, m, e); }`;
  }
  if (f.scalar !== undefined) {
    const read =
      f.scalar === "string"
        ? "r.string()"
        : f.scalar === "bool"
          ? "r.bool()"
          : f.scalar === "int32"
            ? "r.int32()"
            : f.scalar === "int64"
              ? "r.int64()"
              : "h.base64(r.bytes())";
    if (f.repeated) return push(read);
    if (f.pointer || f.zeroWritten || f.scalar === "bytes") return `out[${K}] = ${read};`;
    const zero = f.scalar === "string" ? 'v === ""' : f.scalar === "bool" ? "!v" : "v === 0";
    return keep(read, zero);
  }
  const m = f.message!;
  const end = `h.lengthEnd(r, end, m.name, ${W})`;
  if (f.json === "")
    return `{ const e = ${end}; (R[${i}] || (R[${i}] = h.reader(${F}.message)))(r, e, out); }`;
  if (m.special !== undefined) {
    const read = `h.special(r, ${end}, ${F}.message)`;
    if (f.repeated) return push(`(${read}) ?? h.zeroOf(${F})`);
    if (f.pointer)
      return `{ const v = ${read}; if (v === undefined) delete out[${K}]; else out[${K}] = v; }`;
    if (f.zeroWritten) return `out[${K}] = (${read}) ?? h.writtenZero(${F});`;
    return keep(read, `h.isZero(${F}, v)`);
  }
  const read = `const e = ${end}; const v = {}; (R[${i}] || (R[${i}] = h.reader(${F}.message)))(r, e, v);`;
  if (f.repeated) {
    return `{ ${read} const a = out[${K}]; if (a === undefined) out[${K}] = [v]; else a.push(v); }`;
  }
  // A struct, held by a pointer or by value: Go's JSON writes it whenever it is sent, as {} when
  // empty (omitempty does not apply to structs).
  return `{ ${read} out[${K}] = v; }`;
}

/** What Go's JSON writes for list or map `f` of `m` when none came: `[]` for a list's items. */
export function emptyOf(m: ProtoMessage, f: ProtoField): "[]" | "null" {
  return f.json === "items" && m.name.endsWith("List") ? "[]" : "null";
}

/** The generated reader of `m`. */
export function generateReader(m: ProtoMessage, h: DecodeHelpers): FieldsReader {
  const cases = m.fields
    .map((f, i) => `case ${(f.no << 3) | f.wire}: c = ${f.no}; ${caseOf(f, i)} break;`)
    .join("\n        ");
  // A list that grew past one item has spare capacity (half again and sixteen): a copy holds
  // exactly its items, and an informer holds the object for its lifetime.
  const trims = m.fields
    .filter((f) => f.repeated && !f.map && f.json !== "")
    .map((f) => {
      const K = JSON.stringify(f.json);
      return `\n      { const a = out[${K}]; if (a !== undefined && a.length > 1) out[${K}] = a.slice(); }`;
    })
    .join("");
  // A list or map Go's JSON writes even when empty: null where none came (Go decodes nil), a
  // list's items [] (kube's lists always hold a slice).
  const absent = m.fields
    .filter((f) => f.zeroWritten && (f.repeated || f.map))
    .map((f) => {
      const K = JSON.stringify(f.json);
      return `\n      if (out[${K}] === undefined) out[${K}] = ${emptyOf(m, f)};`;
    })
    .join("");
  const source = `
    return function read(r, end, out) {
      let c = 0;
      try {
        while (r.pos < end) {
          const key = r.uint32();
          switch (key) {
            ${cases}
            default: c = 0; h.field(r, end, m, out, key);
          }
        }
      } catch (err) {
        h.fail(m, c, err);
      }
      if (r.pos !== end) h.pastEnd(m);${trims}${absent}
    };`;
  // The source is built from the generated table's names and numbers only (JSON-quoted).
  const make = new Function("m", "F", "R", "h", source) as (
    m: ProtoMessage,
    F: readonly ProtoField[],
    R: (FieldsReader | undefined)[],
    h: DecodeHelpers,
  ) => FieldsReader;
  return make(m, m.fields, [], h);
}
