import type { AccessAttributes } from "../auth/authorizer.ts";
import type { UserInfo } from "../auth/user.ts";
import type { AuditDecision, AuditPolicy, AuditPolicyRule, AuditStage } from "./types.ts";

/*
 * Which requests an audit policy records, and at what level, as kube's policy checker decides:
 * rules are tried in order and the first that matches decides; a request no rule matches is
 * not recorded (level None). A rule matches when every selector it has does: users, groups,
 * verbs, then resources and namespaces (resource requests only) or non-resource URLs (other
 * paths only). Users are who authenticated, before any impersonation, as kube evaluates the
 * policy before it impersonates.
 */

/** The policy that records every request at level Metadata. */
export const METADATA_POLICY: AuditPolicy = Object.freeze({
  apiVersion: "audit.k8s.io/v1",
  kind: "Policy",
  rules: Object.freeze([Object.freeze({ level: "Metadata" as const })]),
});

/** Decides the level and omitted stages of requests by a policy (kube's policy rule evaluator). */
export class AuditPolicyChecker {
  readonly #rules: readonly { rule: AuditPolicyRule; omitStages: readonly AuditStage[] }[];
  readonly #omitStages: readonly AuditStage[];
  readonly #omitManagedFields: boolean;

  constructor(policy: AuditPolicy) {
    this.#omitStages = policy.omitStages ?? [];
    this.#omitManagedFields = policy.omitManagedFields ?? false;
    // Each rule omits the policy's stages too.
    this.#rules = policy.rules.map((rule) => ({
      rule,
      omitStages: [...new Set([...this.#omitStages, ...(rule.omitStages ?? [])])],
    }));
  }

  /** The decision for a request of `user` (undefined: not authenticated). */
  decide(user: UserInfo | undefined, attributes: AccessAttributes): AuditDecision {
    for (const { rule, omitStages } of this.#rules) {
      if (ruleMatches(rule, user, attributes)) {
        return {
          level: rule.level,
          omitStages,
          omitManagedFields: rule.omitManagedFields ?? this.#omitManagedFields,
        };
      }
    }
    return {
      level: "None",
      omitStages: this.#omitStages,
      omitManagedFields: this.#omitManagedFields,
    };
  }
}

/** Whether one rule selects the request (kube's `ruleMatches`). */
export function ruleMatches(
  rule: AuditPolicyRule,
  user: UserInfo | undefined,
  attributes: AccessAttributes,
): boolean {
  if (nonEmpty(rule.users) && (user === undefined || !rule.users.includes(user.username))) {
    return false;
  }
  if (nonEmpty(rule.userGroups)) {
    if (user === undefined || !user.groups.some((g) => rule.userGroups!.includes(g))) return false;
  }
  if (nonEmpty(rule.verbs) && !rule.verbs.includes(attributes.verb)) return false;
  if (nonEmpty(rule.namespaces) || nonEmpty(rule.resources)) {
    return resourceMatches(rule, attributes);
  }
  if (nonEmpty(rule.nonResourceURLs)) {
    return (
      attributes.kind === "non-resource" &&
      rule.nonResourceURLs.some((spec) => pathMatches(attributes.path, spec))
    );
  }
  return true;
}

function nonEmpty<T>(list: readonly T[] | undefined): list is readonly T[] {
  return list !== undefined && list.length > 0;
}

/** `*`, the path itself, or a prefix of it ending `*`. */
function pathMatches(path: string, spec: string): boolean {
  if (spec === "*" || spec === path) return true;
  return spec.endsWith("*") && path.startsWith(spec.replace(/\*+$/, ""));
}

function resourceMatches(rule: AuditPolicyRule, a: AccessAttributes): boolean {
  if (a.kind !== "resource") return false;
  // A cluster-scoped request's namespace is "".
  if (nonEmpty(rule.namespaces) && !rule.namespaces.includes(a.namespace)) return false;
  if (!nonEmpty(rule.resources)) return true;
  const combined = a.subresource === "" ? a.resource : `${a.resource}/${a.subresource}`;
  for (const gr of rule.resources) {
    const group = gr.group ?? "";
    if (group !== a.group && group !== "*") continue;
    const resources = gr.resources ?? [];
    if (resources.length === 0) return true;
    const names = gr.resourceNames ?? [];
    if (names.length > 0 && !names.includes(a.name)) continue;
    for (const res of resources) {
      if (res === combined || res === "*") return true;
      if (a.subresource !== "" && res.startsWith("*/") && res.slice(2) === a.subresource)
        return true;
      if (res.endsWith("/*") && res.slice(0, -2) === a.resource) return true;
    }
  }
  return false;
}
