import type { KubeObject } from "../../../../core/index.ts";
import type { TableColumn } from "../../strategy.ts";
import { arrayAt, type Json, rec, recordAt } from "../util.ts";

/*
 * What every kind's Table columns share, as kube-apiserver's printers compute it: the Name and
 * Age columns, ages, label and selector strings, and a pod template's containers and images.
 */

/** The description kube gives a Name column (ObjectMeta's `name`). */
const NAME_DESCRIPTION =
  "Name must be unique within a namespace. Is required when creating resources, although some resources may allow a client to request the generation of an appropriate name automatically. Name is primarily intended for creation idempotence and configuration definition. Cannot be updated. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names#names";

/** The description kube gives an Age column (ObjectMeta's `creationTimestamp`). */
const CREATION_DESCRIPTION =
  "CreationTimestamp is a timestamp representing the server time when this object was created. It is not guaranteed to be set in happens-before order across separate operations. Clients may not set this value. It is represented in RFC3339 form and is in UTC.\n\nPopulated by the system. Read-only. Null for lists. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata";

/** The object's name, in the column kube's printers put first. */
export const NAME: TableColumn = {
  name: "Name",
  type: "string",
  format: "name",
  description: NAME_DESCRIPTION,
  cell: (o) => o.metadata?.name ?? "",
};

/** How long ago the object was created (`5m3s`). */
export const AGE: TableColumn = {
  name: "Age",
  type: "string",
  description: CREATION_DESCRIPTION,
  cell: (o, now) => since(o.metadata?.creationTimestamp, now),
};

/**
 * The two columns of a kind kube has no printer for (its default table: Roles, ClusterRoles,
 * LimitRanges, CSIStorageCapacities, CustomResourceDefinitions): the name and the creation
 * time itself, RFC 3339, in a `date` column.
 */
export const DEFAULT_COLUMNS: readonly TableColumn[] = [
  NAME,
  {
    name: "Created At",
    type: "date",
    description: CREATION_DESCRIPTION,
    cell: (o) => o.metadata?.creationTimestamp ?? "0001-01-01T00:00:00Z",
  },
];

/**
 * kube's `duration.HumanDuration`: `42s`, `5m3s`, `3h`, `2d4h`, `3y`; a duration up to a second
 * and a bit below zero (clock skew) is `0s`, a more negative one `<invalid>`.
 */
