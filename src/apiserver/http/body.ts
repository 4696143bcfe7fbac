import type { IncomingMessage } from "node:http";
import { parse as parseYaml } from "yaml";
import { errorMessage, errors } from "../../core/index.ts";
import { duplicateFields } from "./duplicate-fields.ts";
import { nestsDeeperThan } from "./json-scan.ts";
import { decodeProtobufBody, PROTOBUF, type ProtobufTarget } from "./protobuf-wire.ts";

/** kube-apiserver's limit on a request body (3 MiB). */
export const MAX_BODY_BYTES = 3 * 1024 * 1024;

/** The media type of a header value, lowercased, without parameters. */
export function mediaType(header: string | undefined): string {
  return (header ?? "").split(";")[0]!.trim().toLowerCase();
}

/** Reads the whole body; 413 once it exceeds `limit` bytes. */
export function readBody(req: IncomingMessage, limit = MAX_BODY_BYTES): Promise<Buffer> {
  const declared = Number(req.headers["content-length"]);
  if (Number.isFinite(declared) && declared > limit) {
    req.resume();
    return Promise.reject(tooLarge(limit));
  }
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let failed = false;
    req.on("data", (chunk: Buffer) => {
      if (failed) return;
      size += chunk.length;
      if (size > limit) {
        failed = true;
        reject(tooLarge(limit));
        return;
      }
      chunks.push(chunk);
    });
    req.on("end", () => {
      if (!failed) resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size));
    });
    req.on("error", (err) => {
      failed = true;
      reject(err);
    });
  });
}

function tooLarge(limit: number) {
  return errors.requestEntityTooLarge(
    `the request body is larger than the limit of ${limit} bytes; send a smaller object`,
  );
}

const ACCEPTED = ["application/json", "application/yaml"];

/**
 * Decodes a create/update body: JSON, YAML, or — where `protobuf` names the endpoint's kind (a
 * built-in one) — Kubernetes protobuf. Anything else is 415 naming the accepted types; a body
 * that does not parse, or is not an object, is 400.
 */
export function decodeObjectBody(
  body: Buffer,
  contentType: string | undefined,
  kind?: string,
  protobuf?: ProtobufTarget,
): Record<string, unknown> {
  const type = mediaType(contentType) || "application/json";
  if (type === "application/json" || type === "*/*") return requireObject(parseJson(body, kind));
  if (type === PROTOBUF && protobuf !== undefined) {
    return decodeProtobufBody(body, protobuf);
  }
  if (type === "application/yaml" || type === "application/x-yaml" || type === "text/yaml") {
    let value: unknown;
    try {
      value = parseYaml(body.toString("utf8"));
    } catch (err) {
      // The YAML parser recurses, and runs out of stack some hundreds of levels deep.
      const message = errorMessage(err);
      throw errors.badRequest(
        message.includes("Maximum call stack size exceeded")
          ? `the request body is not valid YAML: objects and arrays nest too deeply for the YAML parser (send JSON, which may nest ${MAX_JSON_DEPTH} levels)`
          : `the request body is not valid YAML: ${message}`,
      );
    }
    if (valueNestsDeeperThan(value, MAX_JSON_DEPTH)) {
      throw errors.badRequest(`the request body is ${tooDeep("YAML")}`);
    }
    return requireObject(value);
  }
  throw unsupported(type, protobuf === undefined ? ACCEPTED : [...ACCEPTED, PROTOBUF]);
}

/**
 * The keys a JSON body has twice in one object (see {@link duplicateFields}), unless duplicates
 * do not matter (`fieldValidation=Ignore`) or the body is not JSON (the YAML parser refuses
 * duplicate keys itself; protobuf has no keys). Call it on a body that parsed.
 */
export function duplicatesIn(
  body: Buffer,
  contentType: string | undefined,
  fieldValidation: "Ignore" | "Warn" | "Strict",
): string[] {
  if (fieldValidation === "Ignore") return [];
  const type = mediaType(contentType) || "application/json";
  if (type.endsWith("yaml") || type === PROTOBUF) return [];
  return duplicateFields(body.toString("utf8"));
}

/** 415 for a body type, naming the types that are accepted. */
export function unsupported(type: string, accepted: readonly string[]) {
  const protobuf =
    type === PROTOBUF && !accepted.includes(PROTOBUF)
      ? " (custom resources, as in kube, are not encoded in protobuf: send this one as JSON)"
      : "";
  return errors.unsupportedMediaType(
    `the body of the request was in an unknown format - accepted media types include: ${accepted.join(", ")}${protobuf}`,
  );
}

/** Parses a JSON body that must be an object (400 otherwise, with the parser's position). */
export function parseJsonObject(body: Buffer): Record<string, unknown> {
  return requireObject(parseJson(body));
}

/**
 * How deep a request body's objects and arrays may nest (JSON or YAML). kube's JSON decoder (Go's) stops at
 * 10 000; the server's own walks of an object (copies, pruning, patches, encoding) are
 * recursive and meet the JavaScript stack's limit at some thousands, so the limit here is lower
 * — far above any real object — and a deeper body is a 400, never a 500 halfway through.
 */
export const MAX_JSON_DEPTH = 1000;

/**
 * Parses a JSON body: 400 with the parser's message if it is not JSON (in kube's decoder's words
 * for a body of `kind`), 400 if it nests deeper than {@link MAX_JSON_DEPTH}.
 */
export function parseJson(body: Buffer, kind?: string): unknown {
  if (body.length === 0) throw errors.badRequest("the request body is empty; send a JSON object");
  const text = body.toString("utf8");
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    if (kind !== undefined) {
      // kube's decoder looks for apiVersion and kind first, and reports the parse error then.
      const why = errorMessage(err);
      throw errors.badRequest(
        `the object provided is unrecognized (must be of type ${kind}): couldn't get version/kind; json parse error: ${why.charAt(0).toLowerCase()}${why.slice(1)} (${text})`,
      );
    }
    throw errors.badRequest(`the request body is not valid JSON: ${errorMessage(err)}`);
  }
  // Nesting deeper than the limit takes more than twice as many brackets (opened and closed):
  // shorter JSON text need not be scanned.
  if (text.length > 2 * MAX_JSON_DEPTH && nestsDeeperThan(text, MAX_JSON_DEPTH)) {
    throw errors.badRequest(`the request body is ${tooDeep("JSON")}`);
  }
  return value;
}

function tooDeep(format: string): string {
  return `not valid ${format}: objects and arrays nest deeper than ${MAX_JSON_DEPTH} levels`;
}

/**
 * True if `value`'s objects and arrays nest deeper than `max` (a value nested in itself, as a
 * YAML alias can make, nests without end). Walks without recursion.
 */
function valueNestsDeeperThan(value: unknown, max: number): boolean {
  const stack: [unknown, number][] = [[value, 0]];
  while (stack.length > 0) {
    const [v, depth] = stack.pop()!;
    if (typeof v !== "object" || v === null) continue;
    if (depth + 1 > max) return true;
    for (const child of Object.values(v)) stack.push([child, depth + 1]);
  }
  return false;
}

function requireObject(value: unknown): Record<string, unknown> {
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    const what = Array.isArray(value) ? "an array" : value === null ? "null" : `a ${typeof value}`;
    throw errors.badRequest(`the request body must be a JSON object, got ${what}`);
  }
  return value as Record<string, unknown>;
}
