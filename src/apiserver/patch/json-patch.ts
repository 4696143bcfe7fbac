import { ApiError, cloneJson, errorMessage, errors } from "../../core/index.ts";

/** kube refuses JSON patches with more operations than this (413). */
export const MAX_JSON_PATCH_OPERATIONS = 10_000;

type Json = unknown;

interface Operation {
  op: string;
  path: string;
  from?: string;
  value?: Json;
}

/** A patch that cannot be applied: 422, naming the operation and why. */
function failed(index: number, op: Operation, why: string): ApiError {
  return ApiError.of(
    "Invalid",
    `the JSON patch could not be applied: operation ${index} (${op.op} ${op.path}): ${why}`,
    undefined,
    422,
  );
}

function parsePointer(pointer: string): string[] {
  if (pointer === "") return [];
  if (!pointer.startsWith("/"))
    throw new Error(`path ${JSON.stringify(pointer)} must start with "/"`);
  return pointer
    .slice(1)
    .split("/")
    .map((s) => s.replace(/~1/g, "/").replace(/~0/g, "~"));
}

function isContainer(v: Json): v is Record<string, Json> | Json[] {
  return typeof v === "object" && v !== null;
}

/** The parent container of a pointer and the last token. */
function locate(
  doc: Json,
  tokens: string[],
): { parent: Record<string, Json> | Json[]; key: string } {
  let cur = doc;
  for (const t of tokens.slice(0, -1)) {
    if (Array.isArray(cur)) cur = cur[arrayIndex(t, cur.length - 1)];
    else if (isContainer(cur) && Object.hasOwn(cur, t)) cur = (cur as Record<string, Json>)[t];
    else throw new Error(`path segment ${JSON.stringify(t)} does not exist`);
  }
  if (!isContainer(cur)) throw new Error("the parent of the target is not an object or array");
  return { parent: cur, key: tokens[tokens.length - 1]! };
}

function arrayIndex(token: string, max: number): number {
  if (!/^(0|[1-9][0-9]*)$/.test(token))
    throw new Error(`${JSON.stringify(token)} is not an array index`);
  const i = Number(token);
  if (i > max) throw new Error(`array index ${i} is out of bounds`);
  return i;
}

function get(doc: Json, pointer: string): Json {
  const tokens = parsePointer(pointer);
  if (tokens.length === 0) return doc;
  const { parent, key } = locate(doc, tokens);
  if (Array.isArray(parent)) return parent[arrayIndex(key, parent.length - 1)];
  if (!Object.hasOwn(parent, key))
    throw new Error(`path ${JSON.stringify(pointer)} does not exist`);
  return parent[key];
}

function add(doc: Json, pointer: string, value: Json): Json {
  const tokens = parsePointer(pointer);
  if (tokens.length === 0) return value;
  const { parent, key } = locate(doc, tokens);
  if (Array.isArray(parent)) {
    if (key === "-") parent.push(value);
    else parent.splice(arrayIndex(key, parent.length), 0, value);
  } else parent[key] = value;
  return doc;
}

function remove(doc: Json, pointer: string): Json {
  const tokens = parsePointer(pointer);
  if (tokens.length === 0) throw new Error("cannot remove the whole document");
  const { parent, key } = locate(doc, tokens);
  if (Array.isArray(parent)) parent.splice(arrayIndex(key, parent.length - 1), 1);
  else {
    if (!Object.hasOwn(parent, key))
      throw new Error(`path ${JSON.stringify(pointer)} does not exist`);
    delete parent[key];
  }
  return doc;
}

/**
 * Applies an RFC 6902 JSON patch to a copy of `document`. A body that is not an array of
 * operations is 400; too many operations 413; an operation that fails (including `test`) 422.
 */
export function applyJsonPatch(document: Json, patch: Json): Json {
  if (!Array.isArray(patch))
    throw errors.badRequest("a JSON patch must be a JSON array of operations");
  if (patch.length > MAX_JSON_PATCH_OPERATIONS) {
    throw errors.requestEntityTooLarge(
      `the JSON patch has ${patch.length} operations, more than the limit of ${MAX_JSON_PATCH_OPERATIONS}`,
    );
  }
  let doc = cloneJson(document);
  patch.forEach((raw, i) => {
    if (
      typeof raw !== "object" ||
      raw === null ||
      typeof (raw as Operation).op !== "string" ||
      typeof (raw as Operation).path !== "string"
    ) {
      throw errors.badRequest(
        `JSON patch operation ${i} must be an object with string "op" and "path"`,
      );
    }
    const op = raw as Operation;
    try {
      switch (op.op) {
        case "add":
          if (!("value" in op)) throw new Error('missing "value"');
          doc = add(doc, op.path, cloneJson(op.value));
          break;
        case "remove":
          doc = remove(doc, op.path);
          break;
        case "replace":
          if (!("value" in op)) throw new Error('missing "value"');
          get(doc, op.path);
          doc =
            parsePointer(op.path).length === 0
              ? cloneJson(op.value)
              : add(remove(doc, op.path), op.path, cloneJson(op.value));
          break;
        case "move": {
          if (typeof op.from !== "string") throw new Error('missing "from"');
          const v = get(doc, op.from);
          doc = add(remove(doc, op.from), op.path, v);
          break;
        }
        case "copy": {
          if (typeof op.from !== "string") throw new Error('missing "from"');
          doc = add(doc, op.path, cloneJson(get(doc, op.from)));
          break;
        }
        case "test":
          if (JSON.stringify(get(doc, op.path)) !== JSON.stringify(op.value))
            throw new Error("testing value failed");
          break;
        default:
          throw errors.badRequest(
            `JSON patch operation ${i} has unknown op ${JSON.stringify(op.op)}`,
          );
      }
    } catch (err) {
      if (err instanceof ApiError) throw err;
      throw failed(i, op, errorMessage(err));
    }
  });
  return doc;
}
