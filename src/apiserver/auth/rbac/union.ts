import type { AccessDecision, Authorizer, UserRules } from "../authorizer.ts";
import { aggregateMessage } from "./go-format.ts";

/**
 * Asks each authorizer in turn, as kube-apiserver's authorizer chain does (apiserver's
 * `union`): the first that allows or denies decides, with its reason; when none has an opinion,
 * the answer is no opinion with every reason given, one a line. The rules are every
 * authorizer's rules, in order; incomplete if any is.
 */
export function unionAuthorizer(authorizers: readonly Authorizer[]): Authorizer {
  const chain = [...authorizers];
  return Object.freeze({
    authorize(user, attributes): AccessDecision {
      const reasons: string[] = [];
      for (const a of chain) {
        const decision = a.authorize(user, attributes);
        if (decision.allowed || decision.denied) return decision;
        if (decision.reason !== "") reasons.push(decision.reason);
      }
      return { allowed: false, denied: false, reason: reasons.join("\n") };
    },
    rulesFor(user, namespace): UserRules {
      const parts = chain.map((a) => a.rulesFor(user, namespace));
      const errors = parts.flatMap((p) =>
        p.evaluationError === undefined ? [] : [p.evaluationError],
      );
      return {
        resourceRules: parts.flatMap((p) => p.resourceRules),
        nonResourceRules: parts.flatMap((p) => p.nonResourceRules),
        incomplete: parts.some((p) => p.incomplete),
        ...(errors.length > 0 ? { evaluationError: aggregateMessage(errors) } : {}),
      };
    },
  } satisfies Authorizer);
}

const NO_RULES: UserRules = Object.freeze({
  resourceRules: Object.freeze([]),
  nonResourceRules: Object.freeze([]),
  incomplete: false,
});

/**
 * Allows every request of a member of one of `groups`, with no reason, and has no opinion on
 * anyone else — what kube-apiserver puts first in its chain for `system:masters`, so that the
 * group's members can do anything whatever RBAC objects exist. Lists no rules (kube's is not a
 * rule resolver: a SelfSubjectRulesReview shows a master the rules RBAC gives it).
 */
export function privilegedGroups(groups: readonly string[]): Authorizer {
  const privileged = new Set(groups);
  const allowed: AccessDecision = Object.freeze({ allowed: true, denied: false, reason: "" });
  const none: AccessDecision = Object.freeze({ allowed: false, denied: false, reason: "" });
  return Object.freeze({
    authorize: (user) => (user.groups.some((g) => privileged.has(g)) ? allowed : none),
    rulesFor: () => NO_RULES,
  } satisfies Authorizer);
}
