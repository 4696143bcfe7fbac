import { deepEqual, type KubeObject, type StatusCause } from "../../../core/index.ts";
import { timestamp } from "../deletion.ts";
import { field } from "../field-errors.ts";
import type { Requester } from "../types.ts";
import { eachAt, type KindRules, specOf } from "./kind-rules.ts";
import { type Json, rec, recordAt } from "./util.ts";

/*
 * certificates.k8s.io/v1 CertificateSigningRequests as kube-apiserver 1.36's registry keeps
 * them: who asked is the server's to say, not the client's, and the request cannot change.
 */

/**
 * kube's CSR strategy on create: the requester's username, uid, groups and extra replace any
 * the client sent (left out where the requester has none, or the write is the server's own),
 * and the status starts empty — no request is created approved.
 */
function recordRequester(spec: Json, requester: Requester | undefined): void {
  for (const key of ["username", "uid", "groups", "extra"]) delete spec[key];
  if (requester === undefined) return;
  if (requester.username !== "") spec.username = requester.username;
  if (requester.uid) spec.uid = requester.uid;
  if (requester.groups.length > 0) spec.groups = [...requester.groups];
  const extra = Object.entries(requester.extra ?? {});
  if (extra.length > 0) spec.extra = Object.fromEntries(extra.map(([k, v]) => [k, [...v]]));
}

/**
 * The spec and status are the registry's: a writer of the object itself owns neither (kube
 * resets both), the spec is the requester's and stays as created, the status changes only
 * through the `status` and `approval` subresources.
 */
const certificateSigningRequest: KindRules = {
  resetFields: ["spec", "status"],
  prepareForCreate(object, requester) {
    recordRequester(specOf(object), requester);
    rec(object).status = {};
  },
  prepareForUpdate(object, old) {
    const o = rec(object);
    const stored = rec(old);
    o.spec = structuredClone(stored.spec ?? {});
    if (stored.status === undefined) delete o.status;
    else o.status = structuredClone(stored.status);
  },
  prepareSubresource: (subresource, body, stored, nowMs) =>
    subresource === "approval" ? withApproval(body, stored, nowMs) : body,
  validateUpdate: (object, old, subresource) =>
    subresource === "status" || subresource === "approval"
      ? conditionCauses(object, old, subresource === "approval")
      : [],
};

/**
 * A write to `approval` (kube's csrApprovalStrategy) changes the conditions alone, each given
 * its times: `lastUpdateTime` now unless sent, `lastTransitionTime` kept from a stored condition
 * of the same type and status, else now.
 */
function withApproval(body: KubeObject, stored: KubeObject, nowMs: number): KubeObject {
  const now = timestamp(nowMs);
  const old = eachAt(recordAt(rec(stored), "status") ?? {}, "conditions");
  const conditions = eachAt(recordAt(rec(body), "status") ?? {}, "conditions").map((c) => {
    const next = structuredClone(c);
    if (!next.lastUpdateTime) next.lastUpdateTime = now;
    if (!next.lastTransitionTime) {
      const same = old.find((o) => o.type === c.type && o.status === c.status);
      next.lastTransitionTime = same?.lastTransitionTime || now;
    }
    return next;
  });
  const status = { ...(recordAt(rec(stored), "status") ?? {}) };
  if (conditions.length > 0) status.conditions = conditions;
  else delete status.conditions;
  rec(stored).status = status;
  return stored;
}

/** Condition types kube allows only as True. */
const TRUE_ONLY = ["Approved", "Denied", "Failed"];

/**
 * What kube refuses in a CSR's conditions, written to `status` or `approval`: a condition
 * without a type or status, a status not allowed, Approved with Denied, a type twice, an
 * Approved/Denied/Failed condition removed — and, except through `approval`, an Approved or
 * Denied one added or changed.
 */
function conditionCauses(object: KubeObject, old: KubeObject, approval: boolean): StatusCause[] {
  const path = "status.conditions";
  const causes: StatusCause[] = [];
  const conditions = eachAt(recordAt(rec(object), "status") ?? {}, "conditions");
  const seen = new Set<unknown>();
  let approved = false;
  let denied = false;
  conditions.forEach((c, i) => {
    if (!c.type) causes.push(field.required(`${path}[${i}].type`));
    const allowed = TRUE_ONLY.includes(String(c.type)) ? ["True"] : ["False", "True", "Unknown"];
    if (!c.status) causes.push(field.required(`${path}[${i}].status`));
    else if (!allowed.includes(String(c.status)))
      causes.push(field.notSupported(`${path}[${i}].status`, c.status, allowed));
    if (c.type === "Approved") approved = true;
    if (c.type === "Denied") denied = true;
    if ((c.type === "Approved" && denied) || (c.type === "Denied" && approved))
      causes.push(
        field.invalid(path, c.type, "Approved and Denied conditions are mutually exclusive"),
      );
    if (seen.has(c.type)) causes.push(field.duplicate(`${path}[${i}].type`, c.type));
    seen.add(c.type);
  });
  const was = eachAt(recordAt(rec(old), "status") ?? {}, "conditions");
  const ofType = (list: Json[], type: string) => list.filter((c) => c.type === type);
  for (const type of ["Approved", "Denied", "Failed"]) {
    if (ofType(conditions, type).length < ofType(was, type).length)
      causes.push(
        field.forbidden(path, `updates may not remove a condition of type ${JSON.stringify(type)}`),
      );
  }
  if (approval) return causes;
  for (const type of ["Approved", "Denied"]) {
    const now = ofType(conditions, type);
    const before = ofType(was, type);
    if (now.length > before.length)
      causes.push(
        field.forbidden(path, `updates may not add a condition of type ${JSON.stringify(type)}`),
      );
    else if (now.length === before.length && !deepEqual(now, before))
      // kube appends a Go diff of the change.
      causes.push(
        field.forbidden(
          path,
          `updates may not modify a condition of type ${JSON.stringify(type)}\n`,
        ),
      );
  }
  return causes;
}

/** The kinds' rules, by `group/plural`. */
export const CERTIFICATE_KINDS: Readonly<Record<string, KindRules>> = {
  "certificates.k8s.io/certificatesigningrequests": certificateSigningRequest,
};
