import { deepEqual } from "../core/index.ts";

/**
 * The JSON merge patch (RFC 7386) that turns `from` into `to`: changed and new fields with their
 * new values, removed fields as `null`, unchanged fields absent. Arrays are replaced whole, as
 * merge patches do. `undefined` when nothing changed.
 */
export function mergePatchDiff(from: unknown, to: unknown): unknown {
  if (!isPlainObject(from) || !isPlainObject(to)) return deepEqual(from, to) ? undefined : to;
  const patch: Record<string, unknown> = {};
  for (const key of Object.keys(from)) {
    if (!(key in to) || to[key] === undefined) {
      if (from[key] !== undefined) patch[key] = null;
    }
  }
  for (const [key, value] of Object.entries(to)) {
    if (value === undefined) continue;
    const d = key in from ? mergePatchDiff(from[key], value) : value;
    if (d !== undefined) patch[key] = d;
  }
  return Object.keys(patch).length === 0 ? undefined : patch;
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}
