import { goField, goInt32, goQuantity, goString, goStruct, goTime } from "./hpa-annotations.ts";
import type { Json } from "./util.ts";

/*
 * One metric (spec or status) of a HorizontalPodAutoscaler between autoscaling/v2 and the v1
 * form kube writes in the round-trip annotations, field by field as kube's conversion maps
 * them. v1 → v2 reads the annotation's JSON as Go does (see hpa-annotations.ts); v2 → v1 reads
 * the stored object, and writes every field Go writes (a quantity held by value as "0").
 */

/** A Go struct field, or undefined. */
const at = (o: unknown, key: string): Json =>
  typeof o === "object" && o !== null && typeof (o as Json)[key] === "object"
    ? (((o as Json)[key] ?? {}) as Json)
    : {};

/** The keys of `o` whose values are not undefined (what `omitempty` writes). */
function defined(o: Json): Json {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined && v !== null));
}

/** True if a quantity is zero (`0`, `0.0`, `0Mi`). */
function isZero(quantity: string): boolean {
  const number = /^[+-]?(\d*\.?\d*)/.exec(quantity)?.[1] ?? "";
  return Number(number === "" || number === "." ? "0" : number) === 0;
}

/** A v1 CrossVersionObjectReference (kind, name, apiVersion when set) read as Go does. */
function refFromV1(value: unknown): Json {
  const ref = goStruct(value) ?? {};
  return defined({
    kind: goString(goField(ref, "kind")) ?? "",
    name: goString(goField(ref, "name")) ?? "",
    apiVersion: goString(goField(ref, "apiVersion")) || undefined,
  });
}

/** A stored CrossVersionObjectReference as v1 writes it. */
function refToV1(ref: Json): Json {
  return defined({
    kind: ref.kind ?? "",
    name: ref.name ?? "",
    apiVersion: ref.apiVersion || undefined,
  });
}

/** A v2 MetricIdentifier from a v1 metric name and selector. */
function identifier(name: unknown, selector: unknown): Json {
  return defined({ name: goString(name) ?? "", selector: goStruct(selector) });
}

/** A v1 MetricSpec (from the metrics annotation) as v2. */
export function metricSpecFromV1(value: unknown): Json {
  const m = goStruct(value) ?? {};
  const out: Json = { type: goString(goField(m, "type")) ?? "" };
  const object = goStruct(goField(m, "object"));
  if (object !== undefined) {
    const averageValue = goQuantity(goField(object, "averageValue"));
    const value = goQuantity(goField(object, "targetValue")) ?? "0";
    out.object = {
      describedObject: refFromV1(goField(object, "target")),
      target: defined({
        type: averageValue === undefined ? "Value" : "AverageValue",
        // A zero value beside an average is v1's unset value, not a target.
        value: averageValue === undefined || !isZero(value) ? value : undefined,
        averageValue,
      }),
      metric: identifier(goField(object, "metricName"), goField(object, "selector")),
    };
  }
  const pods = goStruct(goField(m, "pods"));
  if (pods !== undefined) {
    out.pods = {
      metric: identifier(goField(pods, "metricName"), goField(pods, "selector")),
      target: {
        type: "AverageValue",
        averageValue: goQuantity(goField(pods, "targetAverageValue")) ?? "0",
      },
    };
  }
  for (const key of ["resource", "containerResource"]) {
    const source = goStruct(goField(m, key));
    if (source === undefined) continue;
    const averageUtilization = goInt32(goField(source, "targetAverageUtilization"));
    out[key] = defined({
      name: goString(goField(source, "name")) ?? "",
      target: defined({
        type: averageUtilization === undefined ? "AverageValue" : "Utilization",
        averageValue: goQuantity(goField(source, "targetAverageValue")),
        averageUtilization,
      }),
      container:
        key === "containerResource" ? (goString(goField(source, "container")) ?? "") : undefined,
    });
  }
  const external = goStruct(goField(m, "external"));
  if (external !== undefined) {
    const value = goQuantity(goField(external, "targetValue"));
    out.external = {
      metric: identifier(goField(external, "metricName"), goField(external, "metricSelector")),
      target: defined({
        type: value === undefined ? "AverageValue" : "Value",
        value,
        averageValue: goQuantity(goField(external, "targetAverageValue")),
      }),
    };
  }
  return out;
}

