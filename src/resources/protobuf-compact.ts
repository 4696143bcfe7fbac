import { isZero } from "./protobuf-codec.ts";
import type { ProtoField, ProtoMessage } from "./protobuf-schema.ts";

type Json = Record<string, unknown>;

/*
 * Decoding writes the zeros Go's JSON writes (see protobuf-decode-gen.ts): `restartCount: 0`,
 * `lastProbeTime: null`, `verbs: null`. A server that took a protobuf body needs the other form:
 * what a JSON client sends, zeros left out — its field ownership counts a field only where it
 * differs from the kind's empty object, which holds those zeros too.
 */

/** Whether `v` is the zero that decoding writes for `f`: a list's or map's null, or Go's zero. */
function isWrittenZero(f: ProtoField, v: unknown): boolean {
  return v === null || (!f.repeated && !f.map && isZero(f, v));
}

/** A plain message's value, its parts compacted (lists' items and maps' values too). */
function compactValue(f: ProtoField, v: unknown): void {
  const m = f.message;
  if (m === undefined || m.special !== undefined || typeof v !== "object" || v === null) return;
  const items = f.repeated ? (v as unknown[]) : f.map ? Object.values(v as Json) : [v];
  for (const item of items) {
    if (typeof item === "object" && item !== null) compactMessage(item as Json, m);
  }
}

/**
 * Removes, in place, from `object` (of message `m`) every zero decoding wrote because Go's JSON
 * writes it, at any depth. Returns `object`.
 */
export function compactMessage(object: Json, m: ProtoMessage): Json {
  for (const f of m.fields) {
    if (f.json === "") {
      compactMessage(object, f.message!);
      continue;
    }
    const v = object[f.json];
    if (v === undefined) continue;
    if (f.zeroWritten && isWrittenZero(f, v)) delete object[f.json];
    else compactValue(f, v);
  }
  return object;
}
