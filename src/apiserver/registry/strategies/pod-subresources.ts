import { deepEqual, type KubeObject, type StatusCause } from "../../../core/index.ts";
import { field } from "../field-errors.ts";
import { eachAt } from "./kind-rules.ts";
import { podQosClass } from "./pod-admission.ts";
import { arrayAt, child, type Json, rec, recordAt } from "./util.ts";

/*
 * A pod's `ephemeralcontainers` and `resize` subresources (kube's podEphemeralContainersStrategy
 * and podResizeStrategy): each a Pod written to change one part of the spec — the ephemeral
 * containers (a debugger added to a running pod), or the containers' resources in place — the
 * rest of the body ignored, the rest of the pod kept as stored.
 */

/** The pod a write to `ephemeralcontainers` stores: `stored` with the body's ephemeral containers. */
export function withEphemeralContainers(body: KubeObject, stored: KubeObject): KubeObject {
  const spec = child(rec(stored), "spec");
  const sent = arrayAt(recordAt(rec(body), "spec") ?? {}, "ephemeralContainers");
  if (sent === undefined) delete spec.ephemeralContainers;
  else spec.ephemeralContainers = sent;
  return stored;
}

/**
 * The pod a write to `resize` stores: `stored` with each container's `resources` and
 * `resizePolicy` from the body. A body whose containers are not the stored ones, in order, is
 * kept whole, for validation to refuse.
 */
export function withResizedResources(body: KubeObject, stored: KubeObject): KubeObject {
  const sent = recordAt(rec(body), "spec") ?? {};
  const spec = child(rec(stored), "spec");
  const lists = ["containers", "initContainers"] as const;
  const reordered = lists.some((list) => {
    const mine = eachAt(sent, list);
    const theirs = eachAt(spec, list);
    return mine.length !== theirs.length || mine.some((c, i) => c.name !== theirs[i]!.name);
  });
  if (reordered) {
    rec(stored).spec = sent;
    return stored;
  }
  for (const list of lists) {
    const mine = eachAt(sent, list);
    eachAt(spec, list).forEach((c, i) => {
      for (const key of ["resources", "resizePolicy"]) {
        if (mine[i]![key] === undefined) delete c[key];
        else c[key] = mine[i]![key];
      }
    });
  }
  return stored;
}

/** Fields an ephemeral container may not set (kube's allow list, in its struct's order). */
const NOT_FOR_EPHEMERAL = [
  "ports",
  "resources",
  "resizePolicy",
  "restartPolicy",
  "restartPolicyRules",
  "livenessProbe",
  "readinessProbe",
  "startupProbe",
  "lifecycle",
];

/**
 * What kube refuses in a pod's ephemeral containers, wherever it validates a pod: each needs a
 * name unique among all the pod's containers and an image, may target only a container of the
 * pod, and may not set what would make it part of the workload (ports, probes, resources…).
 */
export function ephemeralContainerCauses(spec: Json): StatusCause[] {
  const path = "spec.ephemeralContainers";
  const causes: StatusCause[] = [];
  const others = new Set(
    [...eachAt(spec, "containers"), ...eachAt(spec, "initContainers")].map((c) => c.name),
  );
  const names = new Set(others);
  eachAt(spec, "ephemeralContainers").forEach((c, i) => {
    const p = `${path}[${i}]`;
    const named = typeof c.name === "string" && c.name !== "";
    if (!named) causes.push(field.required(`${p}.name`));
    if (typeof c.image !== "string" || c.image.trim() === "")
      causes.push(field.required(`${p}.image`));
    if (named && names.has(c.name)) causes.push(field.duplicate(`${p}.name`, c.name));
    else if (named) names.add(c.name);
    const target = c.targetContainerName;
    if (typeof target === "string" && target !== "" && !others.has(target))
      causes.push(field.notFound(`${p}.targetContainerName`, target));
    for (const key of NOT_FOR_EPHEMERAL) {
      if (isSet(c[key]))
        causes.push(field.forbidden(`${p}.${key}`, "cannot be set for an Ephemeral Container"));
    }
    eachAt(c, "volumeMounts").forEach((m, j) => {
      for (const key of ["subPath", "subPathExpr"]) {
        if (isSet(m[key]))
          causes.push(
            field.forbidden(
              `${p}.volumeMounts[${j}].${key}`,
              "cannot be set for an Ephemeral Container",
            ),
          );
      }
    });
  });
  return causes;
}

