import {
  ApiError,
  errors,
  type KubeObject,
  type LabelSelectorSpec,
  labelSelectorFromSpec,
  type StatusCause,
} from "../../core/index.ts";

/*
 * The rules an eviction (pods/{name}/eviction) applies to a pod and the PodDisruptionBudgets
 * that cover it, as kube-apiserver's eviction REST applies them — pure, so the handler
 * (pod-eviction.ts) only reads and writes.
 */

/** A condition of a PodDisruptionBudget's status (meta/v1 Condition). */
export interface BudgetCondition {
  type: string;
  status: string;
  observedGeneration?: number;
  lastTransitionTime?: string;
  reason?: string;
  message?: string;
}

/** A PodDisruptionBudget's status, as the eviction reads and writes it. */
export interface BudgetStatus {
  observedGeneration?: number;
  disruptedPods?: Record<string, string>;
  disruptionsAllowed?: number;
  currentHealthy?: number;
  desiredHealthy?: number;
  expectedPods?: number;
  conditions?: BudgetCondition[];
  [field: string]: unknown;
}

/** The parts of a policy/v1 PodDisruptionBudget the eviction reads. */
export interface Budget extends KubeObject {
  spec?: { selector?: LabelSelectorSpec | null; unhealthyPodEvictionPolicy?: string };
  status?: BudgetStatus;
}

/** The parts of a Pod the eviction reads. */
export interface EvictedPod extends KubeObject {
  status?: { phase?: string; conditions?: { type?: string; status?: string }[] };
}

/** kube's limit on `status.disruptedPods`: past it, evictions wait for the PDB controller. */
const MAX_DISRUPTED_PODS = 2000;
const TOO_MANY = "Cannot evict pod as it would violate the pod's disruption budget.";
const BUDGETS = { group: "policy", resource: "poddisruptionbudget" };

/**
 * True where the pod may go without asking its budgets: it has finished (Succeeded, Failed),
 * has not started (Pending), or is being deleted already.
 */
export function canIgnoreBudgets(pod: EvictedPod): boolean {
  const phase = pod.status?.phase;
  return (
    phase === "Succeeded" ||
    phase === "Failed" ||
    phase === "Pending" ||
    Boolean(pod.metadata?.deletionTimestamp)
  );
}

/**
 * True where the deletion must be of the pod as read (its resourceVersion a precondition), lest
 * it became ready meanwhile: all but finished pods and pods being deleted.
 */
export function enforcesResourceVersion(pod: EvictedPod): boolean {
  const phase = pod.status?.phase;
  return !(phase === "Succeeded" || phase === "Failed" || pod.metadata?.deletionTimestamp);
}

/** kube's IsPodReady: the pod's Ready condition is True. */
export function isPodReady(pod: EvictedPod): boolean {
  return (pod.status?.conditions ?? []).some((c) => c.type === "Ready" && c.status === "True");
}

/**
 * The budgets of `pod`'s namespace whose selector selects its labels. A budget with no selector
 * selects nothing; one with an invalid selector does not match.
 */
export function budgetsOf(budgets: readonly Budget[], pod: EvictedPod): Budget[] {
  const namespace = pod.metadata?.namespace;
  const labels = pod.metadata?.labels ?? {};
  return budgets.filter((b) => {
    const selector = b.spec?.selector;
    if (b.metadata?.namespace !== namespace || selector == null) return false;
    try {
      return labelSelectorFromSpec(selector).matches(labels);
    } catch {
      return false;
    }
  });
}

/**
 * True where an unready pod may go without using up a disruption: its budget lets unhealthy pods
 * go always (AlwaysAllow), or has the healthy pods it wants (and wants some).
 */
export function unreadyMayGo(budget: Budget): boolean {
  if (budget.spec?.unhealthyPodEvictionPolicy === "AlwaysAllow") return true;
  const current = budget.status?.currentHealthy ?? 0;
  const desired = budget.status?.desiredHealthy ?? 0;
  return current >= desired && desired > 0;
}

