/**
 * A reference model of what kube's garbage collector leaves behind, for the convergence
 * property: objects and their owners by name, deletions applied one at a time, each followed
 * by collection until nothing changes. It models outcomes, not order: a foreground deletion
 * ends where a background one does (dependents with another live owner lose the reference,
 * the others go), an orphaning drops the references to the owner and keeps the dependents.
 */

/** The name of an owner that never existed. */
export const GHOST = "ghost";

export type Policy = "Background" | "Foreground" | "Orphan";

/** Name → the names of its owners (`ghost` for a reference to an owner that never existed). */
export type ModelState = Map<string, Set<string>>;

/** Sorted, comparable text of a state. */
export function describeState(state: ModelState): string {
  return [...state]
    .sort(([a], [b]) => (a < b ? -1 : 1))
    .map(([name, owners]) => `${name}<-[${[...owners].sort().join(",")}]`)
    .join(" ");
}

export class GcModel {
  readonly state: ModelState;

  constructor(objects: Iterable<[string, Iterable<string>]>) {
    this.state = new Map([...objects].map(([n, o]) => [n, new Set(o)]));
    this.collect();
  }

  /** Deletes `name` with `policy`, then collects. No-op if it is gone. */
  delete(name: string, policy: Policy): void {
    if (!this.state.has(name)) return;
    if (policy === "Orphan") {
      for (const owners of this.state.values()) owners.delete(name);
    }
    this.state.delete(name);
    this.collect();
  }

  /**
   * Until nothing changes: an object whose owners are all gone goes; one with a live owner and
   * gone ones loses the references to the gone ones.
   */
  collect(): void {
    for (let changed = true; changed; ) {
      changed = false;
      for (const [name, owners] of [...this.state]) {
        if (owners.size === 0 || !this.state.has(name)) continue;
        const live = [...owners].filter((o) => this.state.has(o));
        if (live.length === 0) {
          this.state.delete(name);
          changed = true;
        } else if (live.length < owners.size) {
          this.state.set(name, new Set(live));
          changed = true;
        }
      }
    }
  }
}
