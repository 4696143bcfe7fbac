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
