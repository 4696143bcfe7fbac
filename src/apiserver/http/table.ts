import { errors, type KubeObject } from "../../core/index.ts";
import { evaluateJsonPath } from "../crd/json-path.ts";
import type { ServedResource } from "../registry/registry.ts";
import { AGE, DEFAULT_COLUMNS, NAME, since } from "../registry/strategies/columns/common.ts";
import type { Strategy, TableColumn } from "../registry/strategy.ts";

/** A Table column definition (meta.k8s.io/v1 TableColumnDefinition). */
export interface ColumnDefinition {
  name: string;
  type: string;
  format: string;
  description: string;
  priority: number;
}

interface Column extends ColumnDefinition {
  /** Printed in each row, left out of the definitions (see `TableColumn.undeclared`). */
  undeclared: boolean;
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

/** kube's `duration.HumanDuration` (the age columns' format). */
export { humanDuration } from "../registry/strategies/columns/common.ts";

function column(c: TableColumn): Column {
  return {
    name: c.name,
    type: c.type,
    format: c.format ?? "",
    description: c.description ?? "",
    priority: c.priority ?? 0,
    undeclared: c.undeclared === true,
    cell: c.cell,
  };
}

/**
 * A custom resource's columns when its CRD names none: Name and Age, the column kube adds for
 * it (a `date` column, printed as an age).
 */
const CUSTOM_DEFAULT = [NAME, { ...AGE, type: "date" as const }].map(column);

/**
 * The columns of a resource: a CRD's printer columns after Name, or the columns of a built-in
 * kind's strategy (kube's printer for it; Name first unless they place it), or kube's default
 * table (Name, Created At).
 */
export function columnsOf(served: ServedResource): Column[] {
  const custom = served.custom;
  if (custom !== undefined && custom.printerColumns.length > 0) {
    return [
      column(NAME),
      ...custom.printerColumns.map((c) => ({
        name: c.name,
        type: c.type,
        format: c.format ?? "",
        description:
          c.description ?? `Custom resource definition column (in JSONPath format): ${c.jsonPath}`,
        priority: c.priority ?? 0,
        undeclared: false,
        cell: (o: KubeObject, now: number) =>
          customCell(c.type, evaluateJsonPath(o, c.jsonPath), now),
      })),
    ];
  }
  if (custom !== undefined) return CUSTOM_DEFAULT;
  const own = served.store.strategy.columns ?? DEFAULT_COLUMNS;
  // Every kube Table has a name column; a strategy's columns that place none get Name first.
  const named = own.some((c) => c.name === NAME.name && c.format === "name");
  return (named ? own : [NAME, ...own]).map(column);
}

/**
 * A custom resource's cell of a column's type, as apiextensions-apiserver makes it: a string
 * column prints any value (objects and arrays as JSON), a date column the time since, an integer
 * column truncates a number; a value of another type than its column's is no cell (null).
 */
function customCell(type: string, value: unknown, now: number): unknown {
  if (value === undefined || value === null) return null;
  switch (type) {
    case "string":
      return typeof value === "object" ? goJson(value) : String(value);
    case "integer":
      return typeof value === "number" ? Math.trunc(value) : null;
    case "number":
      return typeof value === "number" ? value : null;
    case "boolean":
      return typeof value === "boolean" ? value : null;
    case "date":
      if (typeof value !== "string") return null;
      return value === "" || !Number.isNaN(Date.parse(value)) ? since(value, now) : "<invalid>";
    default:
      return null;
  }
}

/** JSON with each object's keys sorted, as Go writes a map. */
function goJson(value: unknown): string {
  return JSON.stringify(value, (_, v: unknown) =>
    typeof v === "object" && v !== null && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : v,
  );
}

function rowObject(object: KubeObject, include: IncludeObject, strategy: RowStrategy): unknown {
  if (include === "None") return undefined;
  if (include === "Object") return object;
  return partialObjectMetadata(object, strategy);
}

/** What of a kind's strategy its Table rows and metadata-only answers read. */
export type RowStrategy = Pick<Strategy, "rowConditions" | "internalMetadata">;

/** An object as a PartialObjectMetadata: its metadata in the kind's internal form. */
export function partialObjectMetadata(object: KubeObject, strategy: RowStrategy): unknown {
  const metadata = object.metadata ?? {};
  return {
    kind: "PartialObjectMetadata",
    apiVersion: "meta.k8s.io/v1",
    metadata: strategy.internalMetadata?.(metadata) ?? metadata,
  };
}

/**
 * One Table row: its cells, its conditions where the kind has some, and the object (`null`
 * without one, as kube writes an empty row object).
 */
export function tableRow(
  columns: readonly Column[],
  object: KubeObject,
  include: IncludeObject,
  now: number,
  strategy: RowStrategy,
): unknown {
  const cells = columns.map((c) => c.cell(object, now) ?? null);
  const conditions = strategy.rowConditions?.(object);
  return {
    cells,
    ...(conditions === undefined ? {} : { conditions }),
    object: rowObject(object, include, strategy) ?? null,
  };
}

/** The column definitions of a Table, without the cell functions. */
export function definitions(columns: readonly Column[]): ColumnDefinition[] {
  return columns
    .filter((c) => !c.undeclared)
    .map(({ name, type, format, description, priority }) => ({
      name,
      type,
      format,
      description,
      priority,
    }));
}
