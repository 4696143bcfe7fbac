import type {
  AccessAttributes,
  AccessDecision,
  Authorizer,
  NonResourceRule,
  ResourceRule,
  UserRules,
} from "../authorizer.ts";
import type { UserInfo } from "../user.ts";
import { aggregateMessage } from "./go-format.ts";
import type { RbacObjects } from "./objects.ts";
import { ruleAllows } from "./rule-matching.ts";
import { describeRuleSource, RuleResolver } from "./rule-resolver.ts";
import { list } from "./types.ts";

/** Options of an {@link RbacAuthorizer}. */
export interface RbacAuthorizerOptions {
  /** The Roles, ClusterRoles and bindings to decide by. */
  readonly objects: RbacObjects;
}

const NO_OPINION: AccessDecision = Object.freeze({ allowed: false, denied: false, reason: "" });

/**
 * kube's RBAC authorizer (plugin/pkg/auth/authorizer/rbac): allows a request when a rule of a
 * role bound to the user allows it, and otherwise has no opinion — RBAC never denies. The
 * reasons are kube's: `RBAC: allowed by ClusterRoleBinding "…" of ClusterRole "…" to Group "…"`,
 * and, with no rule allowing, "" or `RBAC: <the roles it could not read>`.
 *
 * It does not allow `system:masters` by itself: kube-apiserver puts a privileged-group
 * authorizer before RBAC for that (see {@link privilegedGroups}), and the bootstrap policy binds
 * cluster-admin to the group as well.
 */
export class RbacAuthorizer implements Authorizer {
  readonly #resolver: RuleResolver;

  constructor(options: RbacAuthorizerOptions) {
    this.#resolver = new RuleResolver({ objects: options.objects });
  }

  authorize(user: UserInfo, attributes: AccessAttributes): AccessDecision {
    const namespace = attributes.kind === "resource" ? attributes.namespace : "";
    let reason: string | undefined;
    const errors: string[] = [];
    this.#resolver.visitRulesFor(user, namespace, (source, rule, error) => {
      if (source !== undefined && rule !== undefined && ruleAllows(attributes, rule)) {
        reason = `RBAC: allowed by ${describeRuleSource(source)}`;
        return false;
      }
      if (error !== undefined) errors.push(error.message);
      return true;
    });
    if (reason !== undefined) return { allowed: true, denied: false, reason };
    if (errors.length === 0) return NO_OPINION;
    return { allowed: false, denied: false, reason: `RBAC: ${aggregateMessage(errors)}` };
  }

  /**
   * The rules that apply to `user` in `namespace`, as kube's RBAC authorizer lists them for a
   * SelfSubjectRulesReview: a rule with resources is a resource rule, one with non-resource
   * URLs a non-resource rule. `incomplete` is always false, as kube's RBAC reports it; the roles
   * it could not read are in `evaluationError`.
   */
  rulesFor(user: UserInfo, namespace: string): UserRules {
    const { rules, errors } = this.#resolver.rulesFor(user, namespace);
    const resourceRules: ResourceRule[] = [];
    const nonResourceRules: NonResourceRule[] = [];
    for (const rule of rules) {
      const verbs = list(rule.verbs);
      if (list(rule.resources).length > 0) {
        const names = list(rule.resourceNames);
        resourceRules.push({
          verbs,
          apiGroups: list(rule.apiGroups),
          resources: list(rule.resources),
          ...(names.length > 0 ? { resourceNames: names } : {}),
        });
      }
      if (list(rule.nonResourceURLs).length > 0) {
        nonResourceRules.push({ verbs, nonResourceURLs: list(rule.nonResourceURLs) });
      }
    }
    return {
      resourceRules,
      nonResourceRules,
      incomplete: false,
      ...(errors.length > 0
        ? { evaluationError: aggregateMessage(errors.map((e) => e.message)) }
        : {}),
    };
  }
}
