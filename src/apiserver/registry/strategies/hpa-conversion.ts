import type { KubeObject } from "../../../core/index.ts";
import {
  BEHAVIOR_ANNOTATION,
  behaviorFromAnnotation,
  behaviorToAnnotation,
  CONDITIONS_ANNOTATION,
  CURRENT_METRICS_ANNOTATION,
  goList,
  METRICS_ANNOTATION,
  ROUND_TRIP_ANNOTATIONS,
  readAnnotation,
} from "./hpa-annotations.ts";
import {
  conditionFields,
  conditionFromV1,
  metricSpecFromV1,
  metricSpecToV1,
  metricStatusFromV1,
  metricStatusToV1,
} from "./hpa-metrics.ts";
import { arrayAt, type Json, rec, recordAt } from "./util.ts";

/*
 * autoscaling/v1 HorizontalPodAutoscalers, served from the v2 objects kube stores, converted as
 * kube converts them: v1's CPU target is v2's first CPU Utilization metric, and what v1 cannot
 * say (other metrics, current metrics, conditions, behavior) travels in annotations.
 */

/** kube's CPU target for a v1 autoscaler with none, and for a v2 one without metrics. */
export const DEFAULT_CPU_UTILIZATION = 80;

/** A v2 metric: average CPU utilization at `percent`. */
export function cpuUtilizationMetric(percent: unknown): Json {
  return {
    type: "Resource",
    resource: { name: "cpu", target: { type: "Utilization", averageUtilization: percent } },
  };
}

/** True for a Resource metric on CPU with a utilization target (v1's CPU target). */
function isCpuUtilization(m: Json): boolean {
  const resource = recordAt(m, "resource");
  return (
    m.type === "Resource" &&
    resource?.name === "cpu" &&
    recordAt(resource, "target")?.averageUtilization != null
  );
}

/** `metadata` with the round-trip annotations dropped (and no `annotations` if none is left). */
function withoutRoundTrip(metadata: Json | undefined): Json {
  const meta: Json = { ...metadata };
  const annotations = recordAt(meta, "annotations");
  if (annotations === undefined || !ROUND_TRIP_ANNOTATIONS.some((a) => a in annotations))
    return meta;
  const kept = { ...annotations };
  for (const a of ROUND_TRIP_ANNOTATIONS) delete kept[a];
  if (Object.keys(kept).length === 0) delete meta.annotations;
  else meta.annotations = kept;
  return meta;
}

/**
 * A v2 body as kube decodes it: the round-trip annotations of another version are dropped
 * (v2 has every field they carry).
 */
export function hpaV2Decoded(object: KubeObject): KubeObject {
  const o = rec(object);
  const metadata = recordAt(o, "metadata");
  const annotations = metadata === undefined ? undefined : recordAt(metadata, "annotations");
  if (annotations === undefined || !ROUND_TRIP_ANNOTATIONS.some((a) => a in annotations))
    return object;
  return { ...object, metadata: withoutRoundTrip(metadata) } as KubeObject;
}

/** A list annotation's entries read with `read`, or undefined if it is absent or fails. */
function listAnnotation(text: unknown, read: (value: unknown) => Json): Json[] | undefined {
  return readAnnotation(text, (parsed) => goList(parsed)?.map(read) ?? []);
}

/**
 * A v1 autoscaler in its stored v2 form. Fields v1 does not have stay where they are, for
 * decoding to drop with a warning (v2's own fields sent in a v1 body are dropped here, without
 * one). The conversion of a converted object is that object.
 */
