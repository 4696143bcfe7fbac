import type { KubeObject } from "../../../../core/index.ts";
import type { TableColumn } from "../../strategy.ts";
import { at, int, NAME, since, str } from "./common.ts";

/*
 * The columns of a core/v1 Event (events.k8s.io/v1 ones print the same, converted to it first).
 */

/**
 * First and last seen: firstTimestamp, else eventTime; lastTimestamp, else the first; a series'
 * last observation over both.
 */
function eventTimes(event: KubeObject, now: number): { first: string; last: string } {
  // A zero time is absent, or null as Go writes it.
  const zero = (path: string) => at(event, path) === undefined || at(event, path) === null;
  const first = zero("firstTimestamp")
    ? since(at(event, "eventTime"), now)
    : since(at(event, "firstTimestamp"), now);
  if (!zero("series")) return { first, last: since(at(event, "series.lastObservedTime"), now) };
  const last = zero("lastTimestamp") ? first : since(at(event, "lastTimestamp"), now);
  return { first, last };
}

/** The series' count, else the event's, 1 for a singleton event of the new API (no count). */
function eventCount(event: KubeObject): number {
  if (at(event, "series") !== undefined) return int(event, "series.count");
  const n = int(event, "count");
  return n === 0 ? 1 : n;
}

/** `kind/name` of the involved object, lowercased kind; only the kind when it has no name. */
function eventTarget(event: KubeObject): string {
  const kind = str(event, "involvedObject.kind").toLowerCase();
  const name = str(event, "involvedObject.name");
  return name === "" ? kind : `${kind}/${name}`;
}

/** `component, host` of the source, or of the reporting controller and instance. */
function eventSource(event: KubeObject): string {
  const component = str(event, "source.component") || str(event, "reportingComponent");
  const instance = str(event, "source.host") || str(event, "reportingInstance");
  return instance === "" ? component : `${component}, ${instance}`;
}

/** `kubectl get events [-o wide]`, of a core/v1 Event. */
export const EVENT_COLUMNS: readonly TableColumn[] = [
  {
    name: "Last Seen",
    type: "string",
    description: "The time at which the most recent occurrence of this event was recorded.",
    cell: (o, now) => eventTimes(o, now).last,
  },
  {
    name: "Type",
    type: "string",
    description: "Type of this event (Normal, Warning), new types could be added in the future",
    cell: (o) => str(o, "type"),
  },
  {
    name: "Reason",
    type: "string",
    description:
      "This should be a short, machine understandable string that gives the reason for the transition into the object's current status.",
    cell: (o) => str(o, "reason"),
  },
  {
    name: "Object",
    type: "string",
    description: "The object that this event is about.",
    cell: eventTarget,
  },
  {
    name: "Subobject",
    type: "string",
    priority: 1,
    description:
      'If referring to a piece of an object instead of an entire object, this string should contain a valid JSON/Go field access statement, such as desiredState.manifest.containers[2]. For example, if the object reference is to a container within a pod, this would take on a value like: "spec.containers{name}" (where "name" refers to the name of the container that triggered the event) or if no container name is specified "spec.containers[2]" (container with index 2 in this pod). This syntax is chosen only to have some well-defined way of referencing a part of an object.',
    cell: (o) => str(o, "involvedObject.fieldPath"),
  },
  {
    name: "Source",
    type: "string",
    priority: 1,
    description:
      "The component reporting this event. Should be a short machine understandable string.",
    cell: eventSource,
  },
  {
    name: "Message",
    type: "string",
    description: "A human-readable description of the status of this operation.",
    cell: (o) => str(o, "message").trim(),
  },
  {
    name: "First Seen",
    type: "string",
    priority: 1,
    description:
      "The time at which the event was first recorded. (Time of server receipt is in TypeMeta.)",
    cell: (o, now) => eventTimes(o, now).first,
  },
  {
    name: "Count",
    type: "string",
    priority: 1,
    description: "The number of times this event has occurred.",
    cell: eventCount,
  },
  // kube prints an event's name last, and only with -o wide.
  { ...NAME, priority: 1 },
];
