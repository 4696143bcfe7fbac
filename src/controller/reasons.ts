import type { ReconcileReason } from "./reconciler.ts";

const MAX_REASONS = 16;

interface Entry {
  reasons: ReconcileReason[];
  /** Dropped reasons beyond the cap. */
  dropped: number;
  /** When the first reason arrived (the key's wait starts then). */
  sinceMs: number;
}

/**
 * Why each queued key is queued: the reasons that coalesced into one queue entry, and since
 * when it waits. The queue dedupes keys; this book keeps what the dedupe folds away.
 *
 * Invariant: a key has an entry from its first reason until a worker takes it (`take`); reasons
 * that arrive while the key is being reconciled open a new entry for the next reconcile.
 */
export class ReasonBook {
  readonly #entries = new Map<string, Entry>();

  /** Notes a reason for `key`, at time `nowMs`. */
  note(key: string, reason: ReconcileReason, nowMs: number): void {
    const e = this.#entries.get(key);
    if (e === undefined) {
      this.#entries.set(key, { reasons: [reason], dropped: 0, sinceMs: nowMs });
    } else if (e.reasons.length < MAX_REASONS) {
      e.reasons.push(reason);
    } else {
      e.dropped++;
    }
  }

  /** Takes the reasons of `key` (a worker picked it); a fallback if none were noted. */
  take(key: string, nowMs: number): { reasons: ReconcileReason[]; waitedMs: number } {
    const e = this.#entries.get(key);
    this.#entries.delete(key);
    if (e === undefined) return { reasons: [{ type: "requeue" }], waitedMs: 0 };
    return { reasons: e.reasons, waitedMs: Math.max(0, nowMs - e.sinceMs) };
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
