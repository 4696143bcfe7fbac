import type { KubeObject } from "../../../core/index.ts";

/** A JSON object whose shape the code checks as it reads. */
export type Json = Record<string, unknown>;

/** The object as a plain JSON record (built-in kinds are read loosely and validated). */
export function rec(object: KubeObject | unknown): Json {
  return (object ?? {}) as Json;
}

/** `object[key]` as a record, created if absent or not an object. */
export function child(object: Json, key: string): Json {
  const v = object[key];
  if (typeof v === "object" && v !== null && !Array.isArray(v)) return v as Json;
  const created: Json = {};
  object[key] = created;
  return created;
}

/** `object[key]` if it is a record. */
export function recordAt(object: Json, key: string): Json | undefined {
  const v = object[key];
  return typeof v === "object" && v !== null && !Array.isArray(v) ? (v as Json) : undefined;
}

/** `object[key]` if it is an array. */
export function arrayAt(object: Json, key: string): unknown[] | undefined {
  const v = object[key];
  return Array.isArray(v) ? v : undefined;
}

/** Reads a dotted path (`spec.nodeName`) as a string, or undefined. */
export function stringAt(object: unknown, path: string): string | undefined {
  let cur: unknown = object;
  for (const part of path.split(".")) {
    if (typeof cur !== "object" || cur === null) return undefined;
    cur = (cur as Json)[part];
  }
  return cur === undefined || cur === null ? undefined : String(cur);
}

/** Sets `object[key]` to `value` when it is undefined. */
export function setDefault(object: Json, key: string, value: unknown): void {
  if (object[key] === undefined) object[key] = value;
}
