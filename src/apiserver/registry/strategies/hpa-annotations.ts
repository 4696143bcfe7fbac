import { isQuantity } from "./quantity.ts";
import type { Json } from "./util.ts";

/*
 * The annotations through which an autoscaling/v1 HorizontalPodAutoscaler carries what only v2
 * has, read as kube's conversion reads them: with Go's encoding/json, which matches keys without
 * regard to case, ignores unknown ones, and fails on a value of the wrong type — a failed
 * annotation is ignored whole. The behavior annotation is the JSON of kube's internal Go type,
 * so its keys are Go's field names (`ScaleUp`, `StabilizationWindowSeconds`).
 */

/** Other metrics than the CPU target, as a JSON list of v1 MetricSpecs. */
export const METRICS_ANNOTATION = "autoscaling.alpha.kubernetes.io/metrics";
/** `status.currentMetrics`, as a JSON list of v1 MetricStatuses. */
export const CURRENT_METRICS_ANNOTATION = "autoscaling.alpha.kubernetes.io/current-metrics";
/** `status.conditions`, as a JSON list of v1 conditions. */
export const CONDITIONS_ANNOTATION = "autoscaling.alpha.kubernetes.io/conditions";
/** `spec.behavior`, as the JSON of kube's internal HorizontalPodAutoscalerBehavior. */
export const BEHAVIOR_ANNOTATION = "autoscaling.alpha.kubernetes.io/behavior";

/**
 * Every annotation kube drops on each conversion of a HorizontalPodAutoscaler, v1 or v2: the
 * four above and the two tolerance ones an older release wrote.
 */
export const ROUND_TRIP_ANNOTATIONS: readonly string[] = [
  METRICS_ANNOTATION,
  BEHAVIOR_ANNOTATION,
  "autoscaling.alpha.kubernetes.io/scale-down-tolerance",
  "autoscaling.alpha.kubernetes.io/scale-up-tolerance",
  CURRENT_METRICS_ANNOTATION,
  CONDITIONS_ANNOTATION,
];

/** A value of the wrong type for its Go field: the whole annotation is ignored. */
class GoTypeError extends Error {}

/**
 * Reads one annotation's JSON with `read`, as Go's json.Unmarshal would fill the Go type: the
 * result, or undefined when the annotation is absent, is not JSON, or has a wrongly typed value.
 */
export function readAnnotation<T>(
  text: unknown,
  read: (value: unknown) => T | undefined,
): T | undefined {
  if (typeof text !== "string") return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return undefined;
  }
  try {
    return read(parsed);
  } catch (err) {
    if (err instanceof GoTypeError) return undefined;
    throw err;
  }
}

/** A Go struct: an object, or undefined for null. */
export function goStruct(value: unknown): Json | undefined {
  if (value === null || value === undefined) return undefined;
  if (typeof value !== "object" || Array.isArray(value)) throw new GoTypeError();
  return value as Json;
}

/** A struct's field `name`, its key matched without regard to case (the last one wins). */
export function goField(struct: Json, name: string): unknown {
  const lower = name.toLowerCase();
  let found: unknown;
  for (const [k, v] of Object.entries(struct)) if (k.toLowerCase() === lower) found = v;
  return found;
}

/** A Go slice: undefined for null. */
export function goList(value: unknown): unknown[] | undefined {
  if (value === null || value === undefined) return undefined;
  if (!Array.isArray(value)) throw new GoTypeError();
  return value;
}

/** A Go string: undefined for null (Go leaves the field as it was). */
export function goString(value: unknown): string | undefined {
  if (value === null || value === undefined) return undefined;
  if (typeof value !== "string") throw new GoTypeError();
  return value;
}

/** A Go int32: an integer in range, undefined for null. */
export function goInt32(value: unknown): number | undefined {
  if (value === null || value === undefined) return undefined;
  const n = value as number;
  if (!Number.isInteger(n) || n < -(2 ** 31) || n >= 2 ** 31) throw new GoTypeError();
  return n;
}

/** A resource.Quantity: a quoted or bare quantity, undefined for null. */
export function goQuantity(value: unknown): string | undefined {
  if (value === null || value === undefined) return undefined;
  if (!isQuantity(value)) throw new GoTypeError();
  return String(value);
}

/** A metav1.Time: an RFC 3339 string, undefined for null. */
export function goTime(value: unknown): string | undefined {
  const s = goString(value);
  if (s !== undefined && Number.isNaN(Date.parse(s))) throw new GoTypeError();
  return s;
}

/** The v2 HPAScalingRules of one internal Go HPAScalingRules, or undefined for null. */
function goScalingRules(value: unknown): Json | undefined {
  const rules = goStruct(value);
  if (rules === undefined) return undefined;
  const out: Json = {};
  const window = goInt32(goField(rules, "StabilizationWindowSeconds"));
  if (window !== undefined) out.stabilizationWindowSeconds = window;
  const select = goString(goField(rules, "SelectPolicy"));
  if (select !== undefined) out.selectPolicy = select;
  const policies = goList(goField(rules, "Policies"));
  if (policies !== undefined) {
    out.policies = policies.map((p) => {
      const policy = goStruct(p) ?? {};
      return {
        type: goString(goField(policy, "Type")) ?? "",
        value: goInt32(goField(policy, "Value")) ?? 0,
        periodSeconds: goInt32(goField(policy, "PeriodSeconds")) ?? 0,
      };
    });
  }
  const tolerance = goQuantity(goField(rules, "Tolerance"));
  if (tolerance !== undefined) out.tolerance = tolerance;
  return out;
}

/**
 * The v2 `spec.behavior` the behavior annotation holds, or undefined — also for a behavior with
 * neither rule, which kube ignores.
 */
export function behaviorFromAnnotation(text: unknown): Json | undefined {
  return readAnnotation(text, (parsed) => {
    const behavior = goStruct(parsed);
    if (behavior === undefined) return undefined;
    const scaleUp = goScalingRules(goField(behavior, "ScaleUp"));
    const scaleDown = goScalingRules(goField(behavior, "ScaleDown"));
    if (scaleUp === undefined && scaleDown === undefined) return undefined;
    return {
      ...(scaleUp === undefined ? {} : { scaleUp }),
      ...(scaleDown === undefined ? {} : { scaleDown }),
    };
  });
}

/** A v2 HPAScalingRules as the JSON of kube's internal Go type (every field written). */
function rulesToGo(value: unknown): Json | null {
  if (typeof value !== "object" || value === null) return null;
  const rules = value as Json;
  const policies = Array.isArray(rules.policies)
    ? rules.policies.map((p) => {
        const policy = (p ?? {}) as Json;
        return {
          Type: policy.type ?? "",
          Value: policy.value ?? 0,
          PeriodSeconds: policy.periodSeconds ?? 0,
        };
      })
    : null;
  return {
    StabilizationWindowSeconds: rules.stabilizationWindowSeconds ?? null,
    SelectPolicy: rules.selectPolicy ?? null,
    Policies: policies,
    Tolerance: rules.tolerance ?? null,
  };
}

/** The behavior annotation of a v2 `spec.behavior`. */
export function behaviorToAnnotation(behavior: Json): string {
  return JSON.stringify({
    ScaleUp: rulesToGo(behavior.scaleUp),
    ScaleDown: rulesToGo(behavior.scaleDown),
  });
}
