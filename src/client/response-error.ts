/**
 * Turning a non-2xx response into an `ApiError`: the server's own Status when it sent one,
 * otherwise a Status built from the HTTP code (as client-go's `NewGenericServerResponse` does).
 */
import { ApiError, isStatus, type Status, type StatusReason } from "../core/index.ts";
import { decodeObject } from "../resources/index.ts";
import { sampleOf } from "./decode-error.ts";
import type { TransportResponse } from "./transport.ts";

/** Error bodies larger than this are cut: a Status is small, an HTML error page need not be. */
const MAX_ERROR_BODY = 64 * 1024;

const REASONS: Readonly<Record<number, StatusReason>> = {
  400: "BadRequest",
  401: "Unauthorized",
  403: "Forbidden",
  404: "NotFound",
  405: "MethodNotAllowed",
  406: "NotAcceptable",
  409: "Conflict",
  410: "Gone",
  413: "RequestEntityTooLarge",
  415: "UnsupportedMediaType",
  422: "Invalid",
  429: "TooManyRequests",
  500: "InternalError",
  503: "ServiceUnavailable",
  504: "Timeout",
};

/** Reads at most {@link MAX_ERROR_BODY} bytes of a body as text, then releases the connection. */
export async function readErrorBody(res: TransportResponse): Promise<string> {
  return (await readErrorBytes(res)).toString("utf8");
}

/** Reads at most {@link MAX_ERROR_BODY} bytes of a body, then releases the connection. */
async function readErrorBytes(res: TransportResponse): Promise<Buffer> {
  const parts: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of res.body) {
      parts.push(Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength));
      size += chunk.byteLength;
      if (size >= MAX_ERROR_BODY) break;
    }
  } catch {
    // A body that breaks off still yields the part that arrived.
  } finally {
    res.discard();
  }
  return Buffer.concat(parts).subarray(0, Math.min(size, MAX_ERROR_BODY));
}

/** Parses `Retry-After` (seconds; HTTP dates are not used by the API server). */
export function retryAfterSeconds(res: TransportResponse): number | undefined {
  const h = res.header("retry-after");
  if (h === undefined) return undefined;
  const n = Number(h.trim());
  return Number.isFinite(n) && n >= 0 ? n : undefined;
}

/**
 * The `ApiError` for a non-2xx response. The server's Status wins; a body that is not a Status
 * becomes the message (cut). `Retry-After` fills `details.retryAfterSeconds` when the Status has
 * none.
 */
export async function errorFromResponse(
  res: TransportResponse,
  method: string,
  path: string,
): Promise<ApiError> {
  const bytes = await readErrorBytes(res);
  const text = bytes.toString("utf8");
  const retryAfter = retryAfterSeconds(res);
  let status: Status | undefined;
  try {
    // A client that asked for protobuf gets its errors' Status in protobuf.
    const parsed: unknown =
      res.header("content-type") === "application/vnd.kubernetes.protobuf"
        ? decodeObject(bytes)
        : JSON.parse(text);
    if (isStatus(parsed)) status = parsed;
  } catch {
    // Not JSON (nor protobuf): fall through to a generic Status.
  }
  if (status === undefined) {
    const reason = REASONS[res.status] ?? "Unknown";
    const body = text.trim() === "" ? "" : `: ${sampleOf(text.trim())}`;
    status = {
      kind: "Status",
      apiVersion: "v1",
      metadata: {},
      status: "Failure",
      message: `${method} ${path}: the server responded with HTTP ${res.status}${body}`,
      reason,
      code: res.status,
    };
  }
  if (retryAfter !== undefined && status.details?.retryAfterSeconds === undefined) {
    status = { ...status, details: { ...status.details, retryAfterSeconds: retryAfter } };
  }
  return new ApiError(status);
}