/** A stored v2 MetricSpec as the v1 one of the metrics annotation. */
export function metricSpecToV1(m: Json): Json {
  const out: Json = { type: m.type ?? "" };
  if (m.object != null) {
    const target = at(m.object, "target");
    const metric = at(m.object, "metric");
    out.object = defined({
      target: refToV1(at(m.object, "describedObject")),
      metricName: metric.name ?? "",
      targetValue: target.value ?? "0",
      selector: metric.selector,
      averageValue: target.averageValue,
    });
  }
  if (m.pods != null) {
    const metric = at(m.pods, "metric");
    out.pods = defined({
      metricName: metric.name ?? "",
      targetAverageValue: at(m.pods, "target").averageValue ?? "0",
      selector: metric.selector,
    });
  }
  for (const key of ["resource", "containerResource"]) {
    if (m[key] == null) continue;
    const source = m[key] as Json;
    const target = at(source, "target");
    out[key] = defined({
      name: source.name ?? "",
      targetAverageUtilization: target.averageUtilization,
      targetAverageValue: target.averageValue,
      container: key === "containerResource" ? (source.container ?? "") : undefined,
    });
  }
  if (m.external != null) {
    const target = at(m.external, "target");
    const metric = at(m.external, "metric");
    out.external = defined({
      metricName: metric.name ?? "",
      metricSelector: metric.selector,
      targetValue: target.value,
      targetAverageValue: target.averageValue,
    });
  }
  return out;
}

/** A v1 MetricStatus (from the current-metrics annotation) as v2. */
export function metricStatusFromV1(value: unknown): Json {
  const m = goStruct(value) ?? {};
  const out: Json = { type: goString(goField(m, "type")) ?? "" };
  const object = goStruct(goField(m, "object"));
  if (object !== undefined) {
    out.object = {
      metric: identifier(goField(object, "metricName"), goField(object, "selector")),
      current: defined({
        value: goQuantity(goField(object, "currentValue")) ?? "0",
        averageValue: goQuantity(goField(object, "averageValue")),
      }),
      describedObject: refFromV1(goField(object, "target")),
    };
  }
  const pods = goStruct(goField(m, "pods"));
  if (pods !== undefined) {
    out.pods = {
      metric: identifier(goField(pods, "metricName"), goField(pods, "selector")),
      current: { averageValue: goQuantity(goField(pods, "currentAverageValue")) ?? "0" },
    };
  }
  for (const key of ["resource", "containerResource"]) {
    const source = goStruct(goField(m, key));
    if (source === undefined) continue;
    out[key] = defined({
      name: goString(goField(source, "name")) ?? "",
      current: defined({
        averageValue: goQuantity(goField(source, "currentAverageValue")) ?? "0",
        averageUtilization: goInt32(goField(source, "currentAverageUtilization")),
      }),
      container:
        key === "containerResource" ? (goString(goField(source, "container")) ?? "") : undefined,
    });
  }
  const external = goStruct(goField(m, "external"));
  if (external !== undefined) {
    out.external = {
      metric: identifier(goField(external, "metricName"), goField(external, "metricSelector")),
      current: defined({
        value: goQuantity(goField(external, "currentValue")) ?? "0",
        averageValue: goQuantity(goField(external, "currentAverageValue")),
      }),
    };
  }
  return out;
}

/** A stored v2 MetricStatus as the v1 one of the current-metrics annotation. */
export function metricStatusToV1(m: Json): Json {
  const out: Json = { type: m.type ?? "" };
  if (m.object != null) {
    const current = at(m.object, "current");
    const metric = at(m.object, "metric");
    out.object = defined({
      target: refToV1(at(m.object, "describedObject")),
      metricName: metric.name ?? "",
      currentValue: current.value ?? "0",
      selector: metric.selector,
      averageValue: current.averageValue,
    });
  }
  if (m.pods != null) {
    const metric = at(m.pods, "metric");
    out.pods = defined({
      metricName: metric.name ?? "",
      currentAverageValue: at(m.pods, "current").averageValue ?? "0",
      selector: metric.selector,
    });
  }
  for (const key of ["resource", "containerResource"]) {
    if (m[key] == null) continue;
    const source = m[key] as Json;
    const current = at(source, "current");
    out[key] = defined({
      name: source.name ?? "",
      currentAverageUtilization: current.averageUtilization,
      currentAverageValue: current.averageValue ?? "0",
      container: key === "containerResource" ? (source.container ?? "") : undefined,
    });
  }
  if (m.external != null) {
    const current = at(m.external, "current");
    const metric = at(m.external, "metric");
    out.external = defined({
      metricName: metric.name ?? "",
      metricSelector: metric.selector,
      currentValue: current.value ?? "0",
      currentAverageValue: current.averageValue,
    });
  }
  return out;
}

/** A v1 condition (from the conditions annotation) as v2; the two have the same fields. */
export function conditionFromV1(value: unknown): Json {
  const c = goStruct(value) ?? {};
  return conditionFields({
    type: goString(goField(c, "type")),
    status: goString(goField(c, "status")),
    lastTransitionTime: goTime(goField(c, "lastTransitionTime")),
    reason: goString(goField(c, "reason")),
    message: goString(goField(c, "message")),
  });
}

/** A condition as Go writes it: type and status always, a zero time as null. */
export function conditionFields(c: Json): Json {
  return {
    type: c.type ?? "",
    status: c.status ?? "",
    lastTransitionTime: c.lastTransitionTime ?? null,
    ...defined({ reason: c.reason || undefined, message: c.message || undefined }),
  };
}
