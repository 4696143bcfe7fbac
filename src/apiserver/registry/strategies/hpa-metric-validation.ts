import { checkDns1123Label, checkQualifiedName, type StatusCause } from "../../../core/index.ts";
import { field } from "../field-errors.ts";
import { type Json, recordAt } from "./util.ts";

/*
 * kube's validation of one HorizontalPodAutoscaler metric (autoscaling/validation), on the v2
 * form, and of the object references it and the spec hold.
 */

/** How lenient a CrossVersionObjectReference's apiVersion check is. */
export interface RefRules {
  /** An unparseable apiVersion passes (an update that keeps the old one). */
  readonly allowInvalidApiVersion: boolean;
  /** An apiVersion of the core group (`v1`) passes. */
  readonly allowEmptyGroup: boolean;
}

const METRIC_SOURCE_TYPES = ["ContainerResource", "External", "Object", "Pods", "Resource"];
/** The source field of each metric type, in the order kube looks for them. */
export const SOURCES: readonly (readonly [type: string, key: string])[] = [
  ["Object", "object"],
  ["External", "external"],
  ["Pods", "pods"],
  ["Resource", "resource"],
  ["ContainerResource", "containerResource"],
];

/** The resource names kube knows without a domain prefix. */
const STANDARD_RESOURCES = new Set([
  "cpu",
  "memory",
  "ephemeral-storage",
  "requests.cpu",
  "requests.memory",
  "requests.ephemeral-storage",
  "limits.cpu",
  "limits.memory",
  "limits.ephemeral-storage",
  "pods",
  "resourcequotas",
  "services",
  "replicationcontrollers",
  "secrets",
  "configmaps",
  "persistentvolumeclaims",
  "storage",
  "requests.storage",
  "services.nodeports",
  "services.loadbalancers",
]);
const CONTAINER_RESOURCES = new Set(["cpu", "memory", "ephemeral-storage"]);

export const str = (v: unknown): string => (typeof v === "string" ? v : "");
export const num = (v: unknown): number | undefined => (typeof v === "number" ? v : undefined);

/** The sign of a quantity (`-500m`: -1, `0Mi`: 0, `2`: 1). */
export function quantitySign(q: unknown): number {
  const s = String(q);
  const digits = /^[+-]?(\d*\.?\d*)/.exec(s)?.[1] ?? "";
  if (Number(digits === "" || digits === "." ? "0" : digits) === 0) return 0;
  return s.startsWith("-") ? -1 : 1;
}

/** kube's path segment name rule (a metric's name, a reference's kind and name). */
function pathSegmentProblems(name: string): string[] {
  if (name === "." || name === "..") return [`may not be '${name}'`];
  return ["/", "%"].filter((c) => name.includes(c)).map((c) => `may not contain '${c}'`);
}

/** A reference's apiVersion problem, as kube's ParseGroupVersion and group rule say. */
export function apiVersionProblem(apiVersion: string, rules: RefRules): string | undefined {
  if (rules.allowInvalidApiVersion) return undefined;
  let group = "";
  if (apiVersion !== "" && apiVersion !== "/") {
    const parts = apiVersion.split("/");
    if (parts.length > 2) return `unexpected GroupVersion string: ${apiVersion}`;
    if (parts.length === 2) group = parts[0]!;
  }
  return !rules.allowEmptyGroup && group === "" ? "apiVersion must specify API group" : undefined;
}

export function refCauses(ref: Json, path: string, rules: RefRules): StatusCause[] {
  const causes: StatusCause[] = [];
  for (const key of ["kind", "name"]) {
    const value = str(ref[key]);
    if (value === "") causes.push(field.required(`${path}.${key}`));
    for (const p of value === "" ? [] : pathSegmentProblems(value))
      causes.push(field.invalid(`${path}.${key}`, value, p));
  }
  const problem = apiVersionProblem(str(ref.apiVersion), rules);
  if (problem) causes.push(field.invalid(`${path}.apiVersion`, str(ref.apiVersion), problem));
  return causes;
}

export function metricCauses(m: Json, path: string, objectRefs: RefRules): StatusCause[] {
  const causes: StatusCause[] = [];
  const type = str(m.type);
  if (type === "") causes.push(field.required(`${path}.type`, "must specify a metric source type"));
  if (!METRIC_SOURCE_TYPES.includes(type))
    causes.push(field.notSupported(`${path}.type`, type, METRIC_SOURCE_TYPES));
  const present = SOURCES.filter(([, key]) => m[key] != null).map(([, key]) => key);
  // kube validates the first source it finds, and forbids the others.
  const first = present[0];
  if (first !== undefined) {
    const source = (m[first] ?? {}) as Json;
    const at = `${path}.${first}`;
    if (first === "object") causes.push(...objectCauses(source, at, objectRefs));
    else if (first === "external") causes.push(...externalCauses(source, at));
    else if (first === "pods") causes.push(...podsCauses(source, at));
    else causes.push(...resourceCauses(source, at, first === "containerResource"));
  }
  const expected = SOURCES.find(([t]) => t === type)?.[1];
  if (expected === undefined)
    causes.push(field.notSupported(`${path}.type`, type, METRIC_SOURCE_TYPES));
  else if (m[expected] == null)
    causes.push(
      field.required(
        `${path}.${expected}`,
        "must populate information for the given metric source",
      ),
    );
  if (present.length !== 1)
    for (const key of present.filter((k) => k !== expected))
      causes.push(field.forbidden(`${path}.${key}`, "must populate the given metric source only"));
  return causes;
}

