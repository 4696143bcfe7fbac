import { cloneJson, type KubeObject } from "../../../core/index.ts";
import type { Strategy } from "../strategy.ts";
import { HPA_COLUMNS } from "./columns/scaling.ts";
import {
  cpuUtilizationMetric,
  DEFAULT_CPU_UTILIZATION,
  hpaFromV1,
  hpaToV1,
  hpaV2Decoded,
} from "./hpa-conversion.ts";
import { apiVersionProblem, type RefRules } from "./hpa-metric-validation.ts";
import {
  checkHpaQuantities,
  type HpaValidationOptions,
  hpaSpecCauses,
  hpaStatusCauses,
} from "./hpa-validation.ts";
import { child, type Json, rec, recordAt } from "./util.ts";

/*
 * HorizontalPodAutoscalers as kube-apiserver serves them: stored as autoscaling/v2, served as
 * v2 and as v1 (converted, see hpa-conversion.ts).
 *
 * Where kube defaults decides what the stored object is: a v2 body gets v2's defaults as it is
 * decoded (minReplicas 1, an 80% CPU metric when there is none, the rest of a behavior), a v1
 * body only v1's (minReplicas 1; the CPU metric comes from conversion) — so a v1 behavior is
 * validated as sent. kube then reads every object back from etcd with v2's defaults, the
 * response to the write included; here each version's `fromStorage` applies them as it reads.
 */

/** kube's scale-up rules where a behavior leaves them out. */
const SCALE_UP: Json = {
  stabilizationWindowSeconds: 0,
  selectPolicy: "Max",
  policies: [
    { type: "Pods", value: 4, periodSeconds: 15 },
    { type: "Percent", value: 100, periodSeconds: 15 },
  ],
};

/** kube's scale-down rules; the stabilization window is left to the controller's flag. */
const SCALE_DOWN: Json = {
  selectPolicy: "Max",
  policies: [{ type: "Percent", value: 100, periodSeconds: 15 }],
};

/** `rules` with each field it leaves out (or null) taken from `defaults`. */
function rulesWithDefaults(rules: unknown, defaults: Json): Json {
  const given = typeof rules === "object" && rules !== null ? (rules as Json) : {};
  const out: Json = {};
  for (const key of ["stabilizationWindowSeconds", "selectPolicy", "policies"]) {
    const value = given[key] ?? defaults[key];
    if (value !== undefined) out[key] = cloneJson(value);
  }
  return { ...given, ...out, ...(given.tolerance == null ? {} : { tolerance: given.tolerance }) };
}

/** kube's v2 SetDefaults_HorizontalPodAutoscaler. Mutates `object`. */
export function defaultHpaV2(object: KubeObject): void {
  const spec = child(rec(object), "spec");
  if (spec.minReplicas == null) spec.minReplicas = 1;
  if (!Array.isArray(spec.metrics) || spec.metrics.length === 0)
    spec.metrics = [cpuUtilizationMetric(DEFAULT_CPU_UTILIZATION)];
  const behavior = recordAt(spec, "behavior");
  if (behavior !== undefined) {
    behavior.scaleUp = rulesWithDefaults(behavior.scaleUp, SCALE_UP);
    behavior.scaleDown = rulesWithDefaults(behavior.scaleDown, SCALE_DOWN);
  }
}

/** True if v2's defaults would change nothing in `object`. */
function isDefaulted(object: KubeObject): boolean {
  const spec = recordAt(rec(object), "spec");
  if (spec === undefined || spec.minReplicas == null) return false;
  if (!Array.isArray(spec.metrics) || spec.metrics.length === 0) return false;
  const behavior = recordAt(spec, "behavior");
  if (behavior === undefined) return true;
  return [behavior.scaleUp, behavior.scaleDown].every((rules, i) => {
    const r = typeof rules === "object" && rules !== null ? (rules as Json) : undefined;
    return (
      r !== undefined &&
      r.selectPolicy != null &&
      r.policies != null &&
      (i === 1 || r.stabilizationWindowSeconds != null)
    );
  });
}

