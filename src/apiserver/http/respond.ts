import type { ServerResponse } from "node:http";
import { ApiError, errors, type Status } from "../../core/index.ts";
import { isStorageError } from "../storage/storage-error.ts";

/** Writes a JSON body (an object, or JSON text already encoded). */
export function sendJson(
  res: ServerResponse,
  code: number,
  body: unknown,
  contentType = "application/json",
): void {
  const text = typeof body === "string" ? body : JSON.stringify(body);
  res.statusCode = code;
  res.setHeader("Content-Type", contentType);
  res.setHeader("Content-Length", Buffer.byteLength(text));
  res.setHeader("Cache-Control", "no-cache, private");
  res.end(text);
}

/**
 * A JSON list body longer than this (in UTF-16 units: about bytes) is streamed in chunks of
 * about this length.
 */
export const LIST_CHUNK_CHARS = 256 * 1024;

/**
 * Writes the JSON text `head`, then `json` of each item comma-separated, then `tail` (a list:
 * `{…,"items":[` … `]}`) — the same bytes as `sendJson` of the whole text. A body that fits in
 * {@link LIST_CHUNK_CHARS} goes out in one piece with a Content-Length; a longer one is
 * streamed (chunked) as it is built, waiting for the socket to drain between chunks, so a list
 * of 100 000 objects is neither built as one string nor held in the socket's buffer whole.
 * Resolves once the body is written or the response is gone.
 */
export async function sendJsonList<T>(
  res: ServerResponse,
  head: string,
  items: readonly T[],
  json: (item: T) => string,
  tail: string,
): Promise<void> {
  let text = head;
  let i = 0;
  for (; i < items.length && text.length < LIST_CHUNK_CHARS; i++) {
    text += i === 0 ? json(items[i]!) : `,${json(items[i]!)}`;
  }
  if (i === items.length) {
    sendJson(res, 200, text + tail);
    return;
  }
  res.statusCode = 200;
  res.setHeader("Content-Type", "application/json");
  res.setHeader("Cache-Control", "no-cache, private");
  for (;;) {
    // Encoded here, once: a string chunk would be measured (Buffer.byteLength, which flattens the
    // concatenation) and then encoded again by the socket.
    if (!res.write(Buffer.from(text))) await drained(res);
    if (res.destroyed) return;
    if (i === items.length) break;
    text = "";
    for (; i < items.length && text.length < LIST_CHUNK_CHARS; i++) text += `,${json(items[i]!)}`;
  }
  res.end(tail);
}

/**
 * Resolves once `res` can take more: on 'drain' or 'close' — or at once if it no longer needs to
 * drain (or is gone) by the time the listeners are in place, so that a 'drain' that came before
 * them (or none coming, for a response that was already flushed or destroyed) cannot leave the
 * writer waiting for ever.
 */
export function drained(res: ServerResponse): Promise<void> {
  return new Promise<void>((resolve) => {
    const done = () => {
      res.off("drain", done);
      res.off("close", done);
      resolve();
    };
    res.once("drain", done);
    res.once("close", done);
    if (res.destroyed || res.writableEnded || !res.writableNeedDrain) done();
  });
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
