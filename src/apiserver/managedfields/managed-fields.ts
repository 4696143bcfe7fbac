import type { ManagedFieldsEntry } from "../../core/index.ts";
import type { FieldSet } from "./field-set.ts";
import { fromFieldsV1, toFieldsV1 } from "./fields-v1.ts";
import { compareStrings, goJson } from "./path-element.ts";
import type { ManagedSets, VersionedSet } from "./updater.ts";

/**
 * `metadata.managedFields` ↔ ownership by manager, as kube decodes and encodes them. A manager
 * is identified by its name, operation, subresource and — for updates only — apiVersion (an
 * applier keeps its identity when it applies another version): the identifier is that entry's
 * JSON without time and fields, `{"manager":"kubectl","operation":"Apply"}`.
 */
export interface Managed {
  readonly sets: ManagedSets;
  /** The time of each manager's last change (RFC 3339, seconds), if known. */
  readonly times: Map<string, string | undefined>;
}

/** The parts of a manager identifier. */
export interface ManagerInfo {
  readonly manager: string;
  readonly operation: "Apply" | "Update";
  readonly apiVersion?: string;
  readonly subresource?: string;
}

/** The identifier of a manager (Go's JSON of the entry's identifying fields). */
export function managerId(info: ManagerInfo): string {
  const parts: string[] = [];
  if (info.manager !== "") parts.push(`"manager":${goJson(info.manager)}`);
  parts.push(`"operation":${goJson(info.operation)}`);
  if (info.operation === "Update" && info.apiVersion)
    parts.push(`"apiVersion":${goJson(info.apiVersion)}`);
  if (info.subresource) parts.push(`"subresource":${goJson(info.subresource)}`);
  return `{${parts.join(",")}}`;
}

/**
 * Identifiers parsed lately: a server sees the same few managers on every write. Bounded: it
 * starts again when it holds {@link PARSED_IDS_MAX}.
 */
const parsedIds = new Map<string, ManagerInfo>();
const PARSED_IDS_MAX = 1024;

/** The parts of an identifier made by {@link managerId} (a shared, frozen object). */
export function parseManagerId(id: string): ManagerInfo {
  let info = parsedIds.get(id);
  if (info !== undefined) return info;
  const o = JSON.parse(id) as Partial<ManagerInfo>;
  info = Object.freeze({
    manager: o.manager ?? "",
    operation: o.operation ?? "Update",
    ...(o.apiVersion ? { apiVersion: o.apiVersion } : {}),
    ...(o.subresource ? { subresource: o.subresource } : {}),
  });
  if (parsedIds.size >= PARSED_IDS_MAX) parsedIds.clear();
  parsedIds.set(id, info);
  return info;
}

/** No managers. */
export function emptyManaged(): Managed {
  return { sets: new Map(), times: new Map() };
}

/**
 * True if a request's managedFields ask to clear them: an empty list, or a list of one empty
 * entry (kube's `isResetManagedFields`). Absent (or null) means "keep what is stored".
 */
export function isResetManagedFields(entries: unknown): boolean {
  if (!Array.isArray(entries)) return false;
  if (entries.length === 0) return true;
  const only = entries[0];
  return (
    entries.length === 1 &&
    typeof only === "object" &&
    only !== null &&
    Object.values(only).every((v) => v === undefined || v === null || v === "")
  );
}

/**
 * Decodes managedFields. Throws an Error naming the entry and what is wrong with it: an
 * operation other than Apply or Update, no apiVersion, a fieldsType other than FieldsV1, fields
 * that do not parse, a time that is not one.
 */
export function decodeManagedFields(entries: unknown): Managed {
  const managed = emptyManaged();
  if (entries === undefined || entries === null) return managed;
  if (!Array.isArray(entries)) throw new Error("managedFields must be a list");
  entries.forEach((raw: unknown, i) => {
    if (typeof raw !== "object" || raw === null || Array.isArray(raw))
      throw new Error(`managed fields entry ${i} must be an object`);
    const e = raw as Record<string, unknown>;
    const operation = e.operation;
    if (operation !== "Apply" && operation !== "Update")
      throw new Error(`operation must be \`Apply\` or \`Update\` in managed fields entry ${i}`);
    const apiVersion = e.apiVersion;
    if (typeof apiVersion !== "string" || apiVersion === "")
      throw new Error(`apiVersion must not be empty in managed fields entry ${i}`);
    const fieldsType = e.fieldsType ?? "";
    if (fieldsType === "") throw new Error(`missing fieldsType in managed fields entry ${i}`);
    if (fieldsType !== "FieldsV1")
      throw new Error(
        `invalid fieldsType ${JSON.stringify(fieldsType)} in managed fields entry ${i}`,
      );
    for (const key of ["manager", "subresource"] as const)
      if (e[key] !== undefined && typeof e[key] !== "string")
        throw new Error(`${key} must be a string in managed fields entry ${i}`);
    const id = managerId({
      manager: (e.manager as string | undefined) ?? "",
      operation,
      apiVersion,
      ...(e.subresource ? { subresource: e.subresource as string } : {}),
    });
    const set: FieldSet = fromFieldsV1(e.fieldsV1 ?? {});
    managed.sets.set(id, { set, apiVersion, applied: operation === "Apply" });
    managed.times.set(
      id,
      e.time === undefined || e.time === null ? undefined : normalizeTime(e.time, i),
    );
  });
  return managed;
}