export function hpaFromV1(object: KubeObject): KubeObject {
  // A v2 body (or one already converted) is decoded as v2, as kube decodes by the body's type.
  if (object.apiVersion === "autoscaling/v2") return hpaV2Decoded(object);
  const { apiVersion: _a, kind: _k, metadata, spec, status, ...rest } = rec(object);
  const meta = (metadata ?? {}) as Json;
  const annotations = recordAt(meta, "annotations") ?? {};
  const {
    targetCPUUtilizationPercentage: cpu,
    metrics: _metrics,
    behavior: _behavior,
    ...specRest
  } = (spec ?? {}) as Json;
  const others = listAnnotation(annotations[METRICS_ANNOTATION], metricSpecFromV1);
  let metrics = [...(others ?? []), ...(cpu == null ? [] : [cpuUtilizationMetric(cpu)])];
  if (metrics.length === 0) metrics = [cpuUtilizationMetric(DEFAULT_CPU_UTILIZATION)];
  const behavior = behaviorFromAnnotation(annotations[BEHAVIOR_ANNOTATION]);
  const {
    currentCPUUtilizationPercentage: currentCpu,
    currentMetrics: _current,
    conditions: _conditions,
    currentReplicas,
    ...statusRest
  } = (status ?? {}) as Json;
  const currentMetrics =
    listAnnotation(annotations[CURRENT_METRICS_ANNOTATION], metricStatusFromV1) ??
    (currentCpu == null
      ? null
      : [
          {
            type: "Resource",
            resource: { name: "cpu", current: { averageUtilization: currentCpu } },
          },
        ]);
  const conditions = listAnnotation(annotations[CONDITIONS_ANNOTATION], conditionFromV1);
  return {
    apiVersion: "autoscaling/v2",
    kind: "HorizontalPodAutoscaler",
    metadata: withoutRoundTrip(meta),
    spec: {
      ...ordered(specRest, ["scaleTargetRef", "minReplicas", "maxReplicas"]),
      metrics,
      ...(behavior === undefined ? {} : { behavior }),
      ...specRest,
    },
    status: {
      ...ordered(statusRest, ["observedGeneration", "lastScaleTime"]),
      ...(currentReplicas ? { currentReplicas } : {}),
      desiredReplicas: statusRest.desiredReplicas ?? 0,
      currentMetrics,
      ...(conditions === undefined ? {} : { conditions }),
      ...statusRest,
    },
    ...rest,
  } as KubeObject;
}

/** The `keys` of `o` that it has, in that order. */
function ordered(o: Json, keys: readonly string[]): Json {
  return Object.fromEntries(keys.filter((k) => o[k] !== undefined).map((k) => [k, o[k]]));
}

/** A stored v2 autoscaler (defaulted as kube reads it) as autoscaling/v1. */
export function hpaToV1(object: KubeObject): KubeObject {
  const o = rec(object);
  const spec = recordAt(o, "spec") ?? {};
  const status = recordAt(o, "status") ?? {};
  const metrics = (arrayAt(spec, "metrics") ?? []).map(rec);
  const cpu = metrics.find(isCpuUtilization);
  const others = metrics.filter((m) => !isCpuUtilization(m)).map(metricSpecToV1);
  const current = (arrayAt(status, "currentMetrics") ?? []).map(rec);
  const conditions = (arrayAt(status, "conditions") ?? []).map(rec);
  const behavior = recordAt(spec, "behavior");
  const metadata = withoutRoundTrip(recordAt(o, "metadata"));
  const added: Json = {};
  if (others.length > 0) added[METRICS_ANNOTATION] = JSON.stringify(others);
  if (current.length > 0)
    added[CURRENT_METRICS_ANNOTATION] = JSON.stringify(current.map(metricStatusToV1));
  if (behavior !== undefined) added[BEHAVIOR_ANNOTATION] = behaviorToAnnotation(behavior);
  if (conditions.length > 0)
    added[CONDITIONS_ANNOTATION] = JSON.stringify(conditions.map(conditionFields));
  if (Object.keys(added).length > 0) {
    // Go writes a map's keys sorted.
    const all: Json = { ...recordAt(metadata, "annotations"), ...added };
    metadata.annotations = Object.fromEntries(
      Object.keys(all)
        .sort()
        .map((k) => [k, all[k]]),
    );
  }
  // The last CPU metric with a utilization is v1's current CPU utilization.
  let currentCpu: unknown;
  for (const m of current) {
    const resource = recordAt(m, "resource");
    const utilization = resource && recordAt(resource, "current")?.averageUtilization;
    if (m.type === "Resource" && resource?.name === "cpu" && utilization != null)
      currentCpu = utilization;
  }
  const target = cpu === undefined ? undefined : recordAt(recordAt(cpu, "resource")!, "target");
  return {
    kind: "HorizontalPodAutoscaler",
    apiVersion: "autoscaling/v1",
    metadata,
    spec: {
      scaleTargetRef: spec.scaleTargetRef ?? { kind: "", name: "" },
      ...ordered(spec, ["minReplicas"]),
      maxReplicas: spec.maxReplicas ?? 0,
      ...(target === undefined
        ? {}
        : { targetCPUUtilizationPercentage: target.averageUtilization }),
    },
    status: {
      ...ordered(status, ["observedGeneration", "lastScaleTime"]),
      currentReplicas: status.currentReplicas ?? 0,
      desiredReplicas: status.desiredReplicas ?? 0,
      ...(currentCpu === undefined ? {} : { currentCPUUtilizationPercentage: currentCpu }),
    },
  } as KubeObject;
}
