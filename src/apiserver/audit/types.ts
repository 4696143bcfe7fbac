/*
 * kube's audit vocabulary (audit.k8s.io/v1): the events the server records of requests and the
 * policy that says which requests are recorded, at what level. Field names, and the order the
 * fields are written in, are kube's: an event this server writes reads as kube-apiserver's do.
 */

/** How much of a request an event holds, in increasing order. */
export type AuditLevel = "None" | "Metadata" | "Request" | "RequestResponse";

/** The levels, least first: a level includes what every level before it does. */
export const AUDIT_LEVELS: readonly AuditLevel[] = [
  "None",
  "Metadata",
  "Request",
  "RequestResponse",
];

/** Where in a request's life an event is written. */
export type AuditStage = "RequestReceived" | "ResponseStarted" | "ResponseComplete" | "Panic";

/** The stages, in the order a request goes through them. */
export const AUDIT_STAGES: readonly AuditStage[] = [
  "RequestReceived",
  "ResponseStarted",
  "ResponseComplete",
  "Panic",
];

/** Whether `level` holds at least what `atLeast` does. */
export function levelAtLeast(level: AuditLevel, atLeast: AuditLevel): boolean {
  return AUDIT_LEVELS.indexOf(level) >= AUDIT_LEVELS.indexOf(atLeast);
}

/** A user as an event names it (authentication.k8s.io/v1 `UserInfo`). */
export interface AuditUser {
  readonly username?: string;
  readonly uid?: string;
  readonly groups?: readonly string[];
  readonly extra?: Readonly<Record<string, readonly string[]>>;
}

/** What a resource request addressed (audit.k8s.io/v1 `ObjectReference`). */
export interface AuditObjectReference {
  readonly resource?: string;
  readonly namespace?: string;
  readonly name?: string;
  readonly uid?: string;
  /** The group, left out for the core group. */
  readonly apiGroup?: string;
  readonly apiVersion?: string;
  readonly resourceVersion?: string;
  readonly subresource?: string;
}

/** The answer, as a Status (always with the HTTP code; the rest where the answer was a Status). */
export interface AuditResponseStatus {
  readonly metadata: Record<string, never>;
  readonly status?: string;
  readonly message?: string;
  readonly reason?: string;
  readonly details?: unknown;
  readonly code: number;
}

/** One audit event (audit.k8s.io/v1 `Event`), as kube-apiserver writes it, one per line. */
export interface AuditEvent {
  readonly kind: "Event";
  readonly apiVersion: "audit.k8s.io/v1";
  readonly level: AuditLevel;
  /** One id per request: the client's `Audit-ID` header, else a new UUID. */
  readonly auditID: string;
  readonly stage: AuditStage;
  readonly requestURI: string;
  /** kube's RequestInfo verb (`list`, `watch`, `create`…); the lowercased method on other paths. */
  readonly verb: string;
  /** Who sent the request (`{}` where it was not authenticated). */
  readonly user: AuditUser;
  /** Who the request was made as, when the sender impersonated someone. */
  readonly impersonatedUser?: AuditUser;
  /** How the impersonation was allowed (kube's constrained impersonation). */
  readonly authenticationMetadata?: { readonly impersonationConstraint?: string };
  readonly sourceIPs?: readonly string[];
  readonly userAgent?: string;
  /** What a resource request addressed; none on other paths. */
  readonly objectRef?: AuditObjectReference;
  /** Once the answer is known. */
  readonly responseStatus?: AuditResponseStatus;
  /** At level Request and above: the object (or patch) the request sent. */
  readonly requestObject?: unknown;
  /** At level RequestResponse: the object the server answered. */
  readonly responseObject?: unknown;
  /** kube's MicroTime: `2006-01-02T15:04:05.000000Z`. */
  readonly requestReceivedTimestamp: string;
  readonly stageTimestamp: string;
  /** `authorization.k8s.io/decision` and `authorization.k8s.io/reason`, among others. */
  readonly annotations?: Readonly<Record<string, string>>;
}

/** Which resources a policy rule selects (audit.k8s.io/v1 `GroupResources`). */
export interface AuditGroupResources {
  /** The API group; "" is the core group, "*" any group. @default "" */
  readonly group?: string;
  /**
   * Resources (`pods`), subresources (`pods/log`), `*`, `*\/scale`, `pods/*`.
   * @default every resource of the group
   */
  readonly resources?: readonly string[];
  /** @default every name */
  readonly resourceNames?: readonly string[];
}

/** One rule of a policy (audit.k8s.io/v1 `PolicyRule`); every selector left out matches all. */
export interface AuditPolicyRule {
  readonly level: AuditLevel;
  readonly users?: readonly string[];
  readonly userGroups?: readonly string[];
  readonly verbs?: readonly string[];
  readonly resources?: readonly AuditGroupResources[];
  /** Namespaces; "" selects cluster-scoped requests. */
  readonly namespaces?: readonly string[];
  /** Paths of non-resource requests: exact, `*`, or a prefix ending `*`. */
  readonly nonResourceURLs?: readonly string[];
  /** Stages not written for the requests this rule selects (besides the policy's). */
  readonly omitStages?: readonly AuditStage[];
  readonly omitManagedFields?: boolean;
}

/** An audit policy (audit.k8s.io/v1 `Policy`): the first rule a request matches decides. */
export interface AuditPolicy {
  readonly apiVersion?: "audit.k8s.io/v1";
  readonly kind?: "Policy";
  readonly rules: readonly AuditPolicyRule[];
  /** Stages no request writes. */
  readonly omitStages?: readonly AuditStage[];
  /** Leave `metadata.managedFields` out of request and response objects. @default false */
  readonly omitManagedFields?: boolean;
}

/** What a policy decided for one request (kube's `RequestAuditConfig`). */
export interface AuditDecision {
  readonly level: AuditLevel;
  readonly omitStages: readonly AuditStage[];
  readonly omitManagedFields: boolean;
}
