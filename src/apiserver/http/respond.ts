import type { ServerResponse } from "node:http";
import { ApiError, errors, type Status } from "../../core/index.ts";
import { auditOf } from "../audit/request-audit.ts";
import { isStorageError } from "../storage/storage-error.ts";
import { ChunkWriter } from "./chunk-writer.ts";
import { answersInProtobuf, PROTOBUF, protobufBody } from "./protobuf-wire.ts";

/**
 * Writes a JSON body (an object, or JSON already encoded: text or UTF-8 bytes) — or, where the
 * client negotiated protobuf ({@link answerInProtobuf}), the same object in protobuf.
 */
export function sendJson(
  res: ServerResponse,
  code: number,
  body: unknown,
  contentType = "application/json",
): void {
  auditOf(res)?.response(code, body);
  if (contentType === "application/json" && answersInProtobuf(res)) {
    contentType = PROTOBUF;
    body = Buffer.from(protobufBody(body));
  }
  const text = typeof body === "string" || Buffer.isBuffer(body) ? body : JSON.stringify(body);
  res.statusCode = code;
  res.setHeader("Content-Type", contentType);
  res.setHeader("Content-Length", Buffer.byteLength(text));
  res.setHeader("Cache-Control", "no-cache, private");
  res.end(text);
}

/** A JSON list body longer than this (bytes) is streamed, chunked. */
export const LIST_CHUNK_BYTES = 256 * 1024;

/** Items handed to the chunk writer at a time. */
const LIST_BATCH_ITEMS = 512;

const COMMA = Buffer.from(",");
const OPEN = Buffer.from("{");

/**
 * Writes the JSON text `head`, then `json` of each item (UTF-8) comma-separated, then `tail` (a
 * list: `{…,"items":[` … `]}`) — the same bytes as `sendJson` of the whole text. A body that
 * fits in {@link LIST_CHUNK_BYTES} goes out in one piece with a Content-Length; a longer one is
 * streamed (chunked) through a {@link ChunkWriter} as it is built, waiting for the socket between
 * chunks, so a list of 100 000 objects is neither built whole nor held in the socket's buffer.
 * Resolves once the body is written or the response is gone.
 *
 * `dropPrefix`: where an item's JSON begins with these bytes (`{"apiVersion":…,"kind":…,`), they
 * are left out (the item starts `{` and goes on after them), without copying the item.
 */
export async function sendJsonList<T>(
  res: ServerResponse,
  head: string,
  items: readonly T[],
  json: (item: T) => Buffer,
  tail: string,
  dropPrefix?: Buffer,
): Promise<void> {
  const pieces: Buffer[] = [Buffer.from(head)];
  const push = (item: Buffer) => {
    if (dropPrefix !== undefined && startsWith(item, dropPrefix)) {
      pieces.push(OPEN, item.subarray(dropPrefix.length));
    } else {
      pieces.push(item);
    }
  };
  let bytes = pieces[0]!.length;
  let i = 0;
  for (; i < items.length && bytes < LIST_CHUNK_BYTES; i++) {
    if (i > 0) pieces.push(COMMA);
    const item = json(items[i]!);
    push(item);
    bytes += item.length + 1;
  }
  if (i === items.length) {
    pieces.push(Buffer.from(tail));
    sendJson(res, 200, Buffer.concat(pieces));
    return;
  }
  res.statusCode = 200;
  res.setHeader("Content-Type", "application/json");
  res.setHeader("Cache-Control", "no-cache, private");
  const writer = new ChunkWriter(res);
  for (;;) {
    await writer.write(pieces);
    if (res.destroyed) return;
    if (i === items.length) break;
    pieces.length = 0;
    for (const end = Math.min(items.length, i + LIST_BATCH_ITEMS); i < end; i++) {
      pieces.push(COMMA);
      push(json(items[i]!));
    }
  }
  await writer.flush();
  if (!res.destroyed) res.end(tail);
}

function startsWith(buffer: Buffer, prefix: Buffer): boolean {
  return (
    buffer.length > prefix.length &&
    buffer.compare(prefix, 0, prefix.length, 0, prefix.length) === 0
  );
}

/**
 * Any thrown value as the `ApiError` the client sees: 503 with Retry-After for storage that
 * cannot be reached (etcd down), 500 for anything else that is not one.
 */
export function toApiError(err: unknown): ApiError {
  if (err instanceof ApiError) return err;
  if (isStorageError(err, "Unavailable")) {
    const e = errors.serviceUnavailable(err.message);
    e.status.details = { retryAfterSeconds: 1 };
    return e;
  }
  const message = err instanceof Error ? err.message : String(err);
  return errors.internal(message);
}

/** Writes an error as a Kubernetes Status with its HTTP code. */
export function sendError(res: ServerResponse, err: unknown): void {
  const e = toApiError(err);
  if (res.headersSent) {
    res.destroy();
    return;
  }
  const headers: Record<string, string> = {};
  const retry = e.status.details?.retryAfterSeconds;
  if (retry !== undefined) headers["Retry-After"] = String(retry);
  for (const [k, v] of Object.entries(headers)) res.setHeader(k, v);
  sendJson(res, e.status.code, e.status);
}

/** A successful Status (what a DELETE returns once the object is gone). */
export function successStatus(details: Status["details"]): Omit<Status, "code"> {
  return {
    kind: "Status",
    apiVersion: "v1",
    metadata: {},
    status: "Success",
    ...(details ? { details } : {}),
  };
}
