/**
 * One step of a field path, as structured-merge-diff names it: a field of an object (`f:name`),
 * the item of an associative list with these key values (`k:{"name":"c"}`), the item of a set
 * (`v:"x"`), or the item of an atomic list by position (`i:0`). The serialized form is the key a
 * FieldsV1 document uses; the order (`compareElements`) is the one kube writes FieldsV1 keys in.
 */
export type PathElement =
  | { readonly kind: "field"; readonly name: string; readonly key: string }
  | { readonly kind: "key"; readonly fields: readonly KeyField[]; readonly key: string }
  | { readonly kind: "value"; readonly value: unknown; readonly key: string }
  | { readonly kind: "index"; readonly index: number; readonly key: string };

/** One field of an associative list item's key; key fields are kept sorted by name. */
export type KeyField = readonly [name: string, value: unknown];

/** A field path: elements from the object's root. */
export type Path = readonly PathElement[];

const fieldCache = new Map<string, PathElement>();

/** The element that selects field `name` of an object (interned: field names repeat a lot). */
export function fieldElement(name: string): PathElement {
  let pe = fieldCache.get(name);
  if (pe === undefined) {
    pe = { kind: "field", name, key: `f:${name}` };
    if (fieldCache.size < 10_000) fieldCache.set(name, pe);
  }
  return pe;
}

/** The element that selects the associative list item whose key fields have these values. */
export function keyElement(fields: readonly KeyField[]): PathElement {
  const sorted = [...fields].sort((a, b) => compareStrings(a[0], b[0]));
  const body = sorted.map(([n, v]) => `${goJson(n)}:${goJson(v)}`).join(",");
  return { kind: "key", fields: sorted, key: `k:{${body}}` };
}

/** The element that selects the item `value` of a set (a list of scalars that merges). */
export function valueElement(value: unknown): PathElement {
  return { kind: "value", value, key: `v:${goJson(value)}` };
}

/** The element that selects item `index` of an atomic list. */
export function indexElement(index: number): PathElement {
  return { kind: "index", index, key: `i:${index}` };
}

/**
 * Parses a FieldsV1 key. Returns undefined for an element type this server does not know (kube
 * drops those, as a newer version's); throws an Error for a malformed known one.
 */
export function parseElement(text: string): PathElement | undefined {
  if (text.length < 2 || text[1] !== ":") throw new Error(`missing colon: ${text}`);
  const body = text.slice(2);
  switch (text[0]) {
    case "f":
      return fieldElement(body);
    case "v":
      return valueElement(JSON.parse(body));
    case "k": {
      const parsed: unknown = JSON.parse(body);
      if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed))
        throw new Error(`a key element must hold a JSON object: ${text}`);
      return keyElement(Object.entries(parsed));
    }
    case "i": {
      if (!/^-?\d+$/.test(body)) throw new Error(`an index element must hold an integer: ${text}`);
      return indexElement(Number(body));
    }
    default:
      return undefined;
  }
}

const KIND_ORDER = { field: 0, key: 1, value: 2, index: 3 } as const;

/** kube's order of path elements: fields (by name), then keys, then values, then indexes. */
export function compareElements(a: PathElement, b: PathElement): number {
  if (a.kind !== b.kind) return KIND_ORDER[a.kind] - KIND_ORDER[b.kind];
  switch (a.kind) {
    case "field":
      return compareStrings(a.name, (b as typeof a).name);
    case "key":
      return compareKeyFields(a.fields, (b as typeof a).fields);
    case "value":
      return compareValues(a.value, (b as typeof a).value);
    case "index":
      return a.index - (b as typeof a).index;
  }
}

function compareKeyFields(a: readonly KeyField[], b: readonly KeyField[]): number {
  for (let i = 0; ; i++) {
    if (i >= a.length || i >= b.length) return a.length - b.length;
    const byName = compareStrings(a[i]![0], b[i]![0]);
    if (byName !== 0) return byName;
    const byValue = compareValues(a[i]![1], b[i]![1]);
    if (byValue !== 0) return byValue;
  }
}

const rank = (v: unknown): number => {
  if (typeof v === "number") return 0;
  if (typeof v === "string") return 1;
  if (typeof v === "boolean") return 2;
  if (Array.isArray(v)) return 3;
  if (v !== null && typeof v === "object") return 4;
  return 5;
};

/** structured-merge-diff's total order of values: numbers, strings, booleans, lists, maps, null. */
export function compareValues(a: unknown, b: unknown): number {
  const ra = rank(a);
  const rb = rank(b);
  if (ra !== rb) return ra - rb;
  if (ra === 0) return (a as number) < (b as number) ? -1 : (a as number) > (b as number) ? 1 : 0;
  if (ra === 1) return compareStrings(a as string, b as string);
  if (ra === 2) return Number(a) - Number(b);
  return compareStrings(goJson(a), goJson(b));
}

/** Byte order of the UTF-8 encodings (Go's string order), cheap for ASCII. */
export function compareStrings(a: string, b: string): number {
  if (a === b) return 0;
  // Code-unit order equals UTF-8 byte order unless a surrogate meets U+E000..U+FFFF.
  return a < b ? -1 : 1;
}

/** How kube prints a path in a conflict: `.spec.containers[name="c"].image`. */
export function pathString(path: Path): string {
  return path.map(elementString).join("");
}

function elementString(pe: PathElement): string {
  switch (pe.kind) {
    case "field":
      return `.${pe.name}`;
    case "key":
      return `[${pe.fields.map(([n, v]) => `${n}=${valueString(v)}`).join(",")}]`;
    case "value":
      return `[=${valueString(pe.value)}]`;
    case "index":
      return `[${pe.index}]`;
  }
}

function valueString(v: unknown): string {
  if (typeof v === "string") return JSON.stringify(v);
  if (Array.isArray(v)) return `[${v.map(valueString).join(",")}]`;
  if (v !== null && typeof v === "object")
    return Object.entries(v)
      .map(([k, x]) => `${k}=${valueString(x)}`)
      .join("");
  return String(v);
}

const GO_ESCAPES: Readonly<Record<string, string>> = {
  "<": "\\u003c",
  ">": "\\u003e",
  "&": "\\u0026",
  "\u2028": "\\u2028",
  "\u2029": "\\u2029",
};

/**
 * JSON as Go's encoding/json writes it: object keys sorted, `<`, `>`, `&`, U+2028 and U+2029
 * escaped. Used wherever kube's bytes are compared or shown (FieldsV1 keys, last-applied).
 */
export function goJson(value: unknown): string {
  if (value === null || typeof value !== "object") {
    const text = JSON.stringify(value ?? null);
    return /[<>&\u2028\u2029]/.test(text)
      ? text.replace(/[<>&\u2028\u2029]/g, (c) => GO_ESCAPES[c]!)
      : text;
  }
  if (Array.isArray(value)) return `[${value.map(goJson).join(",")}]`;
  const keys = Object.keys(value)
    .filter((k) => (value as Record<string, unknown>)[k] !== undefined)
    .sort(compareStrings);
  return `{${keys.map((k) => `${goJson(k)}:${goJson((value as Record<string, unknown>)[k])}`).join(",")}}`;
}
