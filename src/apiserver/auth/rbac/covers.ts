import { goQuoteList } from "./go-format.ts";
import { trimStars } from "./rule-matching.ts";
import { ALL, list, type PolicyRule } from "./types.ts";

/*
 * Whether one set of rules grants everything another does, as kube decides it before letting a
 * user grant permissions (component-helpers auth/rbac/validation `Covers`), and the words of
 * what is missing (pkg/registry/rbac/validation `CompactRules`, rbac/v1 `CompactString`).
 *
 * Coverage is not the same test as a request's authorization: it compares rule texts. An owner
 * rule on `pods` does not cover `pods/log`; `*` covers every resource, `*` + `/log` every log;
 * an owner's `*` verb covers any verb; resourceNames are covered by an owner without names or
 * with all of them.
 */

/** One verb, one group, one resource and at most one name; or one verb and one URL. */
function breakdownRule(rule: PolicyRule): PolicyRule[] {
  const out: PolicyRule[] = [];
  const verbs = list(rule.verbs);
  const names = list(rule.resourceNames);
  for (const group of list(rule.apiGroups)) {
    for (const resource of list(rule.resources)) {
      for (const verb of verbs) {
        const base = { apiGroups: [group], resources: [resource], verbs: [verb] };
        if (names.length === 0) out.push(base);
        else for (const name of names) out.push({ ...base, resourceNames: [name] });
      }
    }
  }
  for (const url of list(rule.nonResourceURLs)) {
    for (const verb of verbs) out.push({ nonResourceURLs: [url], verbs: [verb] });
  }
  return out;
}

function hasAll(set: readonly string[], wanted: readonly string[]): boolean {
  return wanted.every((w) => set.includes(w));
}

function resourcesCovered(owner: readonly string[], wanted: readonly string[]): boolean {
  if (owner.includes(ALL) || hasAll(owner, wanted)) return true;
  for (const path of wanted) {
    if (owner.includes(path)) continue;
    const slash = path.indexOf("/");
    if (slash < 0) return false;
    if (!owner.includes(`*/${path.slice(slash + 1)}`)) return false;
  }
  return true;
}

function urlCovered(owner: string, wanted: string): boolean {
  return owner === wanted || (owner.endsWith("*") && wanted.startsWith(trimStars(owner)));
}

/** Whether the owner rule covers a broken-down rule (kube's `ruleCovers`). */
function ruleCovers(owner: PolicyRule, sub: PolicyRule): boolean {
  const ownerVerbs = list(owner.verbs);
  const ownerGroups = list(owner.apiGroups);
  const ownerNames = list(owner.resourceNames);
  const subNames = list(sub.resourceNames);
  return (
    (ownerVerbs.includes(ALL) || hasAll(ownerVerbs, list(sub.verbs))) &&
    (ownerGroups.includes(ALL) || hasAll(ownerGroups, list(sub.apiGroups))) &&
    resourcesCovered(list(owner.resources), list(sub.resources)) &&
    (ownerNames.length === 0 || (subNames.length > 0 && hasAll(ownerNames, subNames))) &&
    list(sub.nonResourceURLs).every((url) =>
      list(owner.nonResourceURLs).some((o) => urlCovered(o, url)),
    )
  );
}

/**
 * Whether `owner` rules grant all that `servant` rules do, and the broken-down servant rules
 * (one verb, group, resource, name or URL each) that no owner rule covers, in order.
 */
export function covers(
  owner: readonly PolicyRule[],
  servant: readonly PolicyRule[],
): { readonly covered: boolean; readonly missing: PolicyRule[] } {
  const missing = servant
    .flatMap(breakdownRule)
    .filter((sub) => !owner.some((o) => ruleCovers(o, sub)));
  return { covered: missing.length === 0, missing };
}

/**
 * Joins the rules that differ only by verb — one group, one resource, at most one name, no
 * URLs — into one rule with all their verbs (kube's `CompactRules`); the others stay as they are.
 */
export function compactRules(rules: readonly PolicyRule[]): PolicyRule[] {
  const compacted: PolicyRule[] = [];
  const simple = new Map<string, { verbs: string[]; rule: PolicyRule }>();
  for (const rule of rules) {
    const key = simpleKey(rule);
    if (key === undefined) {
      compacted.push(rule);
      continue;
    }
    const found = simple.get(key);
    if (found === undefined) simple.set(key, { verbs: [...list(rule.verbs)], rule });
    else found.verbs.push(...list(rule.verbs));
  }
  for (const { verbs, rule } of simple.values()) compacted.push({ ...rule, verbs });
  return compacted;
}

function simpleKey(rule: PolicyRule): string | undefined {
  const names = list(rule.resourceNames);
  const groups = list(rule.apiGroups);
  const resources = list(rule.resources);
  if (names.length > 1 || list(rule.nonResourceURLs).length > 0) return undefined;
  if (groups.length !== 1 || resources.length !== 1) return undefined;
  const known = new Set(["verbs", "apiGroups", "resources", "resourceNames", "nonResourceURLs"]);
  if (Object.keys(rule).some((k) => !known.has(k))) return undefined;
  return JSON.stringify([groups[0], resources[0], names.length > 0, names[0] ?? ""]);
}

/**
 * A rule as kube words it in an escalation refusal (rbac/v1 `CompactString`):
 * `{APIGroups:[""], Resources:["pods"], Verbs:["get" "list"]}`; empty lists are left out.
 */
export function compactString(rule: PolicyRule): string {
  const parts: string[] = [];
  const add = (label: string, values: readonly string[] | null | undefined) => {
    if (list(values).length > 0) parts.push(`${label}:${goQuoteList(list(values))}`);
  };
  add("APIGroups", rule.apiGroups);
  add("Resources", rule.resources);
  add("NonResourceURLs", rule.nonResourceURLs);
  add("ResourceNames", rule.resourceNames);
  add("Verbs", rule.verbs);
  return `{${parts.join(", ")}}`;
}
