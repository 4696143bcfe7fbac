import {
  type CauseType,
  STATUS_CODES,
  type Status,
  type StatusCause,
  type StatusDetails,
  type StatusReason,
} from "./status.ts";

/**
 * An error from the Kubernetes API, carrying the server's `Status`. The server builds these to
 * answer a request; the client rebuilds them from the answer; both sides use the predicates
 * below rather than comparing codes.
 */
export class ApiError extends Error {
  readonly status: Status;

  constructor(status: Status, options?: ErrorOptions) {
    super(status.message ?? status.reason ?? `HTTP ${status.code}`, options);
    this.name = "ApiError";
    this.status = status;
  }

  /** The HTTP status code. */
  get code(): number {
    return this.status.code;
  }

  get reason(): StatusReason {
    return this.status.reason ?? "Unknown";
  }

  get details(): StatusDetails | undefined {
    return this.status.details;
  }

  /** Builds a failure `Status` from its parts; the code defaults from the reason. */
  static of(
    reason: StatusReason,
    message: string,
    details?: StatusDetails,
    code: number = STATUS_CODES[reason] ?? 500,
  ): ApiError {
    return new ApiError({
      kind: "Status",
      apiVersion: "v1",
      metadata: {},
      status: "Failure",
      message,
      reason,
      ...(details === undefined ? {} : { details }),
      code,
    });
  }
}

/**
 * A failure that must not be retried: the controller logs it, counts it and records an event,
 * but does not requeue the key (controller-runtime's `TerminalError`).
 */
export class TerminalError extends Error {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = "TerminalError";
  }
}

/** A group and resource, as error messages name them: `configmaps`, `users.example.com`. */
export interface GroupResource {
  group: string;
  resource: string;
}

function qualified(gr: GroupResource): string {
  return gr.group === "" ? gr.resource : `${gr.resource}.${gr.group}`;
}

/** StatusDetails as kube encodes them: an empty name or group (the core group) is left out. */
function details(gr: GroupResource, name: string): StatusDetails {
  return {
    ...(name === "" ? {} : { name }),
    ...(gr.group === "" ? {} : { group: gr.group }),
    kind: gr.resource,
  };
}

/** Builders for the errors the API server sends, with kube-apiserver's messages. */
export const errors = {
  notFound(gr: GroupResource, name: string): ApiError {
    return ApiError.of("NotFound", `${qualified(gr)} "${name}" not found`, details(gr, name));
  },
  alreadyExists(gr: GroupResource, name: string, beingDeleted = false): ApiError {
    const prefix = beingDeleted ? "object is being deleted: " : "";
    return ApiError.of(
      "AlreadyExists",
      `${prefix}${qualified(gr)} "${name}" already exists`,
      details(gr, name),
    );
  },
  conflict(gr: GroupResource, name: string, why: string): ApiError {
    return ApiError.of(
      "Conflict",
      `Operation cannot be fulfilled on ${qualified(gr)} "${name}": ${why}`,
      details(gr, name),
    );
  },
  /** 409 for a write against a stale resourceVersion. */
  staleResourceVersion(gr: GroupResource, name: string): ApiError {
    return errors.conflict(
      gr,
      name,
      "the object has been modified; please apply your changes to the latest version and try again",
    );
  },
  /**
   * 422 Invalid. `kind` is the Kind (with `.group` for non-core groups, as kube prints it).
   * The message lists every cause as `field: message`.
   */
  invalid(kind: string, group: string, name: string, causes: StatusCause[]): ApiError {
    const what = group === "" ? kind : `${kind}.${group}`;
    const parts = causes.map((c) =>
      c.field ? `${c.field}: ${c.message ?? ""}` : (c.message ?? ""),
    );
    const list = parts.length === 1 ? parts[0] : `[${parts.join(", ")}]`;
    return ApiError.of("Invalid", `${what} "${name}" is invalid: ${list}`, {
      ...(name === "" ? {} : { name }),
      ...(group === "" ? {} : { group }),
      kind,
      causes,
    });
  },
  badRequest(message: string): ApiError {
    return ApiError.of("BadRequest", message);
  },
  /** 410 Expired: a resourceVersion or continue token that is too old. */
  expired(message: string, continueToken?: string): ApiError {
    const e = ApiError.of("Expired", message);
    if (continueToken !== undefined) e.status.metadata.continue = continueToken;
    return e;
  },
  gone(message: string): ApiError {
    return ApiError.of("Gone", message);
  },
  methodNotAllowed(message: string): ApiError {
    return ApiError.of("MethodNotAllowed", message);
  },
  notAcceptable(message: string): ApiError {
    return ApiError.of("NotAcceptable", message);
  },
  unsupportedMediaType(message: string): ApiError {
    return ApiError.of("UnsupportedMediaType", message);
  },
  requestEntityTooLarge(message: string): ApiError {
    return ApiError.of("RequestEntityTooLarge", message);
  },
  forbidden(gr: GroupResource, name: string, why: string, causes?: StatusCause[]): ApiError {
    const subject = name === "" ? qualified(gr) : `${qualified(gr)} "${name}"`;
    return ApiError.of("Forbidden", `${subject} is forbidden: ${why}`, {
      ...details(gr, name),
      ...(causes ? { causes } : {}),
    });
  },
  unauthorized(message = "Unauthorized"): ApiError {
    return ApiError.of("Unauthorized", message);
  },
  tooManyRequests(message: string, retryAfterSeconds: number): ApiError {
    return ApiError.of("TooManyRequests", message, { retryAfterSeconds });
  },
  internal(message: string): ApiError {
    return ApiError.of("InternalError", `Internal error occurred: ${message}`, {
      causes: [{ message }],
    });
  },
  serviceUnavailable(message: string): ApiError {
    return ApiError.of("ServiceUnavailable", message);
  },
  timeout(message: string, retryAfterSeconds?: number, cause?: CauseType): ApiError {
    return ApiError.of("Timeout", message, {
      ...(retryAfterSeconds === undefined ? {} : { retryAfterSeconds }),
      ...(cause === undefined ? {} : { causes: [{ reason: cause, message }] }),
    });
  },
} as const;

