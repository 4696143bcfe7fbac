import { errors, type KubeObject } from "../../core/index.ts";
import type { ObjectRef, TokenSubject } from "../auth/service-account-tokens.ts";
import { timestamp } from "../registry/deletion.ts";
import { field } from "../registry/field-errors.ts";
import { goInt64, goString, goStrings, goStruct } from "./typed-body.ts";
import {
  type CreateTarget,
  readCreateBody,
  sendCreated,
  type UnstoredHandler,
} from "./unstored-create.ts";

/*
 * `serviceaccounts/{name}/token` (kube's TokenRequest REST): issues a service account token,
 * bound to a pod, secret or node if asked, as kube-apiserver does.
 */

const GROUP = "authentication.k8s.io";
const TOKEN_REQUESTS = { group: GROUP, resource: "TokenRequest" };

/** kube's shortest token life (10 minutes) and longest (2^32 s). */
const MIN_EXPIRATION_SECONDS = 600;
const MAX_EXPIRATION_SECONDS = 2 ** 32;
/** The token life of a request that names none (the v1 API's default). */
const DEFAULT_EXPIRATION_SECONDS = 3600;

const TOKEN_REQUEST: CreateTarget = {
  kind: "TokenRequest",
  version: "v1",
  apiVersion: `${GROUP}/v1`,
  subresource: "token",
  fields: {
    spec: goStruct("v1.TokenRequestSpec", {
      audiences: goStrings,
      expirationSeconds: goInt64,
      boundObjectRef: goStruct("v1.BoundObjectReference", {
        kind: goString,
        apiVersion: goString,
        name: goString,
        uid: goString,
      }),
    }),
    status: { kind: "any", go: "v1.TokenRequestStatus" },
  },
  defaults: (o) => {
    const spec = (o.spec ?? {}) as Record<string, unknown>;
    spec.expirationSeconds ??= DEFAULT_EXPIRATION_SECONDS;
    o.spec = spec;
  },
};

interface BoundRef {
  kind?: string;
  apiVersion?: string;
  name?: string;
  uid?: string;
}

/**
 * POST serviceaccounts/{name}/token: a token for the service account, for `spec.audiences` (the
 * server's when none), valid `spec.expirationSeconds` (default 3600, at least 600), bound to
 * `spec.boundObjectRef` if set — the TokenRequest sent back with the token and its expiry.
 */
export const tokenRequest: UnstoredHandler = async (u) => {
  const { r, ctx } = u;
  const { object, warnings } = await readCreateBody(u, TOKEN_REQUEST);
  const meta = object.metadata ?? {};
  if (meta.name && meta.name !== r.name) {
    throw errors.invalid("TokenRequest", GROUP, r.name, [
      field.invalid("metadata.name", meta.name, "must match the service account name if specified"),
    ]);
  }
  const lookup = ctx.auth.tokens;
  const account = await getObject(u, "serviceaccounts", r.namespace, r.name);
  const accountUid = account.metadata?.uid ?? "";
  if (meta.uid && meta.uid !== accountUid) {
    throw errors.conflict(
      TOKEN_REQUESTS,
      r.name,
      `the UID in the token request (${meta.uid}) does not match the UID of the service account (${accountUid})`,
    );
  }
  const spec = object.spec as {
    audiences?: string[] | null;
    expirationSeconds: number;
    boundObjectRef?: BoundRef | null;
  };
  const audiences = spec.audiences?.length ? spec.audiences : [...lookup.audiences];
  const nowMs = ctx.clock.now();
  const expiration = spec.expirationSeconds;
  if (expiration < MIN_EXPIRATION_SECONDS) {
    throw errors.invalid("TokenRequest", GROUP, "", [
      field.invalid(
        "spec.expirationSeconds",
        expiration,
        "may not specify a duration less than 10 minutes",
      ),
    ]);
  }
  if (expiration > MAX_EXPIRATION_SECONDS) {
    throw errors.invalid("TokenRequest", GROUP, "", [
      field.invalid(
        "spec.expirationSeconds",
        expiration,
        "may not specify a duration larger than 2^32 seconds",
      ),
    ]);
  }
  const subject: TokenSubject = {
    namespace: r.namespace,
    serviceAccount: { name: r.name, uid: accountUid },
    ...(spec.boundObjectRef ? await boundObject(u, spec.boundObjectRef) : {}),
  };
  const issued = await lookup.issue(subject, audiences, expiration);
  sendCreated(
    u,
    TOKEN_REQUEST,
    {
      apiVersion: TOKEN_REQUEST.apiVersion,
      kind: "TokenRequest",
      metadata: {
        name: r.name,
        namespace: r.namespace,
        uid: accountUid,
        creationTimestamp: timestamp(nowMs),
        ...(meta.managedFields ? { managedFields: meta.managedFields } : {}),
      },
      spec: {
        audiences,
        expirationSeconds: expiration,
        boundObjectRef: spec.boundObjectRef ?? null,
      },
      status: { token: issued.token, expirationTimestamp: timestamp(issued.expiresAtMs) },
    },
    warnings,
  );
};

