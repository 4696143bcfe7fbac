import { compareElements, type Path, type PathElement } from "./path-element.ts";

interface Child {
  readonly pe: PathElement;
  readonly set: FieldSet;
}

/**
 * A set of field paths, as structured-merge-diff's `fieldpath.Set`: a trie whose nodes hold
 * *members* (paths that end here) and *children* (paths that go on). A path may be both a member
 * and the prefix of other members (a list item owned as a whole and field by field).
 *
 * Invariant: no child set is empty (operations drop children that become empty), so `isEmpty`
 * is a constant-time check and two equal sets have the same shape. A set is only mutated while
 * it is built (`insert`, `insertMember`, `insertChild`), by whoever created it with `new`; the
 * set operations return new sets that may share children with their operands, so neither is
 * changed afterwards.
 */
export class FieldSet {
  readonly #members = new Map<string, PathElement>();
  readonly #children = new Map<string, Child>();

  /** A set of the given paths. */
  static of(...paths: Path[]): FieldSet {
    const s = new FieldSet();
    for (const p of paths) s.insert(p);
    return s;
  }

  /** Adds `path` (a no-op for the empty path). Only while the set is being built. */
  insert(path: Path): void {
    if (path.length === 0) return;
    let node: FieldSet = this;
    for (let i = 0; i < path.length - 1; i++) node = node.#child(path[i]!);
    const last = path[path.length - 1]!;
    node.#members.set(last.key, last);
  }

  /** Adds `pe` as a member of this node. Only while the set is being built. */
  insertMember(pe: PathElement): void {
    this.#members.set(pe.key, pe);
  }

  /** The child set under `pe`, created if absent. Only while the set is being built. */
  #child(pe: PathElement): FieldSet {
    let c = this.#children.get(pe.key);
    if (c === undefined) {
      c = { pe, set: new FieldSet() };
      this.#children.set(pe.key, c);
    }
    return c.set;
  }

  /** Adds `child` under `pe` (merging with what is there). Only while the set is being built. */
  insertChild(pe: PathElement, child: FieldSet): void {
    if (child.isEmpty()) return;
    const existing = this.#children.get(pe.key);
    this.#children.set(pe.key, { pe, set: existing ? existing.set.union(child) : child });
  }

  isEmpty(): boolean {
    return this.#members.size === 0 && this.#children.size === 0;
  }

  /** True if `path` is a member. */
  has(path: Path): boolean {
    if (path.length === 0) return false;
    let node: FieldSet | undefined = this;
    for (let i = 0; i < path.length - 1 && node !== undefined; i++)
      node = node.#children.get(path[i]!.key)?.set;
    return node === undefined ? false : node.#members.has(path[path.length - 1]!.key);
  }

  /** True if `pe` is a member of this node. */
  hasMember(pe: PathElement): boolean {
    return this.#members.has(pe.key);
  }

  /** The paths under `pe` (relative to it); empty if none. */
  withPrefix(pe: PathElement): FieldSet {
    return this.#children.get(pe.key)?.set ?? EMPTY;
  }

  /** The members of this node, in kube's order. */
  members(): PathElement[] {
    return [...this.#members.values()].sort(compareElements);
  }

  /** The children of this node, in kube's order. */
  children(): { pe: PathElement; set: FieldSet }[] {
    return [...this.#children.values()].sort((a, b) => compareElements(a.pe, b.pe));
  }

  union(other: FieldSet): FieldSet {
    if (other.isEmpty()) return this;
    if (this.isEmpty()) return other;
    const out = new FieldSet();
    for (const [k, pe] of this.#members) out.#members.set(k, pe);
    for (const [k, pe] of other.#members) out.#members.set(k, pe);
    for (const [k, c] of this.#children) out.#children.set(k, c);
    for (const [k, c] of other.#children) {
      const mine = this.#children.get(k);
      out.#children.set(k, mine ? { pe: c.pe, set: mine.set.union(c.set) } : c);
    }
    return out;
  }

  intersection(other: FieldSet): FieldSet {
    const out = new FieldSet();
    for (const [k, pe] of this.#members) if (other.#members.has(k)) out.#members.set(k, pe);
    for (const [k, c] of this.#children) {
      const theirs = other.#children.get(k);
      if (theirs === undefined) continue;
      const both = c.set.intersection(theirs.set);
      if (!both.isEmpty()) out.#children.set(k, { pe: c.pe, set: both });
    }
    return out;
  }

  /**
   * The paths of this set that are not in `other`. As kube's: a member of `other` does not
   * remove the paths below it (see {@link recursiveDifference} for that).
   */
  difference(other: FieldSet): FieldSet {
    return this.#without(other, false);
  }

  /** Like {@link difference}, but a member of `other` also removes everything below it. */
  recursiveDifference(other: FieldSet): FieldSet {
    return this.#without(other, true);
  }

  /** The paths not in `other`; with `recursive`, none below a member of `other` either. */
  #without(other: FieldSet, recursive: boolean): FieldSet {
    if (other.isEmpty() || this.isEmpty()) return this;
    const out = new FieldSet();
    for (const [k, pe] of this.#members) if (!other.#members.has(k)) out.#members.set(k, pe);
    for (const [k, c] of this.#children) {
      if (recursive && other.#members.has(k)) continue;
      const theirs = other.#children.get(k);
      if (theirs === undefined) out.#children.set(k, c);
      else {
        const rest = c.set.#without(theirs.set, recursive);
        if (!rest.isEmpty()) out.#children.set(k, { pe: c.pe, set: rest });
      }
    }
    return out;
  }

  equals(other: FieldSet): boolean {
    if (this === other) return true;
    if (this.#members.size !== other.#members.size) return false;
    if (this.#children.size !== other.#children.size) return false;
    for (const k of this.#members.keys()) if (!other.#members.has(k)) return false;
    for (const [k, c] of this.#children) {
      const theirs = other.#children.get(k);
      if (theirs === undefined || !c.set.equals(theirs.set)) return false;
    }
    return true;
  }

  /** Every member path, in kube's order: a node's members, then its children's paths. */
  paths(): Path[] {
    const out: Path[] = [];
    const walk = (set: FieldSet, prefix: PathElement[]) => {
      for (const pe of set.members()) out.push([...prefix, pe]);
      for (const c of set.children()) walk(c.set, [...prefix, c.pe]);
    };
    walk(this, []);
    return out;
  }
}

const EMPTY = new FieldSet();

/** The empty set (never mutate it). */
export const emptySet: FieldSet = EMPTY;
