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

/** Structural equality of JSON values. */
export function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a)) {
    const bb = b as unknown[];
    return a.length === bb.length && a.every((x, i) => deepEqual(x, bb[i]));
  }
  const ka = Object.keys(a).filter((k) => (a as Record<string, unknown>)[k] !== undefined);
  const kb = Object.keys(b).filter((k) => (b as Record<string, unknown>)[k] !== undefined);
  return (
    ka.length === kb.length &&
    ka.every((k) => deepEqual((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]))
  );
}
