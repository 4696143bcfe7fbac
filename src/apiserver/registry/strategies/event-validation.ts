import {
  checkQualifiedName,
  deepEqual,
  type KubeObject,
  type StatusCause,
} from "../../../core/index.ts";
import { field } from "../field-errors.ts";
import { validateObjectMeta } from "../object-meta.ts";
import { type Json, rec, recordAt } from "./util.ts";

/*
 * Event validation as kube's pkg/apis/core/validation/events.go: the legacy rules every Event
 * passes (core/v1 and events.k8s.io/v1), and the strict ones of events.k8s.io/v1. Events are
 * stored in their core/v1 form, so fields are named as there (message, involvedObject, count…),
 * which is also how kube names them in its errors — it validates the internal type.
 */

const LIMIT_128 = 128;
const NOTE_LIMIT = 1024;

const isSet = (v: unknown) => v !== undefined && v !== null && v !== "";
const text = (v: unknown) => (typeof v === "string" ? v : "");

/**
 * kube's `legacyValidateEvent`, which names the reporting controller by its field in the
 * request's version: `reportingComponent` in core/v1, `reportingController` in events.k8s.io/v1.
 */
export function legacyEventCauses(
  object: KubeObject,
  controllerField = "reportingController",
): StatusCause[] {
  const o = rec(object);
  const causes: StatusCause[] = [];
  const ns = object.metadata?.namespace ?? "";
  const involvedNs = text(recordAt(o, "involvedObject")?.namespace);
  const mismatch = () =>
    field.invalid("involvedObject.namespace", involvedNs, "does not match event.namespace");
  if (!isSet(o.eventTime)) {
    // An old-style event: its namespace is its object's (or default, for cluster-scoped ones).
    if (involvedNs === "" ? ns !== "" && ns !== "default" : ns !== involvedNs)
      causes.push(mismatch());
    return causes;
  }
  if (involvedNs === "" && ns !== "default" && ns !== "kube-system") causes.push(mismatch());
  const controller = text(o.reportingComponent);
  if (controller === "") {
    // Required, and then not a qualified name: kube reports both problems of an empty name part
    // (it is empty, and so does not match the pattern, which "-" shows alone).
    causes.push(
      field.required(controllerField),
      field.invalid(controllerField, "", "name part must be non-empty"),
      field.invalid(controllerField, "", checkQualifiedName("-")!),
    );
  } else {
    const bad = checkQualifiedName(controller);
    if (bad) causes.push(field.invalid(controllerField, controller, bad));
  }
  for (const [k, limit] of [
    ["reportingInstance", LIMIT_128],
    ["action", LIMIT_128],
    ["reason", LIMIT_128],
  ] as const) {
    const v = text(o[k]);
    if (v === "") causes.push(field.required(k));
    else if (v.length > limit)
      causes.push(field.invalid(k, "", `can have at most ${limit} characters`));
  }
  if (text(o.message).length > NOTE_LIMIT)
    causes.push(field.invalid("message", "", `can have at most ${NOTE_LIMIT} characters`));
  return causes;
}

function seriesCauses(o: Json): StatusCause[] {
  const series = recordAt(o, "series");
  if (series === undefined) return [];
  const causes: StatusCause[] = [];
  if (!(typeof series.count === "number" && series.count >= 2))
    causes.push(field.invalid("series.count", "", "should be at least 2"));
  if (!isSet(series.lastObservedTime)) causes.push(field.required("series.lastObservedTime"));
  return causes;
}

/**
 * kube's `ValidateEventCreate` for events.k8s.io/v1: the legacy rules, the metadata (names as
 * DNS subdomains) and the strict rules.
 */
export function v1EventCreateCauses(object: KubeObject): StatusCause[] {
  const o = rec(object);
  const causes = [
    ...legacyEventCauses(object),
    ...validateObjectMeta(object.metadata ?? {}, "subdomain", true),
    ...seriesCauses(o),
  ];
  if (!isSet(o.eventTime)) causes.push(field.required("eventTime"));
  if (o.type !== "Normal" && o.type !== "Warning")
    causes.push(field.invalid("type", "", `has invalid value: ${text(o.type)}`));
  for (const k of ["firstTimestamp", "lastTimestamp"]) {
    if (isSet(o[k])) causes.push(field.invalid(k, "", "needs to be unset"));
  }
  if (isSet(o.count) && o.count !== 0) causes.push(field.invalid("count", "", "needs to be unset"));
  const source = recordAt(o, "source");
  if (isSet(source?.component) || isSet(source?.host))
    causes.push(field.invalid("source", "", "needs to be unset"));
  return causes;
}

/** Fields an events.k8s.io/v1 update may not change (their core/v1 names). */
const IMMUTABLE = [
  "involvedObject",
  "reason",
  "message",
  "source",
  "firstTimestamp",
  "lastTimestamp",
  "count",
  "type",
  "eventTime",
  "action",
  "related",
  "reportingComponent",
  "reportingInstance",
];

/** kube's `ValidateEventUpdate` for events.k8s.io/v1, besides the legacy rules. */
export function v1EventUpdateCauses(object: KubeObject, old: KubeObject): StatusCause[] {
  const o = rec(object);
  const prev = rec(old);
  const causes: StatusCause[] = [];
  if (!deepEqual(o.series, prev.series)) causes.push(...seriesCauses(o));
  for (const k of IMMUTABLE) {
    if (!deepEqual(o[k] ?? null, prev[k] ?? null)) {
      causes.push(field.immutable(k === "reportingComponent" ? "reportingController" : k, o[k]));
    }
  }
  return causes;
}
