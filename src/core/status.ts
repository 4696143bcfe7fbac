/**
 * The Kubernetes `Status` object (meta/v1): what the API server returns for an error and for
 * some successful deletes. Reasons and codes follow apimachinery's `pkg/api/errors`.
 */
export interface Status {
  kind: "Status";
  apiVersion: "v1";
  metadata: { resourceVersion?: string; continue?: string };
  status: "Success" | "Failure";
  message?: string;
  reason?: StatusReason;
  details?: StatusDetails;
  code: number;
}

/** Why a request failed, as the API server says it (`Status.reason`). */
export type StatusReason =
  | "NotFound"
  | "AlreadyExists"
  | "Conflict"
  | "Invalid"
  | "Gone"
  | "Expired"
  | "BadRequest"
  | "MethodNotAllowed"
  | "NotAcceptable"
  | "UnsupportedMediaType"
  | "RequestEntityTooLarge"
  | "Forbidden"
  | "Unauthorized"
  | "TooManyRequests"
  | "InternalError"
  | "ServiceUnavailable"
  | "Timeout"
  | "ServerTimeout"
  | "Unknown"
  | (string & {});

export interface StatusDetails {
  name?: string;
  group?: string;
  /** The resource (plural) for most reasons; the Kind for Invalid. */
  kind?: string;
  uid?: string;
  causes?: StatusCause[];
  retryAfterSeconds?: number;
}

/** One reason a request was invalid; `field` is a path such as `spec.containers[0].image`. */
export interface StatusCause {
  reason?: CauseType;
  message?: string;
  field?: string;
}

/** `StatusCause.reason` values (apimachinery `util/validation/field`). */
export type CauseType =
  | "FieldValueRequired"
  | "FieldValueInvalid"
  | "FieldValueNotSupported"
  | "FieldValueForbidden"
  | "FieldValueDuplicate"
  | "FieldValueTooLong"
  | "FieldValueTooMany"
  | "FieldValueTypeInvalid"
  | "FieldValueNotFound"
  | "InternalError"
  | "NamespaceTerminating"
  | "ResourceVersionTooLarge"
  | "FieldManagerConflict"
  | (string & {});

/** The HTTP code that goes with each reason, as kube-apiserver sends it. */
export const STATUS_CODES: Readonly<Record<string, number>> = {
  BadRequest: 400,
  Unauthorized: 401,
  Forbidden: 403,
  NotFound: 404,
  MethodNotAllowed: 405,
  NotAcceptable: 406,
  AlreadyExists: 409,
  Conflict: 409,
  Gone: 410,
  Expired: 410,
  RequestEntityTooLarge: 413,
  UnsupportedMediaType: 415,
  Invalid: 422,
  TooManyRequests: 429,
  InternalError: 500,
  ServiceUnavailable: 503,
  ServerTimeout: 504,
  Timeout: 504,
};

/** True if `value` has the shape of a `Status` object. */
export function isStatus(value: unknown): value is Status {
  return (
    typeof value === "object" &&
    value !== null &&
    "kind" in value &&
    value.kind === "Status" &&
    "code" in value &&
    typeof value.code === "number"
  );
}
