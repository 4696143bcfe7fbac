import { errors } from "../../core/index.ts";
import type { UserInfo } from "../auth/user.ts";
import { timestamp } from "../registry/deletion.ts";
import { goString, goStrings, goStruct } from "./typed-body.ts";
import {
  type CreateTarget,
  readCreateBody,
  sendCreated,
  type UnstoredHandler,
} from "./unstored-create.ts";

/*
 * authentication.k8s.io/v1: SelfSubjectReview (who am I?) and TokenReview (whom does this token
 * authenticate?), answered as kube-apiserver answers them, by the server's authenticator.
 */

const API_VERSION = "authentication.k8s.io/v1";

const ANY_STATUS = { kind: "any", go: "interface {}" } as const;

const SELF_SUBJECT_REVIEW: CreateTarget = {
  kind: "SelfSubjectReview",
  version: "v1",
  apiVersion: API_VERSION,
  fields: { status: ANY_STATUS },
};

const TOKEN_REVIEW: CreateTarget = {
  kind: "TokenReview",
  version: "v1",
  apiVersion: API_VERSION,
  fields: {
    spec: goStruct("v1.TokenReviewSpec", { token: goString, audiences: goStrings }),
    status: ANY_STATUS,
  },
};

/** authentication.k8s.io/v1 `UserInfo`, its empty fields left out as kube's encoding does. */
export function userInfoOf(user: UserInfo): Record<string, unknown> {
  return {
    username: user.username,
    ...(user.uid ? { uid: user.uid } : {}),
    groups: [...user.groups],
    ...(user.extra && Object.keys(user.extra).length > 0
      ? { extra: Object.fromEntries(Object.entries(user.extra).map(([k, v]) => [k, [...v]])) }
      : {}),
  };
}

/**
 * POST selfsubjectreviews: the requester's user, in a new review stamped with the time (what
 * `kubectl auth whoami` prints).
 */
export const selfSubjectReview: UnstoredHandler = async (u) => {
  const { warnings } = await readCreateBody(u, SELF_SUBJECT_REVIEW);
  sendCreated(
    u,
    SELF_SUBJECT_REVIEW,
    {
      apiVersion: API_VERSION,
      kind: "SelfSubjectReview",
      metadata: { creationTimestamp: timestamp(u.ctx.clock.now()) },
      status: { userInfo: userInfoOf(u.user) },
    },
    warnings,
  );
};

/**
 * POST tokenreviews: whom `spec.token` authenticates, for `spec.audiences` (the server's when
 * none): the review sent back with its status — `authenticated`, the user and the audiences
 * granted, or the error (an empty user beside it, as kube writes it).
 */
export const tokenReview: UnstoredHandler = async (u) => {
  const { object, warnings } = await readCreateBody(u, TOKEN_REVIEW);
  const spec = (object.spec ?? {}) as { token?: string; audiences?: string[] };
  if (!spec.token) throw errors.badRequest("token is required for TokenReview in authentication");
  const result = await u.ctx.auth.authenticator.reviewToken(spec.token, spec.audiences ?? []);
  const status = result.authenticated
    ? {
        authenticated: true,
        user: userInfoOf(result.user),
        audiences: result.audiences,
      }
    : { user: {}, ...(result.error === "" ? {} : { error: result.error }) };
  sendCreated(u, TOKEN_REVIEW, { ...object, status }, warnings);
};
