import type { AccessAttributes } from "../authorizer.ts";
import { ALL, list, type PolicyRule } from "./types.ts";

// Whether one PolicyRule allows a request, exactly as kube's RBAC authorizer decides it
// (`RuleAllows` and the rbac/v1 evaluation helpers). Note what kube does NOT match: a rule on
// `pods` does not allow `pods/log`, and `pods/*` is not a wildcard: the only wildcards are `*`
// and, for a subresource, `*/scale` (any resource's scale).

/** The rule names the verb, or `*`. */
export function verbMatches(rule: PolicyRule, verb: string): boolean {
  return list(rule.verbs).some((v) => v === ALL || v === verb);
}

/** The rule names the API group ("" is the core group), or `*`. */
export function apiGroupMatches(rule: PolicyRule, group: string): boolean {
  return list(rule.apiGroups).some((g) => g === ALL || g === group);
}

// The rule names the resource: `*`; the resource exactly (`pods`, or `pods/log` for the log
// subresource); or, for a subresource request, `*/<subresource>` (`*/scale`).
/** The rule names the resource (see above); `combined` is `resource/subresource` or `resource`. */
export function resourceMatches(rule: PolicyRule, combined: string, subresource: string): boolean {
  for (const r of list(rule.resources)) {
    if (r === ALL || r === combined) return true;
    // kube checks the length, the "*/" prefix and the suffix: the same as equality here.
    if (subresource !== "" && r === `*/${subresource}`) return true;
  }
  return false;
}

/** The rule has no resourceNames (every name), or names this one. */
export function resourceNameMatches(rule: PolicyRule, name: string): boolean {
  const names = list(rule.resourceNames);
  return names.length === 0 || names.includes(name);
}

/** The rule names the path, `*`, or a prefix of it ending in `*` (`/healthz/*`, `/api*`). */
export function nonResourceURLMatches(rule: PolicyRule, path: string): boolean {
  for (const url of list(rule.nonResourceURLs)) {
    if (url === ALL || url === path) return true;
    if (url.endsWith("*") && path.startsWith(trimStars(url))) return true;
  }
  return false;
}

/** Go's `strings.TrimRight(s, "*")`. */
export function trimStars(s: string): string {
  let end = s.length;
  while (end > 0 && s[end - 1] === "*") end--;
  return s.slice(0, end);
}

/** Whether the rule allows the request (kube's `RuleAllows`). */
export function ruleAllows(attributes: AccessAttributes, rule: PolicyRule): boolean {
  if (attributes.kind === "non-resource") {
    return verbMatches(rule, attributes.verb) && nonResourceURLMatches(rule, attributes.path);
  }
  const { resource, subresource } = attributes;
  const combined = subresource === "" ? resource : `${resource}/${subresource}`;
  return (
    verbMatches(rule, attributes.verb) &&
    apiGroupMatches(rule, attributes.group) &&
    resourceMatches(rule, combined, subresource) &&
    resourceNameMatches(rule, attributes.name)
  );
}

/** Whether any of the rules allows the request (kube's `RulesAllow`). */
export function rulesAllow(attributes: AccessAttributes, rules: readonly PolicyRule[]): boolean {
  return rules.some((rule) => ruleAllows(attributes, rule));
}
