import type { Requester } from "../types.ts";
import { type KindRules, specOf } from "./kind-rules.ts";
import { type Json, rec } from "./util.ts";

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
};

/** The kinds' rules, by `group/plural`. */
export const CERTIFICATE_KINDS: Readonly<Record<string, KindRules>> = {
  "certificates.k8s.io/certificatesigningrequests": certificateSigningRequest,
};
