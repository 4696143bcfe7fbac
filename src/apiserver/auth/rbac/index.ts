/*
 * RBAC as kube-apiserver enforces it: the authorizer (and the chain it sits in), the 403 text,
 * the checks on writes of RBAC objects and the bootstrap policy. ClusterRole aggregation, which
 * kube runs in kube-controller-manager, is kontroller/resources' (rbac-aggregation.ts), for the
 * control plane's controller.
 */

export {
  AGGREGATE_TO_ADMIN,
  AGGREGATE_TO_EDIT,
  AGGREGATE_TO_VIEW,
  AUTOUPDATE_ANNOTATION,
  BOOTSTRAPPING_LABEL,
  bootstrapClusterRoleBindings,
  bootstrapClusterRoles,
} from "./bootstrap-policy.ts";
export { compactRules, compactString, covers } from "./covers.ts";
export {
  type BindingWrite,
  EscalationChecks,
  type EscalationChecksOptions,
  onlyGcFieldsChange,
  type RoleWrite,
} from "./escalation.ts";
export { forbiddenError, forbiddenMessage } from "./forbidden.ts";
export {
  MemoryRbacObjects,
  type RbacObjectSet,
  type RbacObjects,
  type RbacResource,
} from "./objects.ts";
export { RbacAuthorizer, type RbacAuthorizerOptions } from "./rbac-authorizer.ts";
export { ruleAllows, rulesAllow } from "./rule-matching.ts";
export {
  appliesTo,
  appliesToUser,
  describeRuleSource,
  type ResolutionError,
  RuleResolver,
  type RuleResolverOptions,
  type RuleSource,
  type RuleVisitor,
} from "./rule-resolver.ts";
export type {
  ClusterRole,
  ClusterRoleBinding,
  LabelSelectorSpec,
  PolicyRule,
  Role,
  RoleBinding,
  RoleRef,
  Subject,
} from "./types.ts";
export { RBAC_GROUP } from "./types.ts";
export { privilegedGroups, unionAuthorizer } from "./union.ts";
