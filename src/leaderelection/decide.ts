import type { LeaderRecord } from "./leader-record.ts";

/** What the elector has seen of the lock, by its own clock. */
export interface Observation {
  /** The last record read or written. */
  record: LeaderRecord;
  /** When, by the elector's clock, that record was first seen. */
  observedAtMs: number;
}

/** The outcome of one acquire-or-renew step. */
export type Decision =
  | { action: "create"; record: LeaderRecord }
  | { action: "update"; record: LeaderRecord }
  /** Someone else holds an unexpired lease. */
  | { action: "wait"; holder: string };

/**
 * One step of client-go's `tryAcquireOrRenew`, pure. A lease is judged expired by the time the
 * elector has *observed* the same record for longer than its duration, on the elector's own
 * clock — never by comparing the record's timestamps with local time, so clock skew between
 * candidates cannot make two of them lead at once.
 *
 * Not a guarantee: there is no fencing. A leader that stalls longer than the lease duration
 * (a long GC pause, a frozen process) may still act after another took over; controllers must
 * stay correct under that (optimistic concurrency on every write does most of it).
 */
export function decide(
  identity: string,
  current: LeaderRecord | undefined,
  observed: Observation | undefined,
  nowMs: number,
  leaseDurationSeconds: number,
): Decision {
  const fresh: LeaderRecord = {
    holderIdentity: identity,
    leaseDurationSeconds,
    acquireTimeMs: nowMs,
    renewTimeMs: nowMs,
    leaderTransitions: 0,
  };
  if (current === undefined) return { action: "create", record: fresh };
  const holder = current.holderIdentity;
  if (holder !== "" && holder !== identity) {
    const since =
      observed !== undefined && sameRecord(observed.record, current)
        ? observed.observedAtMs
        : nowMs;
    if (since + current.leaseDurationSeconds * 1000 > nowMs) return { action: "wait", holder };
  }
  if (holder === identity) {
    return {
      action: "update",
      record: {
        ...fresh,
        acquireTimeMs: current.acquireTimeMs,
        leaderTransitions: current.leaderTransitions,
      },
    };
  }
  return {
    action: "update",
    record: { ...fresh, leaderTransitions: current.leaderTransitions + 1 },
  };
}

/** True if two records are the same write (a renewal changes `renewTimeMs`). */
export function sameRecord(a: LeaderRecord, b: LeaderRecord): boolean {
  return (
    a.holderIdentity === b.holderIdentity &&
    a.leaseDurationSeconds === b.leaseDurationSeconds &&
    a.acquireTimeMs === b.acquireTimeMs &&
    a.renewTimeMs === b.renewTimeMs &&
    a.leaderTransitions === b.leaderTransitions
  );
}