/** 429 with a DisruptionBudget cause saying `why`, with kube's retry advice (0 is none). */
function tooManyRequests(why: string, retryAfterSeconds: number): ApiError {
  const causes: StatusCause[] = [{ reason: "DisruptionBudget", message: why }];
  return ApiError.of(
    "TooManyRequests",
    TOO_MANY,
    retryAfterSeconds > 0 ? { causes, retryAfterSeconds } : { causes },
  );
}

/** 429, retry in 10 s: the budget's status is not yet of its spec (or the pod changed). */
export function budgetInProgress(name: string): ApiError {
  return tooManyRequests(
    `The disruption budget ${name} is still being processed by the server.`,
    10,
  );
}

/** Why a budget with no disruption left refuses one, as kube words it. */
function refusal(budget: Budget): string {
  const name = budget.metadata?.name ?? "";
  const status = budget.status ?? {};
  const current = status.currentHealthy ?? 0;
  const desired = status.desiredHealthy ?? 0;
  const c = status.conditions?.find((x) => x.type === "DisruptionAllowed");
  const down = c !== undefined && c.status === "False" && (c.message ?? "") !== "";
  if (down && c.reason === "SyncFailed")
    return `The disruption budget ${name} does not allow evicting pods currently because it failed sync: ${c.message}`;
  if (current <= desired)
    return `The disruption budget ${name} needs ${desired} healthy pods and has ${current} currently`;
  if (down)
    return `The disruption budget ${name} does not allow evicting pods currently (${c.reason ?? ""}): ${c.message}`;
  return `The disruption budget ${name} does not allow evicting pods currently`;
}

/**
 * The budget's status once it has allowed the disruption of `podName` at `now` (kube's
 * checkAndDecrement): one disruption fewer, the pod listed in `disruptedPods`, and — when none
 * is left — a False DisruptionAllowed condition (InsufficientPods). Throws kube's refusals: 429
 * while the status is of an older generation (retry in 10 s) or no disruption is left, 403 for a
 * negative count or too many disruptions the PDB controller has not yet seen.
 */
export function decrementBudget(budget: Budget, podName: string, now: string): BudgetStatus {
  const name = budget.metadata?.name ?? "";
  const status = budget.status ?? {};
  const allowed = status.disruptionsAllowed ?? 0;
  if ((status.observedGeneration ?? 0) < (budget.metadata?.generation ?? 0))
    throw budgetInProgress(name);
  if (allowed < 0) throw errors.forbidden(BUDGETS, name, "pdb disruptions allowed is negative");
  if (Object.keys(status.disruptedPods ?? {}).length > MAX_DISRUPTED_PODS) {
    throw errors.forbidden(
      BUDGETS,
      name,
      "DisruptedPods map too big - too many evictions not confirmed by PDB controller",
    );
  }
  if (allowed === 0) throw tooManyRequests(refusal(budget), 0);
  const next: BudgetStatus = {
    ...status,
    disruptionsAllowed: allowed - 1,
    disruptedPods: { ...status.disruptedPods, [podName]: now },
  };
  if (allowed - 1 === 0) next.conditions = withInsufficientPods(status, now);
  return next;
}

/** The conditions with DisruptionAllowed False (InsufficientPods), as kube's SetStatusCondition. */
function withInsufficientPods(status: BudgetStatus, now: string): BudgetCondition[] {
  const generation = status.observedGeneration ?? 0;
  const conditions = (status.conditions ?? []).map((c) => ({ ...c }));
  const existing = conditions.find((c) => c.type === "DisruptionAllowed");
  if (existing === undefined) {
    conditions.push({
      type: "DisruptionAllowed",
      status: "False",
      ...(generation === 0 ? {} : { observedGeneration: generation }),
      lastTransitionTime: now,
      reason: "InsufficientPods",
      message: "",
    });
    return conditions;
  }
  if (existing.status !== "False") {
    existing.status = "False";
    existing.lastTransitionTime = now;
  }
  existing.reason = "InsufficientPods";
  existing.message = "";
  if (generation === 0) delete existing.observedGeneration;
  else existing.observedGeneration = generation;
  return conditions;
}
