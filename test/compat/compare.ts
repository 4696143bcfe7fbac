/**
 * Comparison of two normalized replies: the JSON paths where they differ, with both values.
 * Lists whose items all have a distinct `name` (discovery's resources, containers, ports) or
 * `type` (conditions) are matched by it, so that one missing entry is one difference rather than
 * a shift of every later index.
 */

/** One JSON path where the two replies differ; `undefined` where a reply has no value there. */
export interface PathDifference {
  readonly path: string;
  readonly reference: unknown;
  readonly embedded: unknown;
}

/** The paths where `reference` and `embedded` differ, in document order. */
export function diffJson(reference: unknown, embedded: unknown, path = ""): PathDifference[] {
  if (Object.is(reference, embedded)) return [];
  if (Array.isArray(reference) && Array.isArray(embedded)) {
    const ka = matchKey(reference);
    const kb = matchKey(embedded);
    const key = ka === kb || reference.length === 0 ? kb : embedded.length === 0 ? ka : undefined;
    if (key !== undefined) return diffKeyed(reference, embedded, key, path);
    const out: PathDifference[] = [];
    for (let i = 0; i < Math.max(reference.length, embedded.length); i++) {
      out.push(...diffJson(reference[i], embedded[i], `${path}[${i}]`));
    }
    return out;
  }
  if (isObject(reference) && isObject(embedded)) {
    const keys = [...new Set([...Object.keys(reference), ...Object.keys(embedded)])];
    return keys.flatMap((k) =>
      diffJson(reference[k], embedded[k], path === "" ? k : `${path}.${k}`),
    );
  }
  return [{ path: path === "" ? "(body)" : path, reference, embedded }];
}

/** The keys of a JSON value, recursively, every value replaced by its type: a shape to compare. */
export function shapeOf(value: unknown): unknown {
  if (Array.isArray(value)) return value.length === 0 ? [] : [shapeOf(value[0])];
  if (isObject(value)) {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, shapeOf(v)]));
  }
  return typeof value;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** "name" or "type" where every item is an object with a distinct string value there. */
function matchKey(items: unknown[]): string | undefined {
  if (items.length === 0) return undefined;
  for (const key of ["name", "type"]) {
    const values = items.map((item) => (isObject(item) ? item[key] : undefined));
    if (values.every((v) => typeof v === "string") && new Set(values).size === values.length) {
      return key;
    }
  }
  return undefined;
}

function diffKeyed(
  reference: unknown[],
  embedded: unknown[],
  key: string,
  path: string,
): PathDifference[] {
  const byKey = (items: unknown[]) =>
    new Map(items.map((item) => [String((item as Record<string, unknown>)[key]), item]));
  const a = byKey(reference);
  const b = byKey(embedded);
  const keys = [...new Set([...a.keys(), ...b.keys()])];
  return keys.flatMap((k) => diffJson(a.get(k), b.get(k), `${path}[${key}=${k}]`));
}
