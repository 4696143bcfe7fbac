import {
  checkDns1123Label,
  cloneJson,
  deepEqual,
  errorMessage,
  labelSelectorFromSpec,
  type StatusCause,
} from "../../../core/index.ts";
import { field } from "../field-errors.ts";
import type { Strategy } from "../strategy.ts";
import { POD_COLUMNS, podRowConditions } from "./columns/pods.ts";
import { DEPLOYMENT_COLUMNS } from "./columns/workloads.ts";
import { admitPod, podQosClass } from "./pod-admission.ts";
import { bindPod } from "./pod-binding.ts";
import { defaultPodSpec } from "./pod-spec-defaults.ts";
import {
  ephemeralContainerCauses,
  ephemeralContainersUpdateCauses,
  resizeCauses,
  withEphemeralContainers,
  withResizedResources,
} from "./pod-subresources.ts";
import { checkQuantities } from "./quantity.ts";
import { arrayAt, child, type Json, rec, recordAt, setDefault, stringAt } from "./util.ts";

/** The checks of `ValidatePodSpec` that matter to clients: containers, names, images. */
export function validatePodSpec(spec: Json | undefined, path: string): StatusCause[] {
  if (spec === undefined) return [field.required(path)];
  const causes: StatusCause[] = [];
  const containers = arrayAt(spec, "containers");
  if (containers === undefined || containers.length === 0) {
    causes.push(field.required(`${path}.containers`));
  }
  const names = new Set<string>();
  for (const list of ["initContainers", "containers"]) {
    (arrayAt(spec, list) ?? []).forEach((raw, i) => {
      const c = (raw ?? {}) as Json;
      const p = `${path}.${list}[${i}]`;
      if (typeof c.name !== "string" || c.name === "") causes.push(field.required(`${p}.name`));
      else {
        const bad = checkDns1123Label(c.name);
        if (bad) causes.push(field.invalid(`${p}.name`, c.name, bad));
        if (names.has(c.name)) causes.push(field.duplicate(`${p}.name`, c.name));
        names.add(c.name);
      }
      if (typeof c.image !== "string" || c.image.trim() === "")
        causes.push(field.required(`${p}.image`));
      const resources = recordAt(c, "resources") ?? {};
      causes.push(
        ...checkQuantities(resources, "requests", `${p}.resources`, "Pod"),
        ...checkQuantities(resources, "limits", `${p}.resources`, "Pod"),
      );
    });
  }
  const policy = spec.restartPolicy;
  if (policy !== undefined && !["Always", "OnFailure", "Never"].includes(String(policy))) {
    causes.push(
      field.notSupported(`${path}.restartPolicy`, policy, ["Always", "OnFailure", "Never"]),
    );
  }
  return causes;
}

/**
 * Pod spec fields an update may change (kube: images, activeDeadlineSeconds, tolerations, and a
 * negative terminationGracePeriodSeconds set to 1).
 */
function podSpecUpdateCauses(spec: Json, old: Json): StatusCause[] {
  const oldGrace = old.terminationGracePeriodSeconds;
  const graceToOne =
    typeof oldGrace === "number" && oldGrace < 0 && spec.terminationGracePeriodSeconds === 1;
  const strip = (s: Json) => {
    const copy = cloneJson(s);
    if (graceToOne) delete copy.terminationGracePeriodSeconds;
    delete copy.activeDeadlineSeconds;
    delete copy.tolerations;
    for (const list of ["containers", "initContainers"]) {
      for (const c of arrayAt(copy, list) ?? [])
        if (c && typeof c === "object") delete (c as Json).image;
    }
    return copy;
  };
  // Compared as values: a field admission put back may come in another order than stored.
  return deepEqual(strip(spec), strip(old))
    ? []
    : [
        field.forbidden(
          "spec",
          "pod updates may not change fields other than `spec.containers[*].image`,`spec.initContainers[*].image`,`spec.activeDeadlineSeconds`,`spec.tolerations` (only additions to existing tolerations),`spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it was previously negative)",
        ),
      ];
}

/**
 * Pods: stored, never run; defaults, default admission, container validation, mostly immutable
 * spec, a generation. A scheduler assigns a pod to a node through the `binding` subresource,
 * the only way to set `spec.nodeName` after create.
 */
