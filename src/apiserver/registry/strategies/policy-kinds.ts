import { createdStatus, eachAt, type KindRules, specOf } from "./kind-rules.ts";
import { type Json, rec, recordAt, setDefault } from "./util.ts";

/*
 * The kinds that set policy for other objects — LimitRanges and ResourceQuotas, disruption
 * budgets, priority classes, API priority and fairness, RBAC bindings — as kube-apiserver 1.36
 * defaults and creates them. Their first status is the empty one kube's strategies start from
 * (the controllers that fill it in do not run here).
 */

/**
 * A container LimitRange item: the default limit is the max where unset, the default request
 * the default limit, else the min.
 */
function defaultLimitRangeItem(item: Json): void {
  if (item.type !== "Container") return;
  const limit: Json = { ...recordAt(item, "default") };
  for (const [name, value] of Object.entries(recordAt(item, "max") ?? {})) {
    setDefault(limit, name, value);
  }
  const request: Json = { ...recordAt(item, "defaultRequest") };
  for (const [name, value] of Object.entries(limit)) setDefault(request, name, value);
  for (const [name, value] of Object.entries(recordAt(item, "min") ?? {})) {
    setDefault(request, name, value);
  }
  if (Object.keys(limit).length > 0) item.default = limit;
  if (Object.keys(request).length > 0) item.defaultRequest = request;
}

const limitRange: KindRules = {
  defaults(object) {
    for (const item of eachAt(specOf(object), "limits")) defaultLimitRangeItem(item);
  },
};

const resourceQuota: KindRules = { returnDeletedObject: true, ...createdStatus(() => ({})) };

/** A PodDisruptionBudget's counts start at zero; Go writes them all. */
const podDisruptionBudget: KindRules = createdStatus(() => ({
  disruptionsAllowed: 0,
  currentHealthy: 0,
  desiredHealthy: 0,
  expectedPods: 0,
}));

const priorityClass: KindRules = {
  defaults(object) {
    setDefault(rec(object), "preemptionPolicy", "PreemptLowerPriority");
  },
};

const flowSchema: KindRules = {
  defaults(object) {
    const spec = specOf(object);
    if (spec.matchingPrecedence === undefined || spec.matchingPrecedence === 0) {
      spec.matchingPrecedence = 1000;
    }
  },
  ...createdStatus(() => ({})),
};

/**
 * A limited priority level gets 30 shares and lends none; its queues, 64 of them, deal hands of
 * 8 and hold 50 requests each. An exempt one gets no shares and lends none.
 */
const priorityLevelConfiguration: KindRules = {
  defaults(object) {
    const spec = specOf(object);
    const limited = recordAt(spec, "limited");
    if (limited !== undefined) {
      setDefault(limited, "nominalConcurrencyShares", 30);
      setDefault(limited, "lendablePercent", 0);
      const queuing = recordAt(recordAt(limited, "limitResponse") ?? {}, "queuing");
      if (queuing !== undefined) {
        for (const [key, value] of [
          ["handSize", 8],
          ["queues", 64],
          ["queueLengthLimit", 50],
        ] as const) {
          if (queuing[key] === undefined || queuing[key] === 0) queuing[key] = value;
        }
      }
    }
    const exempt = recordAt(spec, "exempt");
    if (exempt !== undefined) {
      setDefault(exempt, "nominalConcurrencyShares", 0);
      setDefault(exempt, "lendablePercent", 0);
    }
  },
  ...createdStatus(() => ({})),
};

const RBAC = "rbac.authorization.k8s.io";

/** A binding's role and its users and groups are RBAC's. */
const binding: KindRules = {
  defaults(object) {
    const o = rec(object);
    const roleRef = recordAt(o, "roleRef");
    if (roleRef !== undefined && !roleRef.apiGroup) roleRef.apiGroup = RBAC;
    for (const subject of eachAt(o, "subjects")) {
      // A service account's group is core's, "", which kube leaves out.
      if (!subject.apiGroup && (subject.kind === "User" || subject.kind === "Group")) {
        subject.apiGroup = RBAC;
      }
    }
  },
};

/** The kinds' rules, by `group/plural` (`plural` in the core group). */
export const POLICY_KINDS: Readonly<Record<string, KindRules>> = {
  limitranges: limitRange,
  resourcequotas: resourceQuota,
  "policy/poddisruptionbudgets": podDisruptionBudget,
  "scheduling.k8s.io/priorityclasses": priorityClass,
  "flowcontrol.apiserver.k8s.io/flowschemas": flowSchema,
  "flowcontrol.apiserver.k8s.io/prioritylevelconfigurations": priorityLevelConfiguration,
  [`${RBAC}/rolebindings`]: binding,
  [`${RBAC}/clusterrolebindings`]: binding,
};
