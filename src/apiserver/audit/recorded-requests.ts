import type { AccessAttributes } from "../auth/authorizer.ts";
import type { AuditEvent } from "./types.ts";

/*
 * The requests an audit log records: one per audit ID, read from its last event (the one that
 * knows the most — the impersonated user and the answer are only in the later stages).
 */

/** One request, as its audit events tell it. */
export interface RecordedRequest {
  readonly auditID: string;
  /** Who the request acted as: the impersonated user where there was one, else the sender. */
  readonly username: string;
  /** What it did, as kube's RequestInfo says it (the authorizer's attributes). */
  readonly attributes: AccessAttributes;
  /** The answer's HTTP code, where the log has it. */
  readonly code?: number;
}

/**
 * The requests of `events`, in the order they arrived, each once. Requests that were not
 * authenticated (no user) are left out: they acted as nobody.
 */
export function recordedRequests(events: Iterable<AuditEvent>): RecordedRequest[] {
  const last = new Map<string, AuditEvent>();
  for (const event of events) last.set(event.auditID, event);
  const out: RecordedRequest[] = [];
  for (const event of last.values()) {
    const username = event.impersonatedUser?.username ?? event.user.username;
    if (username === undefined || username === "") continue;
    out.push({
      auditID: event.auditID,
      username,
      attributes: attributesOf(event),
      ...(event.responseStatus === undefined ? {} : { code: event.responseStatus.code }),
    });
  }
  return out;
}

/** The authorizer's attributes of an event's request. */
function attributesOf(event: AuditEvent): AccessAttributes {
  const ref = event.objectRef;
  if (ref === undefined) {
    const q = event.requestURI.indexOf("?");
    return {
      kind: "non-resource",
      verb: event.verb,
      path: q < 0 ? event.requestURI : event.requestURI.slice(0, q),
    };
  }
  return {
    kind: "resource",
    verb: event.verb,
    namespace: ref.namespace ?? "",
    group: ref.apiGroup ?? "",
    version: ref.apiVersion ?? "",
    resource: ref.resource ?? "",
    subresource: ref.subresource ?? "",
    name: ref.name ?? "",
  };
}

/**
 * The events of an audit log (one JSON event a line, as kube-apiserver and this server write
 * it); blank lines are skipped. Throws naming the line that is not an event.
 */
export function parseAuditLog(text: string, source = "audit log"): AuditEvent[] {
  const events: AuditEvent[] = [];
  const lines = text.split("\n");
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!.trim();
    if (line === "") continue;
    let event: unknown;
    try {
      event = JSON.parse(line);
    } catch (err) {
      throw new Error(
        `${source}, line ${i + 1}: not JSON (${err instanceof Error ? err.message : String(err)}): an audit log has one JSON event a line`,
      );
    }
    const e = event as Partial<AuditEvent> | null;
    if (
      typeof e !== "object" ||
      e === null ||
      e.kind !== "Event" ||
      typeof e.auditID !== "string" ||
      typeof e.verb !== "string" ||
      typeof e.requestURI !== "string"
    ) {
      throw new Error(
        `${source}, line ${i + 1}: not an audit.k8s.io/v1 Event (kind "Event" with auditID, verb and requestURI)`,
      );
    }
    events.push({ ...e, user: e.user ?? {} } as AuditEvent);
  }
  return events;
}
