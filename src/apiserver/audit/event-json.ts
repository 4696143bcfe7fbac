import type { AuditEvent } from "./types.ts";

/*
 * An event as one line of kube-apiserver's audit log: the JSON of the event (its fields already
 * in kube's order: events are built that way) with Go's escaping, which writes `<`, `>`, `&`,
 * U+2028 and U+2029 inside strings as `\u003c`, `\u003e`, `\u0026`, `\u2028`, `\u2029`.
 */

const GO_ESCAPED = /[<>&\u2028\u2029]/g;

function goEscape(c: string): string {
  return `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`;
}

/** One line of the audit log (no newline), as kube's JSON log backend writes it. */
export function auditEventJson(event: AuditEvent): string {
  return JSON.stringify(event).replace(GO_ESCAPED, goEscape);
}

/**
 * kube's MicroTime of `ms` (Unix milliseconds, fractions kept to the microsecond):
 * `2006-01-02T15:04:05.000000Z`.
 */
export function microTime(ms: number): string {
  const whole = Math.floor(ms);
  const micros = Math.floor((ms - whole) * 1000 + 1e-6);
  const iso = new Date(whole).toISOString(); // 2006-01-02T15:04:05.000Z
  return `${iso.slice(0, 23)}${String(Math.min(999, micros)).padStart(3, "0")}Z`;
}