/** Reads an object the request names (404 as a get of it answers). */
async function getObject(
  u: Parameters<UnstoredHandler>[0],
  plural: string,
  namespace: string,
  name: string,
): Promise<KubeObject> {
  const served = u.ctx.registry.lookup("", "v1", plural);
  if (served === undefined) throw errors.notFound({ group: "", resource: plural }, name);
  return served.store.get(namespace, name);
}

/** The object a token is bound to, checked as kube checks it (kinds, names, uids). */
async function boundObject(
  u: Parameters<UnstoredHandler>[0],
  ref: BoundRef,
): Promise<Pick<TokenSubject, "pod" | "secret" | "node">> {
  const { r } = u;
  const apiVersion = ref.apiVersion ?? "";
  const slash = apiVersion.indexOf("/");
  const group = slash < 0 ? "" : apiVersion.slice(0, slash);
  const version = slash < 0 ? apiVersion : apiVersion.slice(slash + 1);
  const name = ref.name ?? "";
  const kind = ref.kind ?? "";
  let bound: Pick<TokenSubject, "pod" | "secret" | "node">;
  let uid: string;
  if (group === "" && kind === "Pod") {
    const pod = await getObject(u, "pods", r.namespace, name);
    const podSpec = ((pod as Record<string, unknown>).spec ?? {}) as {
      serviceAccountName?: string;
      nodeName?: string;
    };
    if (podSpec.serviceAccountName !== r.name) {
      throw errors.badRequest(
        `cannot bind token for serviceaccount ${JSON.stringify(r.name)} to pod running with different serviceaccount name.`,
      );
    }
    uid = pod.metadata?.uid ?? "";
    let node: ObjectRef | undefined;
    if (podSpec.nodeName) {
      const found = await getObject(u, "nodes", "", podSpec.nodeName).catch(() => undefined);
      node = { name: podSpec.nodeName, uid: found?.metadata?.uid ?? "" };
    }
    bound = { pod: { name, uid }, ...(node ? { node } : {}) };
  } else if (group === "" && kind === "Node") {
    uid = (await getObject(u, "nodes", "", name)).metadata?.uid ?? "";
    bound = { node: { name, uid } };
  } else if (group === "" && kind === "Secret") {
    uid = (await getObject(u, "secrets", r.namespace, name)).metadata?.uid ?? "";
    bound = { secret: { name, uid } };
  } else {
    throw errors.badRequest(
      `cannot bind token to object of type ${group}/${version}, Kind=${kind}`,
    );
  }
  if (ref.uid && ref.uid !== uid) {
    throw errors.conflict(
      { group, resource: kind },
      name,
      `the UID in the bound object reference (${ref.uid}) does not match the UID in record. The object might have been deleted and then recreated`,
    );
  }
  return bound;
}
