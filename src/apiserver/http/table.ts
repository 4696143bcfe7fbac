import { errors, type KubeObject } from "../../core/index.ts";
import { evaluateJsonPath } from "../crd/json-path.ts";
import type { ServedResource } from "../registry/registry.ts";

/** A Table column definition (meta.k8s.io/v1 TableColumnDefinition). */
export interface ColumnDefinition {
  name: string;
  type: string;
  format: string;
  description: string;
  priority: number;
}

interface Column extends ColumnDefinition {
  cell(object: KubeObject, now: number): unknown;
}

/** What a Table row carries besides cells (`includeObject`). */
export type IncludeObject = "None" | "Metadata" | "Object";

/** Parses `includeObject` (400 for anything else). */
export function parseIncludeObject(value: string | null): IncludeObject {
  if (value === null || value === "" || value === "Metadata") return "Metadata";
  if (value === "None" || value === "Object") return value;
  throw errors.badRequest(
    `invalid includeObject ${JSON.stringify(value)}: must be one of "None", "Metadata", "Object"`,
  );
}

/**
 * kube's `duration.HumanDuration`: the age column's format (`42s`, `5m3s`, `3h`, `2d4h`, `3y`).
 */
export function humanDuration(ms: number): string {
  const seconds = Math.floor(ms / 1000);
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

function age(value: unknown, now: number): string {
  if (value === undefined || value === null || value === "") return "<unknown>";
  const t = Date.parse(String(value));
  return Number.isNaN(t) ? "<invalid>" : humanDuration(now - t);
}

const NAME: Column = {
  name: "Name",
  type: "string",
  format: "name",
  description: "Name must be unique within a namespace.",
  priority: 0,
  cell: (o) => o.metadata?.name ?? "",
};

const AGE: Column = {
  name: "Age",
  type: "string",
  format: "",
  description:
    "CreationTimestamp is a timestamp representing the server time when this object was created.",
  priority: 0,
  cell: (o, now) => age(o.metadata?.creationTimestamp, now),
};

/**
 * The columns of a resource: Name, its own columns (or a CRD's printer columns), then Age unless
 * its own columns place one.
 */
export function columnsOf(served: ServedResource): Column[] {
  const custom = served.custom;
  if (custom !== undefined && custom.printerColumns.length > 0) {
    return [
      NAME,
      ...custom.printerColumns.map((c) => ({
        name: c.name,
        type: c.type,
        format: c.format ?? "",
        description: c.description ?? "",
        priority: c.priority ?? 0,
        cell: (o: KubeObject, now: number) => {
          const v = evaluateJsonPath(o, c.jsonPath);
          if (v === undefined) return null;
          return c.type === "date" ? age(v, now) : v;
        },
      })),
    ];
  }
  const own = (served.store.strategy.columns ?? []).map((c) => ({
    name: c.name,
    type: c.type === "date" ? "string" : c.type,
    format: c.format ?? "",
    description: c.description ?? (c.name === AGE.name ? AGE.description : ""),
    priority: c.priority ?? 0,
    cell: (o: KubeObject, now: number) => (c.type === "date" ? age(c.cell(o), now) : c.cell(o)),
  }));
  // A kind that places its own Age column (pods, nodes) gets no second one at the end.
  return own.some((c) => c.name === AGE.name) ? [NAME, ...own] : [NAME, ...own, AGE];
}

function rowObject(object: KubeObject, include: IncludeObject): unknown {
  if (include === "None") return undefined;
  if (include === "Object") return object;
  return {
    kind: "PartialObjectMetadata",
    apiVersion: "meta.k8s.io/v1",
    metadata: object.metadata ?? {},
  };
}

/** One Table row. */
export function tableRow(
  columns: readonly Column[],
  object: KubeObject,
  include: IncludeObject,
  now: number,
): unknown {
  const cells = columns.map((c) => c.cell(object, now) ?? null);
  const obj = rowObject(object, include);
  return obj === undefined ? { cells } : { cells, object: obj };
}

/** The column definitions of a Table, without the cell functions. */
export function definitions(columns: readonly Column[]): ColumnDefinition[] {
  return columns.map(({ name, type, format, description, priority }) => ({
    name,
    type,
    format,
    description,
    priority,
  }));
}
