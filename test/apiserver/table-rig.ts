/**
 * Helpers for the Table column suites: create objects (and their status), read a collection as
 * a Table, and compare its columns and cells with what kube-apiserver prints.
 */
import assert from "node:assert/strict";
import { call, type Loose } from "./helpers.ts";

/** The Accept header of a Table, as kubectl sends it. */
export const TABLE = "application/json;as=Table;v=v1;g=meta.k8s.io";

/** The age of an object the suite just made: seconds, or minutes on a slow machine. */
export const AGE = /^\d+(s|m\d*s?)$/;

/** An RFC 3339 timestamp `ms` before now, to the second as kube stores times. */
export function ago(ms: number): string {
  return new Date(Date.now() - ms).toISOString().replace(/\.\d{3}Z$/, "Z");
}

/** A creation time as kube's default table prints it (RFC 3339, to the second). */
export const CREATED = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/;

/** One object of a collection (a cluster-scoped one, among the cluster's), by name. */
export const named = (collection: string, name: string) =>
  `${collection}?fieldSelector=${encodeURIComponent(`metadata.name=${name}`)}`;

/** A minute in milliseconds. */
export const MINUTE = 60_000;

/** Creates an object (201), then merges `status` into it through `/status` (200). */
export async function create(
  url: string,
  collection: string,
  body: Record<string, unknown>,
  status?: Record<string, unknown>,
): Promise<Loose> {
  const made = await call(url, "POST", collection, body);
  assert.equal(made.status, 201, `POST ${collection}: ${JSON.stringify(made.body)}`);
  if (status === undefined) return made.body;
  const name = (body.metadata as { name: string }).name;
  const patched = await call(
    url,
    "PATCH",
    `${collection}/${name}/status`,
    { status },
    {
      "content-type": "application/merge-patch+json",
    },
  );
  assert.equal(
    patched.status,
    200,
    `PATCH ${collection}/${name}/status: ${JSON.stringify(patched.body)}`,
  );
  return patched.body;
}

/**
 * A column as the suites spell it: its name, `:type` unless a string, `@name` for a name-format
 * column other than Name, ` (wide)` for priority 1.
 */
function spell(d: Loose): string {
  const type = d.type === "string" ? "" : `:${d.type}`;
  const format = d.format === "name" && d.name !== "Name" ? "@name" : "";
  const plain = d.format !== "name" && d.name === "Name" ? "@plain" : "";
  return `${d.name}${type}${format}${plain}${d.priority === 1 ? " (wide)" : ""}`;
}

/** What a suite expects of a Table: its columns (spelled) and its rows' cells. */
export interface ExpectedTable {
  readonly columns: readonly string[];
  /** Cells; a RegExp matches a string cell (ages, allocated IPs). */
  readonly rows: readonly (readonly unknown[])[];
  /** The rows' conditions (undefined for a row without), when the suite checks them. */
  readonly conditions?: readonly (readonly unknown[] | undefined)[];
}

/** Reads `path` as a Table (rows without objects) and compares it with `expected`. */
export async function expectTable(url: string, path: string, expected: ExpectedTable) {
  const sep = path.includes("?") ? "&" : "?";
  const t = await call(url, "GET", `${path}${sep}includeObject=None`, undefined, {
    accept: TABLE,
  });
  assert.equal(t.status, 200, `GET ${path} as a Table: ${JSON.stringify(t.body)}`);
  assert.equal(t.body.kind, "Table");
  assert.deepEqual(t.body.columnDefinitions.map(spell), expected.columns, `columns of ${path}`);
  // Without an object, kube writes `"object": null` in each row.
  for (const r of t.body.rows) assert.equal(r.object, null, `row object of ${path}`);
  if (expected.conditions !== undefined) {
    assert.deepEqual(
      t.body.rows.map((r: Loose) => r.conditions),
      expected.conditions,
      `row conditions of ${path}`,
    );
  }
  const rows: unknown[][] = t.body.rows.map((r: Loose) => r.cells);
  assert.equal(rows.length, expected.rows.length, `rows of ${path}: ${JSON.stringify(rows)}`);
  rows.forEach((cells, i) => {
    const want = expected.rows[i]!;
    assert.equal(cells.length, want.length, `cells of ${path} row ${i}: ${JSON.stringify(cells)}`);
    cells.forEach((cell, j) => {
      const w = want[j];
      const where = `${path} row ${i} cell ${j} (${JSON.stringify(cells)})`;
      if (w instanceof RegExp) assert.match(String(cell), w, where);
      else assert.deepEqual(cell, w, where);
    });
  });
}
