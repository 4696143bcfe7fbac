/**
 * Structural equality of JSON values, as a Kubernetes object compares after a round trip: an
 * object property whose value is `undefined` counts as absent, arrays compare by position.
 */
export function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a)) {
    const bb = b as unknown[];
    return a.length === bb.length && a.every((x, i) => deepEqual(x, bb[i]));
  }
  const ra = a as Record<string, unknown>;
  const rb = b as Record<string, unknown>;
  const ka = Object.keys(ra).filter((k) => ra[k] !== undefined);
  const kb = Object.keys(rb).filter((k) => rb[k] !== undefined);
  return ka.length === kb.length && ka.every((k) => deepEqual(ra[k], rb[k]));
}

/**
 * A deep copy of a JSON value (objects, arrays, strings, numbers, booleans, null) — what
 * `structuredClone` gives for one, at about a tenth of its cost. An object property whose value
 * is `undefined` is left out, as a JSON round trip would; a `__proto__` key stays an own
 * property. Like `structuredClone` (and `JSON.stringify`), it throws a RangeError for a value
 * nested deeper than the stack allows (some thousands of levels).
 */
export function cloneJson<T>(value: T): T {
  if (typeof value !== "object" || value === null) return value;
  if (Array.isArray(value)) {
    const out = new Array(value.length);
    for (let i = 0; i < value.length; i++) out[i] = cloneJson(value[i]);
    return out as T;
  }
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value)) {
    const v = (value as Record<string, unknown>)[key];
    if (v === undefined) continue;
    if (key === "__proto__") {
      Object.defineProperty(out, key, {
        value: cloneJson(v),
        enumerable: true,
        writable: true,
        configurable: true,
      });
    } else out[key] = cloneJson(v);
  }
  return out as T;
}
