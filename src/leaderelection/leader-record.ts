/**
 * What a lock holds: who leads, since when, for how long. Times are ms since the epoch.
 * (client-go's `LeaderElectionRecord`.)
 */
export interface LeaderRecord {
  /** The leader's identity; `""` when the lock was released. */
  holderIdentity: string;
  leaseDurationSeconds: number;
  acquireTimeMs: number;
  renewTimeMs: number;
  leaderTransitions: number;
}

/** A record as read from a lock, with the version a compare-and-swap update must match. */
export interface VersionedRecord {
  record: LeaderRecord;
  /** Opaque to the elector (a Lease's resourceVersion). */
  version: string;
}

/**
 * Where leadership is recorded. Updates are compare-and-swap: `update` must fail (reject with
 * an error) when the stored version is not `version`, so two candidates can never both succeed.
 */
export interface LeaderLock {
  /** The current record, or `undefined` if the lock does not exist yet. */
  get(signal?: AbortSignal): Promise<VersionedRecord | undefined>;
  /** Creates the lock; rejects if it already exists. Returns the new version. */
  create(record: LeaderRecord, signal?: AbortSignal): Promise<string>;
  /** Replaces the record if the lock is still at `version`; rejects otherwise. */
  update(record: LeaderRecord, version: string, signal?: AbortSignal): Promise<string>;
  /** Names the lock in logs and errors: `namespace/name`. */
  describe(): string;
}
