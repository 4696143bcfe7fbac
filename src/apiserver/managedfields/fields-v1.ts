import { errorMessage } from "../../core/index.ts";
import { FieldSet } from "./field-set.ts";
import { compareElements, type PathElement, parseElement } from "./path-element.ts";

/**
 * The FieldsV1 encoding of a {@link FieldSet}, as kube writes `metadata.managedFields[].fieldsV1`:
 * a JSON object whose keys are serialized path elements (`f:spec`, `k:{"name":"c"}`, `v:"x"`,
 * `i:0`) in kube's element order; a member is `{}`, a path that is both a member and a prefix
 * of members holds `".": {}` first, then its children.
 */
export type FieldsV1 = { [key: string]: FieldsV1 };

/** Encodes a set. */
export function toFieldsV1(set: FieldSet): FieldsV1 {
  return emit(set, false);
}

function emit(set: FieldSet, includeSelf: boolean): FieldsV1 {
  const out: FieldsV1 = {};
  const members = set.members();
  const children = set.children();
  if (includeSelf && (members.length > 0 || children.length > 0)) out["."] = {};
  let m = 0;
  let c = 0;
  while (m < members.length || c < children.length) {
    const mpe = members[m];
    const child = children[c];
    const order = mpe === undefined ? 1 : child === undefined ? -1 : compareElements(mpe, child.pe);
    if (order < 0) {
      out[mpe!.key] = {};
      m++;
    } else if (order > 0) {
      out[child!.pe.key] = emit(child!.set, false);
      c++;
    } else {
      out[child!.pe.key] = emit(child!.set, true);
      m++;
      c++;
    }
  }
  return out;
}

/**
 * Decodes FieldsV1 (a JSON object). Keys of element types this server does not know are
 * dropped, as kube drops them; anything else malformed throws an Error saying what and where.
 */
export function fromFieldsV1(fields: unknown): FieldSet {
  const set = new FieldSet();
  read(fields, set, "");
  return set;
}

/** Reads the keys of `value` into `into`; returns true if `value` marks its own path. */
function read(value: unknown, into: FieldSet, at: string): boolean {
  if (typeof value !== "object" || value === null || Array.isArray(value))
    throw new Error(`fieldsV1${at} must be a JSON object`);
  let self = false;
  let any = false;
  for (const [key, sub] of Object.entries(value)) {
    if (key === ".") {
      self = true;
      continue;
    }
    let pe: PathElement | undefined;
    try {
      pe = parseElement(key);
    } catch (err) {
      throw new Error(`fieldsV1${at}: parsing key as path element: ${errorMessage(err)}`);
    }
    if (pe === undefined) continue;
    any = true;
    const child = new FieldSet();
    if (read(sub, child, `${at}[${JSON.stringify(key)}]`)) into.insertMember(pe);
    into.insertChild(pe, child);
  }
  return self || !any;
}
