import type { ReconcileReason } from "./reconciler.ts";

const MAX_REASONS = 16;

interface Noted {
  reason: ReconcileReason;
  /** When the reason makes the key ready: when noted, or when its delay ends. */
  dueMs: number;
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
  readonly #entries = new Map<string, Noted[]>();

  /** Notes a reason for `key` at time `nowMs`, making it ready at `dueMs` (default: now). */
  note(key: string, reason: ReconcileReason, nowMs: number, dueMs = nowMs): void {
    const noted = { reason, dueMs: Math.max(nowMs, dueMs) };
    const e = this.#entries.get(key);
    if (e === undefined) this.#entries.set(key, [noted]);
    else if (e.length < MAX_REASONS) e.push(noted);
  }

  /**
   * Takes the reasons of `key` (a worker picked it at `nowMs`): those due by then, in the order
   * noted; the earliest pending ones if none is due (a delay ended a little before the clock
   * shows it); a `requeue` fallback if none was noted.
   */
  take(key: string, nowMs: number): { reasons: ReconcileReason[]; waitedMs: number } {
    const e = this.#entries.get(key);
    this.#entries.delete(key);
    if (e === undefined) return { reasons: [{ type: "requeue" }], waitedMs: 0 };
    let due = e.filter((n) => n.dueMs <= nowMs);
    if (due.length === 0) {
      const first = Math.min(...e.map((n) => n.dueMs));
      due = e.filter((n) => n.dueMs === first);
    }
    const since = Math.min(...due.map((n) => n.dueMs));
    return { reasons: due.map((n) => n.reason), waitedMs: Math.max(0, nowMs - since) };
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
