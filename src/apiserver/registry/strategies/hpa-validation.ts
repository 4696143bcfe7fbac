import { errors, type StatusCause } from "../../../core/index.ts";
import { field } from "../field-errors.ts";
import {
  metricCauses,
  num,
  quantitySign,
  type RefRules,
  refCauses,
  SOURCES,
  str,
} from "./hpa-metric-validation.ts";
import { isQuantity } from "./quantity.ts";
import { arrayAt, type Json, recordAt } from "./util.ts";

/*
 * kube's validation of a HorizontalPodAutoscaler (autoscaling/validation), on the v2 form: the
 * same field paths, messages and order of causes. A metric's own rules are in
 * hpa-metric-validation.ts.
 */

/** What kube's strategy decides, from the new and old object, before validating a spec. */
export interface HpaValidationOptions {
  readonly minReplicasLowerBound: number;
  readonly scaleTargetRef: RefRules;
  readonly objectMetrics: RefRules;
}

const SELECT_POLICIES = ["Disabled", "Max", "Min"];
const POLICY_TYPES = ["Percent", "Pods"];
const MAX_PERIOD_SECONDS = 1800;
const MAX_STABILIZATION_WINDOW_SECONDS = 3600;

/** The validation of `spec` (kube's validateHorizontalPodAutoscalerSpec). */
export function hpaSpecCauses(spec: Json, o: HpaValidationOptions): StatusCause[] {
  const causes: StatusCause[] = [];
  const min = num(spec.minReplicas);
  const max = num(spec.maxReplicas) ?? 0;
  if (min !== undefined && min < o.minReplicasLowerBound)
    causes.push(
      field.invalid(
        "spec.minReplicas",
        min,
        `must be greater than or equal to ${o.minReplicasLowerBound}`,
      ),
    );
  if (max === 0) causes.push(field.required("spec.maxReplicas", "must be set and greater than 0"));
  else if (max < 0)
    causes.push(field.invalid("spec.maxReplicas", max, "must be greater than or equal to 1"));
  if (min !== undefined && max < min)
    causes.push(
      field.invalid("spec.maxReplicas", max, "must be greater than or equal to `minReplicas`"),
    );
  causes.push(
    ...refCauses(recordAt(spec, "scaleTargetRef") ?? {}, "spec.scaleTargetRef", o.scaleTargetRef),
  );
  const metrics = (arrayAt(spec, "metrics") ?? []).map((m) => (m ?? {}) as Json);
  metrics.forEach((m, i) => {
    causes.push(...metricCauses(m, `spec.metrics[${i}]`, o.objectMetrics));
  });
  if (min === 0 && !metrics.some((m) => m.type === "Object" || m.type === "External"))
    causes.push(
      field.forbidden(
        "spec.metrics",
        "must specify at least one Object or External metric to support scaling to zero replicas",
      ),
    );
  const behavior = recordAt(spec, "behavior");
  if (behavior !== undefined) {
    causes.push(...rulesCauses(behavior.scaleUp, "spec.behavior.scaleUp"));
    causes.push(...rulesCauses(behavior.scaleDown, "spec.behavior.scaleDown"));
  }
  return causes;
}

function rulesCauses(value: unknown, path: string): StatusCause[] {
  if (typeof value !== "object" || value === null) return [];
  const rules = value as Json;
  const causes: StatusCause[] = [];
  const window = num(rules.stabilizationWindowSeconds);
  if (window !== undefined && window < 0)
    causes.push(
      field.invalid(
        `${path}.stabilizationWindowSeconds`,
        window,
        "must be greater than or equal to zero",
      ),
    );
  if (window !== undefined && window > MAX_STABILIZATION_WINDOW_SECONDS)
    causes.push(
      field.invalid(
        `${path}.stabilizationWindowSeconds`,
        window,
        `must be less than or equal to ${MAX_STABILIZATION_WINDOW_SECONDS}`,
      ),
    );
  if (rules.selectPolicy != null && !SELECT_POLICIES.includes(str(rules.selectPolicy)))
    causes.push(field.notSupported(`${path}.selectPolicy`, rules.selectPolicy, SELECT_POLICIES));
  const policies = arrayAt(rules, "policies") ?? [];
  if (policies.length === 0)
    causes.push(field.required(`${path}.policies`, "must specify at least one Policy"));
  policies.forEach((raw, i) => {
    const policy = (raw ?? {}) as Json;
    const at = `${path}.policies[${i}]`;
    const type = str(policy.type);
    if (!POLICY_TYPES.includes(type))
      causes.push(field.notSupported(`${at}.type`, type, POLICY_TYPES));
    const v = num(policy.value) ?? 0;
    if (v <= 0) causes.push(field.invalid(`${at}.value`, v, "must be greater than zero"));
    const period = num(policy.periodSeconds) ?? 0;
    if (period <= 0)
      causes.push(field.invalid(`${at}.periodSeconds`, period, "must be greater than zero"));
    if (period > MAX_PERIOD_SECONDS)
      causes.push(
        field.invalid(
          `${at}.periodSeconds`,
          period,
          `must be less than or equal to ${MAX_PERIOD_SECONDS}`,
        ),
      );
  });
  if (rules.tolerance != null && quantitySign(rules.tolerance) < 0)
    causes.push(
      field.invalid(
        `${path}.tolerance`,
        String(rules.tolerance),
        "must be greater than or equal to 0",
      ),
    );
  return causes;
}

/** The validation of a status write: replica counts are not negative. */
export function hpaStatusCauses(status: Json): StatusCause[] {
  return ["currentReplicas", "desiredReplicas"].flatMap((key) => {
    const n = num(status[key]) ?? 0;
    return n < 0 ? [field.invalid(`status.${key}`, n, "must be greater than or equal to 0")] : [];
  });
}

/** The quantities of a v2 autoscaler: every metric target and current value, each tolerance. */
function quantities(o: Json): unknown[] {
  const spec = recordAt(o, "spec") ?? {};
  const status = recordAt(o, "status") ?? {};
  const out: unknown[] = [];
  const each = (list: unknown[] | undefined, holder: string) => {
    for (const m of list ?? []) {
      for (const [, key] of SOURCES) {
        const source = typeof m === "object" && m !== null ? (m as Json)[key] : undefined;
        const values =
          typeof source === "object" && source !== null
            ? recordAt(source as Json, holder)
            : undefined;
        if (values !== undefined) out.push(values.value, values.averageValue);
      }
    }
  };
  each(arrayAt(spec, "metrics"), "target");
  each(arrayAt(status, "currentMetrics"), "current");
  const behavior = recordAt(spec, "behavior") ?? {};
  for (const rules of [behavior.scaleUp, behavior.scaleDown])
    if (typeof rules === "object" && rules !== null) out.push((rules as Json).tolerance);
  return out;
}

/**
 * Rejects a v2 body with a quantity that does not parse, as kube's decoder does: a 400 before
 * anything else is looked at.
 */
export function checkHpaQuantities(o: Json): void {
  if (quantities(o).every((q) => q == null || isQuantity(q))) return;
  throw errors.badRequest(
    `HorizontalPodAutoscaler in version "v2" cannot be handled as a HorizontalPodAutoscaler: quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'`,
  );
}