function identifierCauses(metric: Json, path: string): StatusCause[] {
  const name = str(metric.name);
  if (name === "") return [field.required(`${path}.name`, "must specify a metric name")];
  return pathSegmentProblems(name).map((p) => field.invalid(`${path}.name`, name, p));
}

function targetCauses(target: Json, path: string): StatusCause[] {
  const causes: StatusCause[] = [];
  const type = str(target.type);
  if (type === "") causes.push(field.required(`${path}.type`, "must specify a metric target type"));
  if (!["Utilization", "Value", "AverageValue"].includes(type))
    causes.push(
      field.invalid(`${path}.type`, type, "must be either Utilization, Value, or AverageValue"),
    );
  for (const key of ["value", "averageValue"]) {
    const q = target[key];
    if (q != null && quantitySign(q) !== 1)
      causes.push(field.invalid(`${path}.${key}`, String(q), "must be positive"));
  }
  const utilization = num(target.averageUtilization);
  if (utilization !== undefined && utilization < 1)
    causes.push(field.invalid(`${path}.averageUtilization`, utilization, "must be greater than 0"));
  return causes;
}

function objectCauses(source: Json, path: string, refs: RefRules): StatusCause[] {
  const target = recordAt(source, "target") ?? {};
  return [
    ...refCauses(recordAt(source, "describedObject") ?? {}, `${path}.describedObject`, refs),
    ...identifierCauses(recordAt(source, "metric") ?? {}, `${path}.metric`),
    ...targetCauses(target, `${path}.target`),
    ...(target.value == null && target.averageValue == null
      ? [
          field.required(
            `${path}.target.averageValue`,
            "must set either a target value or averageValue",
          ),
        ]
      : []),
  ];
}

function externalCauses(source: Json, path: string): StatusCause[] {
  const target = recordAt(source, "target") ?? {};
  const causes = [
    ...identifierCauses(recordAt(source, "metric") ?? {}, `${path}.metric`),
    ...targetCauses(target, `${path}.target`),
  ];
  if (target.value == null && target.averageValue == null)
    causes.push(
      field.required(
        `${path}.target.averageValue`,
        "must set either a target value for metric or a per-pod target",
      ),
    );
  if (target.value != null && target.averageValue != null)
    causes.push(
      field.forbidden(
        `${path}.target.value`,
        "may not set both a target value for metric and a per-pod target",
      ),
    );
  return causes;
}

function podsCauses(source: Json, path: string): StatusCause[] {
  const target = recordAt(source, "target") ?? {};
  return [
    ...identifierCauses(recordAt(source, "metric") ?? {}, `${path}.metric`),
    ...targetCauses(target, `${path}.target`),
    ...(target.averageValue == null
      ? [
          field.required(
            `${path}.target.averageValue`,
            "must specify a positive target averageValue",
          ),
        ]
      : []),
  ];
}

function resourceCauses(source: Json, path: string, container: boolean): StatusCause[] {
  const causes: StatusCause[] = [];
  const name = str(source.name);
  if (name === "") causes.push(field.required(`${path}.name`, "must specify a resource name"));
  else if (container) causes.push(...containerResourceNameCauses(name, `${path}.name`));
  if (container) {
    const c = str(source.container);
    const problem = c === "" ? undefined : checkDns1123Label(c);
    if (c === "") causes.push(field.required(`${path}.container`, "must specify a container"));
    else if (problem) causes.push(field.invalid(`${path}.container`, c, problem));
  }
  const target = recordAt(source, "target") ?? {};
  causes.push(...targetCauses(target, `${path}.target`));
  if (target.averageUtilization == null && target.averageValue == null)
    causes.push(
      field.required(
        `${path}.target.averageUtilization`,
        "must set either a target raw value or a target utilization",
      ),
    );
  if (target.averageUtilization != null && target.averageValue != null)
    causes.push(
      field.forbidden(
        `${path}.target.averageValue`,
        "may not set both a target raw value and a target utilization",
      ),
    );
  return causes;
}

/** kube's ValidateContainerResourceName. */
function containerResourceNameCauses(name: string, path: string): StatusCause[] {
  const problem = checkQualifiedName(name);
  if (problem) return [field.invalid(path, name, problem)];
  if (name.includes("/")) return [];
  const causes: StatusCause[] = [];
  if (!STANDARD_RESOURCES.has(name) && !/^(requests\.)?hugepages-/.test(name))
    causes.push(field.invalid(path, name, "must be a standard resource type or fully qualified"));
  if (!CONTAINER_RESOURCES.has(name) && !name.startsWith("hugepages-"))
    causes.push(field.invalid(path, name, "must be a standard resource for containers"));
  return causes;
}
