import type { UserInfo } from "./user.ts";

/*
 * What a user may do. Until the server authorizes requests (RBAC), every request is allowed:
 * the answers are those of kube-apiserver run with `--authorization-mode=AlwaysAllow`.
 */

/** What a request does, as kube's authorizer attributes describe it. */
export type AccessAttributes =
  | {
      readonly kind: "resource";
      readonly verb: string;
      readonly namespace: string;
      readonly group: string;
      readonly version: string;
      readonly resource: string;
      readonly subresource: string;
      readonly name: string;
    }
  | { readonly kind: "non-resource"; readonly verb: string; readonly path: string };

/** An authorizer's decision: `allowed`, `denied` (an explicit no), or neither (no opinion). */
export interface AccessDecision {
  readonly allowed: boolean;
  readonly denied: boolean;
  /** Why, as the authorizer words it ("" when it has nothing to say). */
  readonly reason: string;
}

/** A rule on resources (authorization.k8s.io/v1 `ResourceRule`). */
export interface ResourceRule {
  readonly verbs: readonly string[];
  readonly apiGroups: readonly string[];
  readonly resources: readonly string[];
  /** @default every name */
  readonly resourceNames?: readonly string[];
}

/** A rule on other paths (authorization.k8s.io/v1 `NonResourceRule`). */
export interface NonResourceRule {
  readonly verbs: readonly string[];
  readonly nonResourceURLs: readonly string[];
}

/** What a user may do in a namespace (authorization.k8s.io/v1 `SubjectRulesReviewStatus`). */
export interface UserRules {
  readonly resourceRules: readonly ResourceRule[];
  readonly nonResourceRules: readonly NonResourceRule[];
  /** The rules are known to be incomplete (an authorizer could not list its own). */
  readonly incomplete: boolean;
  /**
   * Why some rules could not be read (a binding's role is missing), as the review's
   * `status.evaluationError` says it; the rules listed still hold.
   * @default none
   */
  readonly evaluationError?: string;
}

/** Decides what users may do (kube's `authorizer.Authorizer` and `RuleResolver`). */
export interface Authorizer {
  /** Whether `user` may do what `attributes` describe. */
  authorize(user: UserInfo, attributes: AccessAttributes): AccessDecision;
  /** What `user` may do in `namespace`. */
  rulesFor(user: UserInfo, namespace: string): UserRules;
}

const ALLOWED: AccessDecision = Object.freeze({ allowed: true, denied: false, reason: "" });

const EVERYTHING: UserRules = Object.freeze({
  resourceRules: Object.freeze([
    Object.freeze({ verbs: ["*"], apiGroups: ["*"], resources: ["*"] }),
  ]),
  nonResourceRules: Object.freeze([Object.freeze({ verbs: ["*"], nonResourceURLs: ["*"] })]),
  incomplete: false,
});

/**
 * Allows every request of every user, with kube's AlwaysAllow answers: no reason, and one rule
 * of `*` for resources and one for other paths.
 */
export const alwaysAllow: Authorizer = Object.freeze({
  authorize: () => ALLOWED,
  rulesFor: () => EVERYTHING,
});
