import type { ReconcileReason } from "./reconciler.ts";

const MAX_REASONS = 16;

interface Entry {
  /** The reasons, in the order noted. */
  reasons: ReconcileReason[];
  /** When each reason makes the key ready: when noted, or when its delay ends. */
  dues: number[];
}

/**
 * Why each queued key is queued: the reasons that coalesced into one queue entry, and when each
 * made (or makes) the key ready. The queue dedupes keys; this book keeps what the dedupe folds
 * away.
 *
 * Invariant: a key has an entry from its first reason until a worker takes it (`take`); reasons
 * that arrive while the key is being reconciled open a new entry for the next reconcile.
 *
 * A delayed reason (a requeue-after, a retry after backoff) is due only when its delay ends.
 * The queue cancels a pending delay when the key is added for another reason meanwhile (one
 * reconcile, not two), so a reason not yet due when the key is taken did not cause this
 * reconcile and never will: `take` drops it. The wait is counted from when the earliest due
 * reason made the key ready, not from when a delay was asked for.
 */
export class ReasonBook {
  readonly #entries = new Map<string, Entry>();

  /** Notes a reason for `key` at time `nowMs`, making it ready at `dueMs` (default: now). */
  note(key: string, reason: ReconcileReason, nowMs: number, dueMs = nowMs): void {
    const due = Math.max(dueMs, nowMs);
    const e = this.#entries.get(key);
    if (e === undefined) {
      this.#entries.set(key, { reasons: [reason], dues: [due] });
    } else if (e.reasons.length < MAX_REASONS) {
      e.reasons.push(reason);
      e.dues.push(due);
    }
  }

  /**
   * Takes the reasons of `key` (a worker picked it at `nowMs`): those due by then, in the order
   * noted; the earliest pending ones if none is due (a delay ended a little before the clock
   * shows it); a `requeue` fallback if none was noted.
   */
  take(key: string, nowMs: number): { reasons: ReconcileReason[]; waitedMs: number } {
    const e = this.#entries.get(key);
    if (e === undefined) return { reasons: [{ type: "requeue" }], waitedMs: 0 };
    this.#entries.delete(key);
    let since = Number.POSITIVE_INFINITY;
    let earliest = Number.POSITIVE_INFINITY;
    for (const d of e.dues) {
      if (d <= nowMs && d < since) since = d;
      if (d < earliest) earliest = d;
    }
    if (since === Number.POSITIVE_INFINITY) since = earliest; // none due yet: the earliest fired
    const bound = Math.max(since, nowMs);
    // The common case: every reason is due (no delay was overtaken).
    const reasons = e.dues.every((d) => d <= bound)
      ? e.reasons
      : e.reasons.filter((_, i) => e.dues[i]! <= bound);
    return { reasons, waitedMs: Math.max(0, nowMs - since) };
  }

  /** Forgets `key` (its queue entry was dropped at shutdown). */
  forget(key: string): void {
    this.#entries.delete(key);
  }

  get size(): number {
    return this.#entries.size;
  }
}

/** One line for logs: `update of ConfigMap default/a (owned)`, `retry 3`, `requeue after 5000 ms`. */
export function describeReason(r: ReconcileReason): string {
  switch (r.type) {
    case "event": {
      const o = r.object;
      const name = o.namespace ? `${o.namespace}/${o.name}` : o.name;
      return `${r.event} of ${o.kind} ${name}${r.source === "self" ? "" : ` (${r.source})`}`;
    }
    case "requeue-after":
      return `requeue after ${r.afterMs} ms`;
    case "requeue":
      return "requeue";
    case "retry":
      return `retry ${r.attempt} after: ${r.error}`;
  }
}
