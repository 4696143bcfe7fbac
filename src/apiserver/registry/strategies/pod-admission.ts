import type { KubeObject } from "../../../core/index.ts";
import { eachAt } from "./kind-rules.ts";
import { quantityValue } from "./quantity.ts";
import { child, type Json, rec, recordAt } from "./util.ts";

/*
 * What kube-apiserver 1.36's default admission plugins and pod strategy add to a pod that its
 * scheme does not: the NoExecute tolerations of DefaultTolerationSeconds, the priority the
 * Priority plugin resolves, and the QoS class of a created pod's status. Added after field
 * management, as kube's admission is, so nobody owns them.
 */

/** The node taints every pod tolerates for 5 minutes unless it says otherwise. */
const DEFAULT_TOLERATED = ["node.kubernetes.io/not-ready", "node.kubernetes.io/unreachable"];
const DEFAULT_TOLERATION_SECONDS = 300;

/**
 * The priority classes kube-apiserver creates at start, by name. Another class is looked up
 * by kube's Priority plugin; this registry cannot, so a pod naming one gets no priority here.
 */
const SYSTEM_PRIORITIES: Readonly<Record<string, number>> = {
  "system-node-critical": 2000001000,
  "system-cluster-critical": 2000000000,
};

/** DefaultTolerationSeconds: every pod tolerates a not-ready or unreachable node for 300 s. */
function defaultTolerations(spec: Json): void {
  const tolerations = eachAt(spec, "tolerations");
  const missing = DEFAULT_TOLERATED.filter(
    (key) =>
      !tolerations.some(
        (t) =>
          (t.key === key || t.key === undefined || t.key === "") &&
          (t.effect === "NoExecute" || t.effect === undefined || t.effect === ""),
      ),
  );
  if (missing.length === 0) return;
  spec.tolerations = [
    ...(Array.isArray(spec.tolerations) ? spec.tolerations : []),
    ...missing.map((key) => ({
      key,
      operator: "Exists",
      effect: "NoExecute",
      tolerationSeconds: DEFAULT_TOLERATION_SECONDS,
    })),
  ];
}

/**
 * The Priority plugin: a created pod gets its class's priority (0 without one, as no class is
 * the global default here) and preemption policy; an update keeps them.
 */
function admitPriority(spec: Json, old: Json | undefined): void {
  if (old !== undefined) {
    if (spec.priority === undefined && old.priority !== undefined) spec.priority = old.priority;
    if (spec.preemptionPolicy === undefined && old.preemptionPolicy !== undefined) {
      spec.preemptionPolicy = old.preemptionPolicy;
    }
    return;
  }
  const className = typeof spec.priorityClassName === "string" ? spec.priorityClassName : "";
  const priority = className === "" ? 0 : SYSTEM_PRIORITIES[className];
  if (priority === undefined) return;
  spec.priority ??= priority;
  spec.preemptionPolicy ??= "PreemptLowerPriority";
}

/** Applies the default admission plugins to a pod being created (`old` undefined) or updated. */
export function admitPod(object: KubeObject, old?: KubeObject): void {
  const spec = child(rec(object), "spec");
  defaultTolerations(spec);
  admitPriority(spec, old === undefined ? undefined : recordAt(rec(old), "spec"));
}

/** The resources kube's QoS classes count. */
const QOS_RESOURCES = ["cpu", "memory"];

/**
 * The QoS class of a pod (kube's ComputePodQOS): BestEffort without CPU or memory requests or
 * limits, Guaranteed when every container limits both and requests what it limits, else
 * Burstable. Pod-level resources, where set, stand for the containers'.
 */
export function podQosClass(spec: Json): "BestEffort" | "Burstable" | "Guaranteed" {
  const requests = new Map<string, number>();
  const limits = new Map<string, number>();
  let guaranteed = true;
  const add = (sums: Map<string, number>, list: Json | undefined): Set<string> => {
    const found = new Set<string>();
    for (const [name, raw] of Object.entries(list ?? {})) {
      const value = quantityValue(raw);
      if (!QOS_RESOURCES.includes(name) || !(value > 0)) continue;
      found.add(name);
      sums.set(name, (sums.get(name) ?? 0) + value);
    }
    return found;
  };
  const podLevel = recordAt(spec, "resources");
  const owners =
    podLevel !== undefined
      ? [podLevel]
      : [...eachAt(spec, "containers"), ...eachAt(spec, "initContainers")].map(
          (c) => recordAt(c, "resources") ?? {},
        );
  for (const resources of owners) {
    add(requests, recordAt(resources, "requests"));
    const limited = add(limits, recordAt(resources, "limits"));
    const hasLimits = Object.keys(recordAt(resources, "limits") ?? {}).length > 0;
    if ((podLevel === undefined || hasLimits) && !QOS_RESOURCES.every((r) => limited.has(r))) {
      guaranteed = false;
    }
  }
  if (requests.size === 0 && limits.size === 0) return "BestEffort";
  const matched = [...requests].every(([name, value]) => limits.get(name) === value);
  return guaranteed && matched && requests.size === limits.size ? "Guaranteed" : "Burstable";
}
