/** Why a storage call failed. */
export type StorageErrorCode =
  | "KeyExists"
  | "NotFound"
  | "Conflict"
  | "Compacted"
  | "FutureRevision"
  | "Closed"
  /** The backend cannot be reached (etcd down or not answering); retry later. */
  | "Unavailable";

/**
 * A failed storage call. The registry maps each code to the Kubernetes error a client sees
 * (AlreadyExists, NotFound, Conflict, Expired, Timeout, ServiceUnavailable).
 */
export class StorageError extends Error {
  readonly code: StorageErrorCode;
  /** The key involved, when there is one. */
  readonly key: string | undefined;
  /** The store's current revision when the call failed. */
  readonly currentRevision: number;
  /** The compacted revision when the call failed (for `Compacted`). */
  readonly compactedRevision: number;

  constructor(
    code: StorageErrorCode,
    message: string,
    details: { key?: string; currentRevision: number; compactedRevision: number },
  ) {
    super(message);
    this.name = "StorageError";
    this.code = code;
    this.key = details.key;
    this.currentRevision = details.currentRevision;
    this.compactedRevision = details.compactedRevision;
  }
}

/** True if `err` is a {@link StorageError} with `code`. */
export function isStorageError(err: unknown, code?: StorageErrorCode): err is StorageError {
  return err instanceof StorageError && (code === undefined || err.code === code);
}
