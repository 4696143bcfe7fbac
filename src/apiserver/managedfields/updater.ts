import { deepEqual } from "../../core/index.ts";
import { emptySet, type FieldSet } from "./field-set.ts";
import { type Comparison, compare, merge } from "./merge.ts";
import type { Path } from "./path-element.ts";
import { removeItems } from "./remove.ts";
import type { JsonObject, TypeNode } from "./schema.ts";
import { ensureNamedFieldsAreMembers, toFieldSet } from "./to-field-set.ts";

/** The fields one manager owns, at the apiVersion it wrote them in. */
export interface VersionedSet {
  readonly set: FieldSet;
  readonly apiVersion: string;
  /** Owned by an apply (as opposed to an update). */
  readonly applied: boolean;
}

/** Ownership by manager identifier (see managed-fields.ts). */
export type ManagedSets = Map<string, VersionedSet>;

/**
 * How the resource looks at another apiVersion: its schema, and conversions from and to the
 * version the updater works in. Undefined for a version the resource no longer has (an entry
 * at that version is dropped, as kube drops it).
 */
export interface VersionView {
  readonly type: TypeNode;
  toVersion(object: JsonObject): JsonObject;
  fromVersion(object: JsonObject): JsonObject;
}

/** Another manager owns fields an apply would change. */
export class ApplyConflicts extends Error {
  readonly conflicts: readonly { manager: string; path: Path }[];

  constructor(conflicts: readonly { manager: string; path: Path }[]) {
    super(`${conflicts.length} apply conflict(s)`);
    this.name = "ApplyConflicts";
    this.conflicts = conflicts;
  }
}

/** Options shared by {@link Updater} calls. */
export interface UpdaterOptions {
  /** The version objects are in; `views(version)` must describe it. */
  readonly version: string;
  readonly views: (apiVersion: string) => VersionView | undefined;
  /** Fields nobody owns through this endpoint (status on the main resource, spec on /status). */
  readonly ignored?: FieldSet;
}

type AtVersion = { value: JsonObject; version: string };

/**
 * structured-merge-diff's `merge.Updater`, on JSON objects: who owns what after an update (a
 * create, a replace, a patch) and after an apply, which also merges the applied configuration
 * and removes what its applier stopped applying. Pure: managers' sets come in and go out.
 */
export class Updater {
  readonly #o: UpdaterOptions;
  readonly #own: VersionView;

  constructor(options: UpdaterOptions) {
    this.#o = options;
    const own = options.views(options.version);
    if (own === undefined) throw new Error(`no view of ${options.version}`);
    this.#own = own;
  }

