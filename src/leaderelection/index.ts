/**
 * kontroller/leaderelection — Lease-based leader election: only one candidate at a time runs
 * the work, and another takes over within the lease duration when the leader goes away.
 */
export { type Decision, decide, type Observation, sameRecord } from "./decide.ts";
export { LeaderElector, type LeaderElectorOptions } from "./leader-elector.ts";
export type { LeaderLock, LeaderRecord, VersionedRecord } from "./leader-record.ts";
export { LeaseLock, type LeaseLockOptions } from "./lease-lock.ts";