/** A stored autoscaler as kube reads it from etcd: with v2's defaults (a copy if they change it). */
export function hpaAsRead(object: KubeObject): KubeObject {
  if (isDefaulted(object)) return object;
  const copy = cloneJson(object);
  defaultHpaV2(copy);
  return copy;
}

/** A v2 body as kube decodes it: unparseable quantities refused, round-trip annotations dropped. */
export function hpaV2FromBody(object: KubeObject): KubeObject {
  checkHpaQuantities(rec(object));
  return hpaV2Decoded(object);
}

/** A stored autoscaler as autoscaling/v1. */
export function hpaV1FromStorage(object: KubeObject): KubeObject {
  return hpaToV1(hpaAsRead(object));
}

/** An Object metric's reference: any group, the core one included. */
const LENIENT_GROUP: RefRules = { allowInvalidApiVersion: false, allowEmptyGroup: true };

const ref = (spec: Json): Json => recordAt(spec, "scaleTargetRef") ?? {};

/**
 * What kube's strategy lets pass, knowing the old object on an update: a minReplicas of 0 once
 * stored, a scale target's apiVersion the update keeps, an Object metric's apiVersion that an
 * old one already got wrong, a ReplicationController target in the core group.
 */
function validationOptions(spec: Json, old?: Json): HpaValidationOptions {
  const target = ref(spec);
  const kept =
    old !== undefined &&
    (ref(old).apiVersion ?? "") === (target.apiVersion ?? "") &&
    (ref(old).kind ?? "") === (target.kind ?? "");
  const scaleTargetRef: RefRules = {
    allowInvalidApiVersion: kept,
    allowEmptyGroup: !kept && target.kind === "ReplicationController",
  };
  const oldObjectInvalid = ((old?.metrics as unknown[] | undefined) ?? []).some((m) => {
    const metric = (m ?? {}) as Json;
    if (metric.type !== "Object" || metric.object == null) return false;
    const described = recordAt(metric.object as Json, "describedObject") ?? {};
    const apiVersion = typeof described.apiVersion === "string" ? described.apiVersion : "";
    return apiVersionProblem(apiVersion, LENIENT_GROUP) !== undefined;
  });
  return {
    minReplicasLowerBound: old?.minReplicas === 0 ? 0 : 1,
    scaleTargetRef,
    objectMetrics: { ...LENIENT_GROUP, allowInvalidApiVersion: oldObjectInvalid },
  };
}

const specOf = (o: KubeObject): Json => recordAt(rec(o), "spec") ?? {};

/**
 * What both versions share (kube's one strategy): a created autoscaler's status is reset to
 * Go's empty status; the status subresource; no generation (kube's strategy sets none).
 */
const shared: Strategy = {
  statusSubresource: true,
  prepareForCreate(object) {
    rec(object).status = { desiredReplicas: 0, currentMetrics: null };
  },
  validateCreate: (object) => hpaSpecCauses(specOf(object), validationOptions(specOf(object))),
  validateUpdate(object, old, subresource) {
    if (subresource === "status") return hpaStatusCauses(recordAt(rec(object), "status") ?? {});
    return hpaSpecCauses(specOf(object), validationOptions(specOf(object), specOf(old)));
  },
};

/** autoscaling/v2 HorizontalPodAutoscalers (the stored version). */
export const hpaV2Strategy: Strategy = {
  ...shared,
  defaults: defaultHpaV2,
  columns: HPA_COLUMNS,
};

/** autoscaling/v1 HorizontalPodAutoscalers: v1's defaults only; printed as kube prints v2. */
export const hpaV1Strategy: Strategy = {
  ...shared,
  defaults(object) {
    const spec = child(rec(object), "spec");
    if (spec.minReplicas == null) spec.minReplicas = 1;
  },
  // kube prints both versions from its internal form.
  columns: HPA_COLUMNS.map((c) => ({ ...c, cell: (o, now) => c.cell(hpaFromV1(o), now) })),
};
