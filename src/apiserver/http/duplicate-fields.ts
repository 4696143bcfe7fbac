/**
 * Duplicate keys in a JSON body. `JSON.parse` keeps the last of two equal keys without a word;
 * kube's strict decoder reports each as `duplicate field "path"` (a warning by default, a 400
 * under `fieldValidation=Strict`), so a misspelt manifest that says `replicas` twice is not
 * silently half applied.
 */

import {
  CLOSE_ARRAY,
  CLOSE_OBJECT,
  COLON,
  COMMA,
  OPEN_ARRAY,
  OPEN_OBJECT,
  QUOTE,
  stringEnd,
} from "./json-scan.ts";

/** One open object or array: its path, and the keys seen so far (objects) or the index (arrays). */
interface Frame {
  readonly path: string;
  readonly keys: Set<string> | undefined;
  index: number;
}

/**
 * The paths of the keys that occur more than once in one object of `text` (`metadata.name`,
 * `spec.containers[0].image`), once per repeat, in the order the repeats appear. `text` must be
 * valid JSON — the caller has parsed it already; the scan does not validate it.
 */
export function duplicateFields(text: string): string[] {
  const found: string[] = [];
  const stack: Frame[] = [];
  // The path the next value gets: set by a key (in an object) or by an index (in an array).
  let valuePath = "";
  let expectKey = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      const end = stringEnd(text, i);
      const top = stack[stack.length - 1];
      if (expectKey && top?.keys !== undefined) {
        const key = keyOf(text, i + 1, end);
        const path = top.path === "" ? key : `${top.path}.${key}`;
        if (top.keys.has(key)) found.push(path);
        else top.keys.add(key);
        valuePath = path;
        expectKey = false;
      }
      i = end;
    } else if (c === OPEN_OBJECT || c === OPEN_ARRAY) {
      const path = valuePath;
      stack.push({ path, keys: c === OPEN_OBJECT ? new Set() : undefined, index: 0 });
      expectKey = c === OPEN_OBJECT;
      if (c === OPEN_ARRAY) valuePath = `${path}[0]`;
    } else if (c === CLOSE_OBJECT || c === CLOSE_ARRAY) {
      stack.pop();
      expectKey = false;
    } else if (c === COMMA) {
      const top = stack[stack.length - 1];
      if (top === undefined) continue;
      if (top.keys !== undefined) expectKey = true;
      else valuePath = `${top.path}[${++top.index}]`;
    } else if (c === COLON) {
      expectKey = false;
    }
  }
  return found;
}

/** A key's text, with its escapes decoded (as written where they are not JSON's). */
function keyOf(text: string, from: number, to: number): string {
  const raw = text.slice(from, to);
  if (!raw.includes("\\")) return raw;
  try {
    return JSON.parse(`"${raw}"`) as string;
  } catch {
    return raw;
  }
}