/** A time as kube writes it (to the second, UTC): kept as it is, without parsing. */
const NORMAL_TIME = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/;

function normalizeTime(time: unknown, i: number): string {
  if (typeof time === "string" && NORMAL_TIME.test(time) && Number.isFinite(Date.parse(time)))
    return time;
  const ms = typeof time === "string" ? Date.parse(time) : Number.NaN;
  if (!Number.isFinite(ms))
    throw new Error(
      `time ${JSON.stringify(time)} is not an RFC 3339 time in managed fields entry ${i}`,
    );
  return `${new Date(Math.floor(ms / 1000) * 1000).toISOString().slice(0, 19)}Z`;
}

/** Encodes managers as kube does: one entry each, sorted; undefined when there are none. */
export function encodeManagedFields(managed: Managed): ManagedFieldsEntry[] | undefined {
  if (managed.sets.size === 0) return undefined;
  const entries: ManagedFieldsEntry[] = [];
  for (const [id, vs] of managed.sets) entries.push(encodeEntry(id, vs, managed.times.get(id)));
  return entries.sort(compareEntries);
}

function encodeEntry(id: string, vs: VersionedSet, time: string | undefined): ManagedFieldsEntry {
  const info = parseManagerId(id);
  return {
    ...(info.manager !== "" ? { manager: info.manager } : {}),
    operation: vs.applied ? "Apply" : info.operation,
    apiVersion: vs.apiVersion,
    ...(time !== undefined ? { time } : {}),
    fieldsType: "FieldsV1",
    fieldsV1: toFieldsV1(vs.set),
    ...(info.subresource ? { subresource: info.subresource } : {}),
  };
}

const seconds = (t: string | undefined) => (t === undefined ? 0 : Math.floor(Date.parse(t) / 1000));

/** kube's order: operation, time (to the second), manager, apiVersion, subresource. */
function compareEntries(a: ManagedFieldsEntry, b: ManagedFieldsEntry): number {
  return (
    compareStrings(a.operation ?? "", b.operation ?? "") ||
    seconds(a.time) - seconds(b.time) ||
    compareStrings(a.manager ?? "", b.manager ?? "") ||
    compareStrings(a.apiVersion ?? "", b.apiVersion ?? "") ||
    compareStrings(a.subresource ?? "", b.subresource ?? "")
  );
}

/** The most update managers an object keeps; older ones merge into one per apiVersion. */
export const MAX_UPDATE_MANAGERS = 10;

/**
 * Merges the oldest update entries into `ancient-changes` ones (one per apiVersion) until no
 * more than {@link MAX_UPDATE_MANAGERS} are left, as kube's `capManagersManager`. Mutates.
 */
export function capUpdateManagers(managed: Managed, max = MAX_UPDATE_MANAGERS): void {
  const updaters = [...managed.sets].filter(([, vs]) => !vs.applied).map(([id]) => id);
  if (updaters.length <= max) return;
  updaters.sort(
    (a, b) => seconds(managed.times.get(a)) - seconds(managed.times.get(b)) || compareStrings(a, b),
  );
  const firstOfVersion = new Map<string, string>();
  let length = updaters.length;
  for (let i = 0; i < updaters.length && length > max; i++) {
    const id = updaters[i]!;
    const vs = managed.sets.get(id)!;
    const time = managed.times.get(id);
    const bucket = managerId({
      manager: "ancient-changes",
      operation: "Update",
      apiVersion: vs.apiVersion,
    });
    const first = firstOfVersion.get(vs.apiVersion);
    if (first === undefined) {
      firstOfVersion.set(vs.apiVersion, id);
      continue;
    }
    if (!managed.sets.has(bucket)) {
      managed.sets.set(bucket, managed.sets.get(first)!);
      managed.sets.delete(first);
    }
    const merged = vs.set.union(managed.sets.get(bucket)!.set);
    managed.sets.set(bucket, { set: merged, apiVersion: vs.apiVersion, applied: vs.applied });
    managed.sets.delete(id);
    managed.times.set(bucket, time);
    length--;
  }
}
