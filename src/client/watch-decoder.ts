/**
 * Decoding watch lines: one JSON object per line, `{"type": …, "object": …}`. Every line is
 * checked before anything of it is handed on, so a consumer never sees a half-decoded or
 * foreign object; the first bad line ends the stream with a {@link DecodeError}.
 */
import {
  ApiError,
  isStatus,
  type KubeObject,
  type WatchEvent,
  type WireWatchEvent,
} from "../core/index.ts";
import { DecodeError } from "./decode-error.ts";

/** The kind a stream must carry; objects that name another kind or apiVersion are rejected. */
export interface ExpectedKind {
  readonly kind: string;
  readonly apiVersion: string;
}

type Json = Record<string, unknown>;

function isObject(v: unknown): v is Json {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/**
 * Checks that `obj` is an object of the expected kind with a name and a resourceVersion
 * (bookmarks need only the resourceVersion). `kind`/`apiVersion` may be absent (list items of
 * built-in kinds omit them); present, they must match.
 */
export function checkObject(
  obj: unknown,
  expect: ExpectedKind | undefined,
  bookmark: boolean,
  sample: () => string,
): asserts obj is KubeObject {
  if (!isObject(obj))
    throw new DecodeError("InvalidObject", "the object is not a JSON object", sample());
  if (expect !== undefined) {
    const { kind, apiVersion } = obj;
    if (
      (kind !== undefined && kind !== expect.kind) ||
      (apiVersion !== undefined && apiVersion !== expect.apiVersion)
    ) {
      throw new DecodeError(
        "WrongKind",
        `expected ${expect.apiVersion} ${expect.kind}, got ${String(apiVersion)} ${String(kind)}`,
        sample(),
      );
    }
  }
  const meta = obj.metadata;
  if (
    !isObject(meta) ||
    typeof meta.resourceVersion !== "string" ||
    (!bookmark && (typeof meta.name !== "string" || meta.name === ""))
  ) {
    throw new DecodeError(
      "InvalidObject",
      bookmark
        ? "a bookmark without metadata.resourceVersion"
        : "an object without metadata.name or metadata.resourceVersion",
      sample(),
    );
  }
}

/** How kube's servers (and ours) open a line of each object event type. */
const OPENINGS = [
  ["ADDED", '{"type":"ADDED","object":'],
  ["MODIFIED", '{"type":"MODIFIED","object":'],
  ["DELETED", '{"type":"DELETED","object":'],
] as const;

/**
 * Decodes one watch line. `ERROR` events come back as they are (the stream turns them into an
 * `ApiError`); anything malformed throws a {@link DecodeError} carrying the line, cut.
 */
export function decodeWatchLine<T extends KubeObject>(
  line: string,
  expect: ExpectedKind | undefined,
): WireWatchEvent<T> {
  // The common line, `{"type":"ADDED","object":{…}}` as servers write it: only the object is
  // parsed (no wrapper to build, a few bytes less to scan). If the object text is valid JSON,
  // so is the whole line, with exactly that type and object; anything else takes the full path.
  if (line.charCodeAt(line.length - 1) === 125) {
    for (const [type, opening] of OPENINGS) {
      if (!line.startsWith(opening)) continue;
      let object: unknown;
      try {
        object = JSON.parse(line.slice(opening.length, line.length - 1));
      } catch {
        break;
      }
      checkObject(object, expect, false, () => line);
      return { type, object: object as T };
    }
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(line);
  } catch (cause) {
    throw new DecodeError("InvalidJSON", "a watch line is not valid JSON", line, { cause });
  }
  if (!isObject(parsed) || typeof parsed.type !== "string" || !("object" in parsed)) {
    throw new DecodeError("InvalidEvent", "a watch line is not a {type, object} event", line);
  }
  return checkEvent<T>(parsed.type, parsed.object, expect, () => line);
}

/**
 * One decoded event, checked (JSON line or protobuf frame alike): an object event's object must
 * be of the expected kind with a name and resourceVersion, a bookmark's must carry a
 * resourceVersion, an ERROR's is its Status; any other type is an error.
 */
export function checkEvent<T extends KubeObject>(
  type: string,
  object: unknown,
  expect: ExpectedKind | undefined,
  sample: () => string,
): WireWatchEvent<T> {
  switch (type) {
    case "ADDED":
    case "MODIFIED":
    case "DELETED":
      checkObject(object, expect, false, sample);
      return { type, object: object as T };
    case "BOOKMARK":
      checkObject(object, expect, true, sample);
      return { type, object } as WatchEvent<T>;
    case "ERROR":
      return { type, object: isStatus(object) ? object : nonStatusError(sample()) };
    default:
      throw new DecodeError(
        "UnknownEventType",
        `unknown watch event type ${JSON.stringify(type)}`,
        sample(),
      );
  }
}

/** An ERROR event whose object is not a Status still ends the watch, as an internal error. */
function nonStatusError(sample: string) {
  return ApiError.of(
    "InternalError",
    `the watch sent an ERROR event without a Status: ${sample.slice(0, 256)}`,
  ).status;
}