export const podStrategy: Strategy = {
  trackGeneration: true,
  statusSubresource: true,
  returnDeletedObject: true,
  defaults(object) {
    defaultPodSpec(child(rec(object), "spec"));
  },
  prepareForCreate(object) {
    admitPod(object);
    rec(object).status = { phase: "Pending", qosClass: podQosClass(child(rec(object), "spec")) };
  },
  prepareForUpdate: (object, old) => admitPod(object, old),
  // kube's CheckGracefulDelete: the period asked for, else the pod's own; none for a pod on no
  // node or finished (no kubelet has to stop it); at least 1 for a negative one.
  deletionGracePeriod(object, options) {
    const pod = rec(object);
    const spec = recordAt(pod, "spec") ?? {};
    const own = spec.terminationGracePeriodSeconds;
    let period = options.gracePeriodSeconds ?? (typeof own === "number" ? own : 0);
    const phase = recordAt(pod, "status")?.phase;
    if (!spec.nodeName || phase === "Succeeded" || phase === "Failed") period = 0;
    return period < 0 ? 1 : period;
  },
  prepareSubresource(subresource, body, stored, nowMs) {
    if (subresource === "binding") return bindPod(body, stored, nowMs);
    if (subresource === "ephemeralcontainers") return withEphemeralContainers(body, stored);
    if (subresource === "resize") return withResizedResources(body, stored);
    return body;
  },
  validate(o) {
    const spec = recordAt(rec(o), "spec");
    return [...validatePodSpec(spec, "spec"), ...ephemeralContainerCauses(spec ?? {})];
  },
  validateUpdate(o, old, subresource) {
    if (subresource === "binding") return [];
    if (subresource === "ephemeralcontainers") return ephemeralContainersUpdateCauses(o, old);
    if (subresource === "resize") return resizeCauses(o, old);
    return podSpecUpdateCauses(recordAt(rec(o), "spec") ?? {}, recordAt(rec(old), "spec") ?? {});
  },
  fieldSelectors: [
    "spec.nodeName",
    "spec.restartPolicy",
    "spec.schedulerName",
    "spec.serviceAccountName",
    "spec.hostNetwork",
    "status.phase",
    "status.podIP",
    "status.nominatedNodeName",
  ],
  fields: (o) => ({
    "spec.nodeName": stringAt(o, "spec.nodeName"),
    "spec.restartPolicy": stringAt(o, "spec.restartPolicy"),
    "spec.schedulerName": stringAt(o, "spec.schedulerName"),
    "spec.serviceAccountName": stringAt(o, "spec.serviceAccountName"),
    "spec.hostNetwork": stringAt(o, "spec.hostNetwork") ?? "false",
    "status.phase": stringAt(o, "status.phase"),
    "status.podIP": stringAt(o, "status.podIP"),
    "status.nominatedNodeName": stringAt(o, "status.nominatedNodeName"),
  }),
  columns: POD_COLUMNS,
  rowConditions: podRowConditions,
};

/** Deployments: stored only (no controller), generation, status subresource, selector checks. */
export const deploymentStrategy: Strategy = {
  trackGeneration: true,
  statusSubresource: true,
  defaults(object) {
    const spec = child(rec(object), "spec");
    setDefault(spec, "replicas", 1);
    setDefault(spec, "revisionHistoryLimit", 10);
    setDefault(spec, "progressDeadlineSeconds", 600);
    const strategy = child(spec, "strategy");
    setDefault(strategy, "type", "RollingUpdate");
    if (strategy.type === "RollingUpdate") {
      const ru = child(strategy, "rollingUpdate");
      setDefault(ru, "maxUnavailable", "25%");
      setDefault(ru, "maxSurge", "25%");
    }
    defaultPodSpec(child(child(spec, "template"), "spec"), "template");
  },
  prepareForCreate(object) {
    rec(object).status = {};
  },
  // kube's Deployment strategy counts a change of annotations (a rollback's) as a new generation.
  prepareForUpdate(object, old) {
    const meta = child(rec(object), "metadata");
    if (!deepEqual(meta.annotations ?? {}, old.metadata?.annotations ?? {})) {
      meta.generation = (old.metadata?.generation ?? 0) + 1;
    }
  },
  validate(object) {
    const spec = recordAt(rec(object), "spec") ?? {};
    const causes: StatusCause[] = [];
    const replicas = spec.replicas;
    if (!Number.isInteger(replicas) || (replicas as number) < 0) {
      causes.push(field.invalid("spec.replicas", replicas, "must be greater than or equal to 0"));
    }
    const selectorSpec = recordAt(spec, "selector");
    const template = recordAt(spec, "template") ?? {};
    const labels = (recordAt(template, "metadata")?.labels ?? {}) as Record<string, string>;
    if (selectorSpec === undefined) causes.push(field.required("spec.selector"));
    else {
      try {
        const selector = labelSelectorFromSpec(selectorSpec);
        if (selector.empty)
          causes.push(
            field.invalid(
              "spec.selector",
              selectorSpec,
              "empty selector is invalid for deployment",
            ),
          );
        else if (!selector.matches(labels)) {
          causes.push(
            field.invalid(
              "spec.template.metadata.labels",
              labels,
              "`selector` does not match template `labels`",
            ),
          );
        }
      } catch (err) {
        causes.push(field.invalid("spec.selector", selectorSpec, errorMessage(err)));
      }
    }
    causes.push(...validatePodSpec(recordAt(template, "spec"), "spec.template.spec"));
    return causes;
  },
  validateUpdate(object, old) {
    const a = JSON.stringify(recordAt(recordAt(rec(object), "spec") ?? {}, "selector") ?? null);
    const b = JSON.stringify(recordAt(recordAt(rec(old), "spec") ?? {}, "selector") ?? null);
    return a === b ? [] : [field.immutable("spec.selector", JSON.parse(a))];
  },
  columns: DEPLOYMENT_COLUMNS,
};
