import { errorMessage, labelSelectorFromSpec } from "../core/index.ts";

/*
 * ClusterRole aggregation, as kube's clusterrole-aggregation controller does it (it runs in
 * kube-controller-manager, not in kube-apiserver: on a bare kube-apiserver the bootstrap
 * `admin`, `edit` and `view` keep `rules: null`). A ClusterRole with an aggregationRule gets as
 * rules those of every ClusterRole that one of its selectors matches: selector by selector, the
 * matched roles by name (the role itself skipped), their rules in order, each rule once.
 *
 * Pure functions, shared by the API server (its tests of the bootstrap policy) and the control
 * plane's aggregation controller, which runs {@link aggregateClusterRoles} when a ClusterRole
 * changes and writes back the roles it returns (as kube, by server-side apply with field
 * manager `clusterrole-aggregation-controller`, forced). The types take any ClusterRole as
 * objects carry it: lists a Go client writes empty may be absent or null, and count as [].
 */

/** One rule of a ClusterRole (rbac/v1 `PolicyRule`). */
export interface AggregationRule {
  readonly verbs?: readonly string[] | null;
  readonly apiGroups?: readonly string[] | null;
  readonly resources?: readonly string[] | null;
  readonly resourceNames?: readonly string[] | null;
  readonly nonResourceURLs?: readonly string[] | null;
}

/** A ClusterRole as aggregation reads it: its name, labels, rules and aggregationRule. */
export interface AggregatedRole {
  readonly metadata?: {
    readonly name?: string;
    readonly labels?: Readonly<Record<string, string>> | null;
  };
  readonly rules?: readonly AggregationRule[] | null;
  readonly aggregationRule?: {
    readonly clusterRoleSelectors?:
      | readonly {
          readonly matchLabels?: Readonly<Record<string, string>>;
          readonly matchExpressions?: readonly {
            readonly key: string;
            readonly operator: string;
            readonly values?: readonly string[];
          }[];
        }[]
      | null;
  } | null;
}

type PolicyRule = AggregationRule;
type ClusterRole = AggregatedRole;

/** The list, or [] for absent and null. */
function list<T>(value: readonly T[] | null | undefined): readonly T[] {
  return value ?? [];
}

/** The five fields of a rule, lists normalised, as the controller writes and compares them. */
function normalise(rule: PolicyRule): PolicyRule {
  const out: { -readonly [K in keyof PolicyRule]: PolicyRule[K] } = {};
  if (list(rule.apiGroups).length > 0) out.apiGroups = [...list(rule.apiGroups)];
  if (list(rule.resources).length > 0) out.resources = [...list(rule.resources)];
  if (list(rule.resourceNames).length > 0) out.resourceNames = [...list(rule.resourceNames)];
  if (list(rule.nonResourceURLs).length > 0) out.nonResourceURLs = [...list(rule.nonResourceURLs)];
  out.verbs = [...list(rule.verbs)];
  return out;
}

/** Equal as kube's semantic equality has it: the same lists, absent and empty alike. */
function ruleKey(rule: PolicyRule): string {
  return JSON.stringify([
    list(rule.verbs),
    list(rule.apiGroups),
    list(rule.resources),
    list(rule.resourceNames),
    list(rule.nonResourceURLs),
  ]);
}

function nameOf(role: ClusterRole): string {
  return role.metadata?.name ?? "";
}

/**
 * The rules the aggregation gives `role` from `clusterRoles` (kube's `syncClusterRole`), or
 * undefined when `role` has no aggregationRule. An aggregationRule without selectors gives no
 * rules; an empty selector matches every ClusterRole. Throws a `TypeError` naming the bad
 * selector, as the controller fails its sync.
 */
export function aggregatedRules(
  role: ClusterRole,
  clusterRoles: Iterable<ClusterRole>,
): PolicyRule[] | undefined {
  const rule = role.aggregationRule;
  if (rule === undefined || rule === null) return undefined;
  const all = [...clusterRoles].sort((a, b) => compare(nameOf(a), nameOf(b)));
  const rules: PolicyRule[] = [];
  const seen = new Set<string>();
  list(rule.clusterRoleSelectors).forEach((spec, i) => {
    let selector: ReturnType<typeof labelSelectorFromSpec>;
    try {
      selector = labelSelectorFromSpec(spec as Parameters<typeof labelSelectorFromSpec>[0]);
    } catch (err) {
      throw new TypeError(
        `ClusterRole ${JSON.stringify(nameOf(role))}: aggregationRule.clusterRoleSelectors[${i}]: ${errorMessage(err)}`,
      );
    }
    for (const other of all) {
      if (nameOf(other) === nameOf(role) || !selector.matches(other.metadata?.labels ?? {}))
        continue;
      for (const r of list(other.rules)) {
        const key = ruleKey(r);
        if (seen.has(key)) continue;
        seen.add(key);
        rules.push(normalise(r));
      }
    }
  });
  return rules;
}

/** Whether two rule lists are equal as kube compares them (null and [] alike). */
export function sameRules(
  a: readonly PolicyRule[] | null | undefined,
  b: readonly PolicyRule[] | null | undefined,
): boolean {
  const x = list(a);
  const y = list(b);
  return x.length === y.length && x.every((r, i) => ruleKey(r) === ruleKey(y[i]!));
}

/**
 * Aggregates every ClusterRole until nothing changes (a role aggregated into another — `edit`
 * into `admin` — is settled first, as the controller's repeated syncs settle it), and returns
 * the new rules of each role whose rules change, by name. Roles are not modified. A cycle of
 * aggregations settles too: each pass only adds rules some role already has.
 */
export function aggregateClusterRoles(
  clusterRoles: Iterable<ClusterRole>,
): Map<string, PolicyRule[]> {
  const original = new Map<string, ClusterRole>();
  for (const r of clusterRoles) original.set(nameOf(r), r);
  const current = new Map(original);
  const changed = new Map<string, PolicyRule[]>();
  // Each pass that changes something settles at least one more role: |roles| + 1 passes do.
  for (let pass = 0; pass <= current.size; pass++) {
    let progress = false;
    for (const role of [...current.values()].sort((a, b) => compare(nameOf(a), nameOf(b)))) {
      const rules = aggregatedRules(role, current.values());
      if (rules === undefined || sameRules(rules, role.rules)) continue;
      current.set(nameOf(role), { ...role, rules });
      changed.set(nameOf(role), rules);
      progress = true;
    }
    if (!progress) break;
  }
  for (const [name, rules] of changed) {
    if (sameRules(rules, original.get(name)?.rules)) changed.delete(name);
  }
  return changed;
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