function statusOf(err: unknown): Status | undefined {
  return err instanceof ApiError ? err.status : undefined;
}

function hasReason(err: unknown, reason: StatusReason, code: number): boolean {
  const s = statusOf(err);
  if (s === undefined) return false;
  return s.reason === reason || ((s.reason === undefined || s.reason === "") && s.code === code);
}

/** 404: the object (or its namespace) does not exist. */
export function isNotFound(err: unknown): boolean {
  return hasReason(err, "NotFound", 404);
}

/** 409 AlreadyExists: a create hit an existing name. */
export function isAlreadyExists(err: unknown): boolean {
  return statusOf(err)?.reason === "AlreadyExists";
}

/** 409 Conflict: a write carried a stale resourceVersion (or another precondition failed). */
export function isConflict(err: unknown): boolean {
  const s = statusOf(err);
  return (
    s !== undefined && (s.reason === "Conflict" || (s.code === 409 && s.reason !== "AlreadyExists"))
  );
}

/** 410, Gone or Expired: the resourceVersion or continue token is too old; list again. */
export function isGone(err: unknown): boolean {
  const s = statusOf(err);
  return s !== undefined && (s.code === 410 || s.reason === "Gone" || s.reason === "Expired");
}

/** 422 Invalid: the object failed validation; `details.causes` says where. */
export function isInvalid(err: unknown): boolean {
  return hasReason(err, "Invalid", 422);
}

/** 429: slow down; `details.retryAfterSeconds` says for how long. */
export function isTooManyRequests(err: unknown): boolean {
  return hasReason(err, "TooManyRequests", 429);
}

/** The HTTP status code an {@link ApiError} carries; `undefined` for any other value. */
export function statusCode(err: unknown): number | undefined {
  return statusOf(err)?.code;
}

/**
 * The message of a thrown value: an error's `message` (an `Error`, or an error-like object from
 * another realm or a worker), otherwise the value as a string. For messages that name a cause.
 */
export function errorMessage(err: unknown): string {
  if (typeof err === "object" && err !== null && "message" in err) {
    if (typeof err.message === "string") return err.message;
  }
  return String(err);
}

/**
 * The system error code a thrown value carries (`ENOENT`, `ECONNRESET`, `EADDRINUSE`, undici's
 * `UND_ERR_SOCKET`, …): its `code` when that is a string, otherwise `undefined`.
 */
export function errnoCode(err: unknown): string | undefined {
  if (typeof err !== "object" || err === null || !("code" in err)) return undefined;
  return typeof err.code === "string" ? err.code : undefined;
}

/** A `TerminalError`, or an error caused (through `cause`) by one. */
export function isTerminal(err: unknown): boolean {
  for (let e = err, depth = 0; e instanceof Error && depth < 10; e = e.cause, depth++) {
    if (e instanceof TerminalError) return true;
  }
  return false;
}
