import type { KubeObject, StatusCause } from "../../../core/index.ts";
import { field } from "../field-errors.ts";
import type { Strategy } from "../strategy.ts";
import { LEASE_COLUMNS } from "./columns/cluster.ts";
import { EVENT_COLUMNS } from "./columns/events.ts";
import { legacyEventCauses, v1EventCreateCauses, v1EventUpdateCauses } from "./event-validation.ts";
import { type Json, rec, recordAt, setDefault, stringAt } from "./util.ts";

/**
 * The fields of a core/v1 Event Go writes even when empty, as kube returns them: the source (a
 * struct held by value), the times (structs that write null when zero) and the reporting
 * strings (no omitempty). Set after field management: nobody owns them, as on kube.
 */
function writeGoZeroes(object: KubeObject): void {
  const o = rec(object);
  setDefault(o, "source", {});
  for (const time of ["firstTimestamp", "lastTimestamp", "eventTime"]) setDefault(o, time, null);
  setDefault(o, "reportingComponent", "");
  setDefault(o, "reportingInstance", "");
}

/**
 * core/v1 Events: the legacy validation rules of kube's `ValidateEventCreate`, which check no
 * metadata (any name the generic checks allow).
 */
export const eventStrategy: Strategy = {
  nameRule: "none",
  prepareForCreate: writeGoZeroes,
  prepareForUpdate: writeGoZeroes,
  validate: (object) => legacyEventCauses(object, "reportingComponent"),
  fieldSelectors: [
    "involvedObject.kind",
    "involvedObject.namespace",
    "involvedObject.name",
    "involvedObject.uid",
    "involvedObject.apiVersion",
    "involvedObject.resourceVersion",
    "involvedObject.fieldPath",
    "reason",
    "reportingComponent",
    "source",
    "type",
  ],
  fields: (o) => ({
    "involvedObject.kind": stringAt(o, "involvedObject.kind"),
    "involvedObject.namespace": stringAt(o, "involvedObject.namespace"),
    "involvedObject.name": stringAt(o, "involvedObject.name"),
    "involvedObject.uid": stringAt(o, "involvedObject.uid"),
    "involvedObject.apiVersion": stringAt(o, "involvedObject.apiVersion"),
    "involvedObject.resourceVersion": stringAt(o, "involvedObject.resourceVersion"),
    "involvedObject.fieldPath": stringAt(o, "involvedObject.fieldPath"),
    reason: stringAt(o, "reason"),
    reportingComponent: stringAt(o, "reportingComponent"),
    source: stringAt(o, "source.component"),
    type: stringAt(o, "type"),
  }),
  columns: EVENT_COLUMNS,
};

/**
 * events.k8s.io/v1 Events (stored as core/v1 ones): a create passes the legacy rules, then its
 * metadata is checked (a DNS subdomain name), then it needs eventTime and a type of Normal or
 * Warning and may not set the deprecated fields; an update passes the legacy rules and may not
 * change what the event reports.
 */
export const eventV1Strategy: Strategy = {
  ...eventStrategy,
  validate: undefined,
  validateCreate: v1EventCreateCauses,
  validateUpdate: (object, old) => [
    ...legacyEventCauses(object),
    ...v1EventUpdateCauses(object, old),
  ],
  // kube prints both versions from its internal (core) form.
  columns: EVENT_COLUMNS.map((c) => ({ ...c, cell: (o, now) => c.cell(eventFromV1(o), now) })),
};

/** Field renames between core/v1 Event (stored) and events.k8s.io/v1 Event. */
const RENAMES: readonly [core: string, v1: string][] = [
  ["message", "note"],
  ["involvedObject", "regarding"],
  ["reportingComponent", "reportingController"],
  ["source", "deprecatedSource"],
  ["firstTimestamp", "deprecatedFirstTimestamp"],
  ["lastTimestamp", "deprecatedLastTimestamp"],
  ["count", "deprecatedCount"],
];

/** A stored core/v1 Event as events.k8s.io/v1 (whose reporting strings are omitted when empty). */
export function eventToV1(object: KubeObject): KubeObject {
  const out = rec(renamed(object, "events.k8s.io/v1", RENAMES));
  for (const key of ["reportingController", "reportingInstance"])
    if (out[key] === "") delete out[key];
  return out as KubeObject;
}

/** An events.k8s.io/v1 Event in its stored core/v1 form. */
export function eventFromV1(object: KubeObject): KubeObject {
  return renamed(
    object,
    "v1",
    RENAMES.map(([core, v1]) => [v1, core]),
  );
}

/** An Event at `apiVersion`, each field of `renames` moved from its first name to its second. */
function renamed(
  object: KubeObject,
  apiVersion: string,
  renames: readonly (readonly [string, string])[],
): KubeObject {
  const out: Json = { ...rec(object), apiVersion, kind: "Event" };
  for (const [from, to] of renames) {
    if (out[from] !== undefined) out[to] = out[from];
    delete out[from];
  }
  return out as KubeObject;
}

/** Leases: durations and transitions must not be negative. */
export const leaseStrategy: Strategy = {
  validate(object) {
    const spec = recordAt(rec(object), "spec") ?? {};
    const causes: StatusCause[] = [];
    const d = spec.leaseDurationSeconds;
    if (d !== undefined && d !== null && (!Number.isInteger(d) || (d as number) <= 0)) {
      causes.push(field.invalid("spec.leaseDurationSeconds", d, "must be greater than 0"));
    }
    const t = spec.leaseTransitions;
    if (t !== undefined && t !== null && (!Number.isInteger(t) || (t as number) < 0)) {
      causes.push(field.invalid("spec.leaseTransitions", t, "must be greater than or equal to 0"));
    }
    return causes;
  },
  columns: LEASE_COLUMNS,
};