  /**
   * Ownership after `live` became `next` through a non-apply write by `manager`: it owns what it
   * added or changed (besides what it owned); everyone loses what was removed, and what the
   * write changed of theirs.
   */
  update(live: JsonObject, next: JsonObject, managers: ManagedSets, manager: string): ManagedSets {
    const out = new Map(managers);
    const changed = this.#settle(live, next, out, manager, true);
    const previous = out.get(manager)?.set ?? emptySet;
    const set = previous
      .union(changed.modified)
      .union(changed.added)
      .difference(changed.removed)
      .recursiveDifference(this.#o.ignored ?? emptySet);
    if (set.isEmpty()) out.delete(manager);
    else out.set(manager, { set, apiVersion: this.#o.version, applied: false });
    return out;
  }

  /**
   * Merges `config` into `live` for `manager`, who then owns exactly what `config` sets. What it
   * owned before and no longer applies is removed unless someone else owns it. Throws
   * {@link ApplyConflicts} if the merge changes fields other managers own (unless `force`,
   * which takes them). `object` is undefined when the merge changes nothing.
   */
  apply(
    live: JsonObject,
    config: JsonObject,
    managers: ManagedSets,
    manager: string,
    force: boolean,
  ): { object: JsonObject | undefined; managers: ManagedSets } {
    const type = this.#own.type;
    const applied = toFieldSet(config, type).recursiveDifference(this.#o.ignored ?? emptySet);
    let merged = merge(live, config, type);
    const out = new Map(managers);
    const last = out.get(manager);
    out.set(manager, { set: applied, apiVersion: this.#o.version, applied: true });
    merged = this.#prune(merged, out, last);
    this.#settle(live, merged, out, manager, force);
    return { object: deepEqual(live, merged) ? undefined : merged, managers: out };
  }

  /**
   * Takes from every manager but `self` the fields the write changed (a conflict unless
   * `force`) and those it removed; drops managers left with nothing or at a vanished version.
   * Returns the comparison at this version.
   */
  #settle(
    live: JsonObject,
    next: JsonObject,
    managers: ManagedSets,
    self: string,
    force: boolean,
  ): Comparison {
    const byVersion = new Map<string, Comparison | undefined>();
    const compareAt = (version: string): Comparison | undefined => {
      if (byVersion.has(version)) return byVersion.get(version);
      const view = this.#o.views(version);
      let c: Comparison | undefined;
      if (view !== undefined) {
        const own = version === this.#o.version;
        c = compare(
          own ? live : view.toVersion(live),
          own ? next : view.toVersion(next),
          view.type,
        );
        const ignored = this.#o.ignored;
        if (ignored !== undefined)
          c = {
            added: c.added.recursiveDifference(ignored),
            modified: c.modified.recursiveDifference(ignored),
            removed: c.removed.recursiveDifference(ignored),
          };
      }
      byVersion.set(version, c);
      return c;
    };
    const conflicts = new Map<string, FieldSet>();
    const removed = new Map<string, FieldSet>();
    for (const [m, vs] of managers) {
      if (m === self) continue;
      const c = compareAt(vs.apiVersion);
      if (c === undefined) {
        managers.delete(m);
        continue;
      }
      const taken = vs.set.intersection(c.modified.union(c.added));
      if (!taken.isEmpty()) conflicts.set(m, taken);
      if (!c.removed.isEmpty()) removed.set(m, c.removed);
    }
    if (!force && conflicts.size > 0) {
      const list: { manager: string; path: Path }[] = [];
      for (const m of [...conflicts.keys()].sort())
        for (const path of conflicts.get(m)!.paths()) list.push({ manager: m, path });
      throw new ApplyConflicts(list);
    }
    for (const [m, lose] of [...conflicts, ...removed]) {
      const vs = managers.get(m)!;
      managers.set(m, { ...vs, set: vs.set.difference(lose) });
    }
    for (const [m, vs] of managers) if (vs.set.isEmpty()) managers.delete(m);
    return compareAt(this.#o.version)!;
  }

  /** Converts a value between versions (through this updater's version). */
  #to(x: AtVersion, version: string): AtVersion | undefined {
    if (x.version === version) return x;
    const from = this.#o.views(x.version);
    const to = this.#o.views(version);
    if (from === undefined || to === undefined) return undefined;
    const own = x.version === this.#o.version ? x.value : from.fromVersion(x.value);
    return { value: version === this.#o.version ? own : to.toVersion(own), version };
  }

  #ensured(set: FieldSet, version: string): FieldSet {
    return ensureNamedFieldsAreMembers(set, this.#o.views(version)!.type);
  }

  #fields(x: AtVersion): FieldSet {
    const type = this.#o.views(x.version)!.type;
    return ensureNamedFieldsAreMembers(toFieldSet(x.value, type, false), type);
  }

  /**
   * Removes what `manager` applied last time (`last`), does not apply now, and nobody else owns
   * (structured-merge-diff's prune, with its add-back of owned and dangling items).
   */
  #prune(merged: JsonObject, managers: ManagedSets, last: VersionedSet | undefined): JsonObject {
    if (last === undefined || last.set.isEmpty()) return merged;
    const v = last.apiVersion;
    const m = this.#to({ value: merged, version: this.#o.version }, v);
    if (m === undefined) return merged;
    const type = this.#o.views(v)!.type;
    const lastSet = this.#ensured(last.set, v);
    let pruned: AtVersion = { value: removeItems(m.value, lastSet, type), version: v };
    // Add back what any manager (the applier's new configuration included) owns.
    const owned = new Map<string, FieldSet>();
    for (const vs of managers.values())
      owned.set(vs.apiVersion, (owned.get(vs.apiVersion) ?? emptySet).union(vs.set));
    const versions = [...owned.keys()].sort((a, b) => (a === v ? -1 : b === v ? 1 : 0));
    let mm: AtVersion = m;
    for (const version of versions) {
      const mv = this.#to(mm, version);
      const pv = this.#to(pruned, version);
      if (mv === undefined || pv === undefined) continue;
      mm = mv;
      const keep = this.#fields(pv).union(this.#ensured(owned.get(version)!, version));
      const t = this.#o.views(version)!.type;
      pruned = { value: removeItems(mv.value, this.#fields(mv).difference(keep), t), version };
    }
    // Only what the applier owned may go: add back the rest.
    const pv = this.#to(pruned, v);
    if (pv !== undefined) {
      const gone = this.#fields(m).difference(this.#fields(pv)).intersection(lastSet);
      pruned = { value: removeItems(m.value, gone, type), version: v };
    }
    return this.#to(pruned, this.#o.version)?.value ?? merged;
  }
}
