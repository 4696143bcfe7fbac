import { DecodeError, TransportError } from "../client/index.ts";
import { ApiError } from "../core/index.ts";
import { InitialEventsTimeoutError, ShortWatchError, WatchIdleError } from "./reflector-errors.ts";

/**
 * A short, bounded label for an error: the Status reason, the decode reason, the transport
 * error code, `Idle`, `ShortWatch`, or `Other`.
 */
export function failureReason(error: unknown): string {
  if (error instanceof ApiError) return error.reason;
  if (error instanceof DecodeError) return error.reason;
  if (error instanceof TransportError) return error.code;
  if (error instanceof WatchIdleError) return "Idle";
  if (error instanceof InitialEventsTimeoutError) return "InitialEventsTimeout";
  if (error instanceof ShortWatchError) return "ShortWatch";
  return "Other";
}