export function humanDuration(ms: number): string {
  const seconds = Math.trunc(ms / 1000);
  if (seconds < -1) return "<invalid>";
  if (seconds < 0) return "0s";
  if (seconds < 120) return `${seconds}s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 10) return seconds % 60 === 0 ? `${minutes}m` : `${minutes}m${seconds % 60}s`;
  if (minutes < 180) return `${minutes}m`;
  const hours = Math.floor(minutes / 60);
  if (hours < 8) return minutes % 60 === 0 ? `${hours}h` : `${hours}h${minutes % 60}m`;
  if (hours < 48) return `${hours}h`;
  if (hours < 24 * 8)
    return hours % 24 === 0 ? `${hours / 24}d` : `${Math.floor(hours / 24)}d${hours % 24}h`;
  if (hours < 24 * 365 * 2) return `${Math.floor(hours / 24)}d`;
  const days = Math.floor(hours / 24);
  if (hours < 24 * 365 * 8)
    return days % 365 === 0 ? `${days / 365}y` : `${Math.floor(days / 365)}y${days % 365}d`;
  return `${Math.floor(days / 365)}y`;
}

/** Milliseconds of an RFC 3339 timestamp, or undefined when absent or unparseable. */
export function timeOf(value: unknown): number | undefined {
  if (typeof value !== "string" || value === "") return undefined;
  const t = Date.parse(value);
  return Number.isNaN(t) ? undefined : t;
}

/** kube's `translateTimestampSince`: the time since a timestamp, `<unknown>` without one. */
export function since(value: unknown, now: number): string {
  const t = timeOf(value);
  return t === undefined ? "<unknown>" : humanDuration(now - t);
}

/** The value at a dotted path (`spec.template.spec`), or undefined. */
export function at(object: unknown, path: string): unknown {
  let cur: unknown = object;
  for (const part of path.split(".")) {
    if (typeof cur !== "object" || cur === null || Array.isArray(cur)) return undefined;
    cur = (cur as Json)[part];
  }
  return cur;
}

/** The string at a path, or `fallback` when absent or empty. */
export function str(object: unknown, path: string, fallback = ""): string {
  const v = at(object, path);
  return v === undefined || v === null || v === "" ? fallback : String(v);
}

/** The integer at a path, 0 when absent (kube's int32 fields print as int64 cells). */
export function int(object: unknown, path: string): number {
  const v = at(object, path);
  return typeof v === "number" ? v : 0;
}

/** The records of the array at a path. */
export function items(object: unknown, path: string): Json[] {
  const v = at(object, path);
  return Array.isArray(v) ? v.map((x) => rec(x)) : [];
}

/** The length of the array (or the size of the map) at a path. */
export function count(object: unknown, path: string): number {
  const v = at(object, path);
  if (Array.isArray(v)) return v.length;
  return typeof v === "object" && v !== null ? Object.keys(v).length : 0;
}

/** kube's `printBoolPtr`: `True`, `False`, or `<unset>`. */
export function boolPtr(value: unknown): string {
  if (typeof value !== "boolean") return "<unset>";
  return value ? "True" : "False";
}

/** The first condition of a type in `status.conditions`. */
export function condition(object: unknown, type: string): Json | undefined {
  return items(object, "status.conditions").find((c) => c.type === type);
}

/** kube's `labels.FormatLabels`: `k=v` pairs sorted and joined by commas, or `<none>`. */
export function formatLabels(labels: unknown): string {
  const map = typeof labels === "object" && labels !== null ? (labels as Json) : {};
  const pairs = Object.entries(map).map(([k, v]) => `${k}=${v}`);
  return pairs.length === 0 ? "<none>" : pairs.sort().join(",");
}

const OPERATORS: Record<string, (key: string, values: string) => string> = {
  In: (k, v) => `${k} in (${v})`,
  NotIn: (k, v) => `${k} notin (${v})`,
  Exists: (k) => k,
  DoesNotExist: (k) => `!${k}`,
};

/**
 * A label selector as kube's `LabelSelectorAsSelector(...).String()` writes it: its
 * requirements sorted by key (`app=web,tier in (a,b),!canary`); empty for no selector or an
 * empty one; undefined for an operator kube does not know.
 */
export function selectorString(selector: unknown): string | undefined {
  if (typeof selector !== "object" || selector === null) return "";
  const s = selector as Json;
  const requirements: { key: string; text: string }[] = [];
  for (const [k, v] of Object.entries(recordAt(s, "matchLabels") ?? {})) {
    requirements.push({ key: k, text: `${k}=${v}` });
  }
  for (const raw of arrayAt(s, "matchExpressions") ?? []) {
    const e = rec(raw);
    const key = String(e.key ?? "");
    const format = OPERATORS[String(e.operator)];
    if (format === undefined) return undefined;
    const values = (arrayAt(e, "values") ?? []).map(String);
    requirements.push({ key, text: format(key, [...values].sort().join(",")) });
  }
  requirements.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  return requirements.map((r) => r.text).join(",");
}

/** kube's `metav1.FormatLabelSelector`: the selector, `<none>` if empty, `<error>` if invalid. */
export function formatLabelSelector(selector: unknown): string {
  const s = selectorString(selector);
  if (s === undefined) return "<error>";
  return s === "" ? "<none>" : s;
}

/** The names and the images of a pod spec's containers, each joined by commas. */
function containerCells(podSpec: unknown): { names: string; images: string } {
  const containers = items(podSpec, "containers");
  return {
    names: containers.map((c) => String(c.name ?? "")).join(","),
    images: containers.map((c) => String(c.image ?? "")).join(","),
  };
}

/**
 * The Containers and Images columns of a kind with a pod template, whose pod spec is at
 * `podSpecPath`: `-o wide` ones (priority 1) but for a PodTemplate's.
 */
export function templateColumns(podSpecPath: string, priority = 1): TableColumn[] {
  return [
    {
      name: "Containers",
      type: "string",
      priority,
      description: "Names of each container in the template.",
      cell: (o) => containerCells(at(o, podSpecPath)).names,
    },
    {
      name: "Images",
      type: "string",
      priority,
      description: "Images referenced by each container in the template.",
      cell: (o) => containerCells(at(o, podSpecPath)).images,
    },
  ];
}

/** A wide Selector column that prints the label selector at `path` with `format`. */
export function selectorColumn(
  path: string,
  description: string,
  format: (selector: unknown) => string = formatLabelSelector,
): TableColumn {
  return {
    name: "Selector",
    type: "string",
    priority: 1,
    description,
    cell: (o: KubeObject) => format(at(o, path)),
  };
}

/** The strings of the array at a path. */
export function strings(object: unknown, path: string): string[] {
  const v = at(object, path);
  return Array.isArray(v) ? v.map(String) : [];
}

/**
 * A resource quantity as kube prints it, `0` when absent. Printed as stored: kube stores
 * quantities in their canonical form (`1Gi`, `500m`) and kontroller stores them as sent.
 */
export function quantity(value: unknown): string {
  return value === undefined || value === null ? "0" : String(value);
}

/** A Name cell that adds ` (default)` when one of the annotations is `"true"` (default classes). */
export function defaultMarked(...annotations: string[]): (object: KubeObject) => string {
  return (o) => {
    const name = o.metadata?.name ?? "";
    const marks = o.metadata?.annotations ?? {};
    return annotations.some((a) => marks[a] === "true") ? `${name} (default)` : name;
  };
}
