import type { KubeObject } from "../../../../core/index.ts";
import type { TableColumn } from "../../strategy.ts";
import type { Json } from "../util.ts";
import { AGE, at, int, items, NAME, str } from "./common.ts";

/* The columns of HorizontalPodAutoscalers and PodDisruptionBudgets. */

/** How many metrics the Targets cell shows before `+ N more...`. */
const SHOWN_METRICS = 2;

/** A quantity that may be absent, as kube prints a nil one. */
const q = (value: unknown) => (value === undefined || value === null ? "<nil>" : String(value));

/** `n%` of a utilization, or `fallback`. */
const percent = (value: unknown, fallback: string) =>
  typeof value === "number" ? `${value}%` : fallback;

/**
 * `current/target` of an External or Object metric: averages (`(avg)`) when the target is
 * one, values otherwise; `<unknown>` until the status reports the metric.
 */
function valueMetric(spec: Json, status: Json | undefined): string {
  const target = (at(spec, "target") ?? {}) as Json;
  if (target.averageValue !== undefined) {
    const current = at(status, "current.averageValue");
    return `${current === undefined ? "<unknown>" : q(current)}/${q(target.averageValue)} (avg)`;
  }
  return `${status === undefined ? "<unknown>" : q(at(status, "current.value"))}/${q(target.value)}`;
}

/** `name: current/target` of a Resource or ContainerResource metric. */
function resourceMetric(spec: Json, status: Json | undefined): string {
  const name = str(spec, "name");
  const averageValue = at(spec, "target.averageValue");
  if (averageValue !== undefined) {
    const current = status === undefined ? "<unknown>" : q(at(status, "current.averageValue"));
    return `${name}: ${current}/${q(averageValue)}`;
  }
  const current = percent(at(status, "current.averageUtilization"), "<unknown>");
  return `${name}: ${current}/${percent(at(spec, "target.averageUtilization"), "<auto>")}`;
}

/** One metric's `current/target`, its status being the one at the same index. */
function metricTarget(spec: Json, statuses: Json[], i: number): string {
  const of = (source: string) => {
    const status = at(statuses[i], source);
    return {
      spec: (at(spec, source) ?? {}) as Json,
      status: status === undefined || status === null ? undefined : (status as Json),
    };
  };
  switch (spec.type) {
    case "External":
    case "Object": {
      const m = of(spec.type === "External" ? "external" : "object");
      return valueMetric(m.spec, m.status);
    }
    case "Pods": {
      const m = of("pods");
      const current =
        m.status === undefined ? "<unknown>" : q(at(m.status, "current.averageValue"));
      return `${current}/${q(at(m.spec, "target.averageValue"))}`;
    }
    case "Resource":
    case "ContainerResource": {
      const m = of(spec.type === "Resource" ? "resource" : "containerResource");
      return resourceMetric(m.spec, m.status);
    }
    default:
      return "<unknown type>";
  }
}

/** Each metric's `current/target`, the first two and how many more; `<none>` for none. */
function hpaTargets(hpa: KubeObject): string {
  const specs = items(hpa, "spec.metrics");
  if (specs.length === 0) return "<none>";
  const statuses = items(hpa, "status.currentMetrics");
  const list = specs.map((spec, i) => metricTarget(spec, statuses, i));
  if (list.length <= SHOWN_METRICS) return list.join(", ");
  return `${list.slice(0, SHOWN_METRICS).join(", ")} + ${list.length - SHOWN_METRICS} more...`;
}

/** `kubectl get horizontalpodautoscalers`. */
export const HPA_COLUMNS: readonly TableColumn[] = [
  NAME,
  {
    name: "Reference",
    type: "string",
    description:
      "scaleTargetRef points to the target resource to scale, and is used to the pods for which metrics should be collected, as well as to actually change the replica count.",
    cell: (o) => `${str(o, "spec.scaleTargetRef.kind")}/${str(o, "spec.scaleTargetRef.name")}`,
  },
  {
    name: "Targets",
    type: "string",
    description:
      "metrics contains the specifications for which to use to calculate the desired replica count (the maximum replica count across all metrics will be used).  The desired replica count is calculated multiplying the ratio between the target value and the current value by the current number of pods.  Ergo, metrics used must decrease as the pod count is increased, and vice-versa.  See the individual metric source types for more information about how each type of metric must respond. If not set, the default metric will be set to 80% average CPU utilization.",
    cell: hpaTargets,
  },
  {
    name: "MinPods",
    type: "string",
    description:
      "minReplicas is the lower limit for the number of replicas to which the autoscaler can scale down.  It defaults to 1 pod.  minReplicas is allowed to be 0 if the alpha feature gate HPAScaleToZero is enabled and at least one Object or External metric is configured.  Scaling is active as long as at least one metric value is available.",
    cell: (o) =>
      typeof at(o, "spec.minReplicas") === "number" ? String(at(o, "spec.minReplicas")) : "<unset>",
  },
  {
    name: "MaxPods",
    type: "string",
    description:
      "maxReplicas is the upper limit for the number of replicas to which the autoscaler can scale up. It cannot be less that minReplicas.",
    cell: (o) => int(o, "spec.maxReplicas"),
  },
  {
    name: "Replicas",
    type: "string",
    description:
      "currentReplicas is current number of replicas of pods managed by this autoscaler, as last seen by the autoscaler.",
    cell: (o) => int(o, "status.currentReplicas"),
  },
  AGE,
];

/** `kubectl get poddisruptionbudgets`. */
export const PDB_COLUMNS: readonly TableColumn[] = [
  NAME,
  {
    name: "Min Available",
    type: "string",
    description: "The minimum number of pods that must be available.",
    cell: (o) => String(at(o, "spec.minAvailable") ?? "N/A"),
  },
  {
    name: "Max Unavailable",
    type: "string",
    description: "The maximum number of pods that may be unavailable.",
    cell: (o) => String(at(o, "spec.maxUnavailable") ?? "N/A"),
  },
  {
    name: "Allowed Disruptions",
    type: "integer",
    description: "Calculated number of pods that may be disrupted at this time.",
    cell: (o) => int(o, "status.disruptionsAllowed"),
  },
  AGE,
];