/**
 * What kube refuses in a write to `ephemeralcontainers` beyond the pod's validation: an
 * ephemeral container removed or changed. (kube appends a Go diff of the change to the message.)
 */
export function ephemeralContainersUpdateCauses(
  object: KubeObject,
  old: KubeObject,
): StatusCause[] {
  const path = "spec.ephemeralContainers";
  const causes: StatusCause[] = [];
  const spec = recordAt(rec(object), "spec") ?? {};
  const sent = new Map(eachAt(spec, "ephemeralContainers").map((c) => [c.name, c]));
  for (const was of eachAt(recordAt(rec(old), "spec") ?? {}, "ephemeralContainers")) {
    const now = sent.get(was.name);
    const name = JSON.stringify(was.name);
    if (now === undefined)
      causes.push(
        field.forbidden(path, `existing ephemeral containers ${name} may not be removed\n`),
      );
    else if (!deepEqual(now, was))
      causes.push(
        field.forbidden(path, `existing ephemeral containers ${name} may not be changed\n`),
      );
  }
  return causes;
}

/** What kube refuses in a write to `resize`. */
export function resizeCauses(object: KubeObject, old: KubeObject): StatusCause[] {
  const spec = recordAt(rec(object), "spec") ?? {};
  const was = recordAt(rec(old), "spec") ?? {};
  const causes: StatusCause[] = [];
  const qos = recordAt(rec(old), "status")?.qosClass;
  if (podQosClass(was) !== podQosClass(spec))
    causes.push(
      field.invalid("spec", qos ?? "", "Pod QOS Class may not change as a result of resizing"),
    );
  const ordering: StatusCause[] = [];
  for (const list of ["containers", "initContainers"]) {
    const mine = eachAt(spec, list);
    const theirs = eachAt(was, list);
    if (mine.length !== theirs.length) {
      ordering.push(
        field.forbidden(`spec.${list}`, `${list} may not be added or removed on resize`),
      );
      continue;
    }
    theirs.forEach((c, i) => {
      if (mine[i]!.name !== c.name)
        ordering.push(
          field.forbidden(
            `spec.${list}[${i}].name`,
            `${list} may not be renamed or reordered on resize`,
          ),
        );
    });
  }
  if (ordering.length > 0) return [...causes, ...ordering];
  eachAt(was, "containers").forEach((c, i) => {
    const now = eachAt(spec, "containers")[i]!;
    const p = `spec.containers[${i}].resources`;
    for (const [key, what] of [
      ["requests", "resource requests"],
      ["limits", "resource limits"],
    ] as const) {
      const before = Object.keys(recordAt(recordAt(c, "resources") ?? {}, key) ?? {});
      const after = recordAt(recordAt(now, "resources") ?? {}, key) ?? {};
      if (before.some((r) => !(r in after)))
        causes.push(field.forbidden(`${p}.${key}`, `${what} cannot be removed`));
    }
    if (!deepEqual(withoutCpuMemory(now), withoutCpuMemory(c)))
      causes.push(field.forbidden("spec", "only cpu and memory resources are mutable"));
  });
  return causes;
}

/** A container with its cpu and memory requests and limits, and its resize policy, left out. */
function withoutCpuMemory(container: Json): Json {
  const copy = structuredClone(container);
  delete copy.resizePolicy;
  const resources = recordAt(copy, "resources");
  for (const key of ["requests", "limits"]) {
    const list = resources === undefined ? undefined : recordAt(resources, key);
    if (list === undefined) continue;
    delete list.cpu;
    delete list.memory;
    if (Object.keys(list).length === 0) delete resources![key];
  }
  if (resources !== undefined && Object.keys(resources).length === 0) delete copy.resources;
  return copy;
}

function isSet(value: unknown): boolean {
  if (value === undefined || value === null || value === "" || value === false || value === 0)
    return false;
  if (Array.isArray(value)) return value.length > 0;
  if (typeof value === "object") return Object.values(value).some(isSet);
  return true;
}
