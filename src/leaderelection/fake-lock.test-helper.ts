import type { LeaderLock, LeaderRecord, VersionedRecord } from "./leader-record.ts";

/**
 * An in-memory lock with compare-and-swap, shared by several electors in a test. `partition`
 * makes one candidate's calls fail, as if it lost the network.
 */
export class FakeStore {
  record: LeaderRecord | undefined;
  version = 0;
  readonly partitioned = new Set<string>();
  /** Identities whose updates are applied but whose answers are lost (a cut connection). */
  readonly lostAnswers = new Set<string>();

  lockFor(identity: string): LeaderLock {
    const fail = () => {
      if (this.partitioned.has(identity)) throw new Error(`${identity}: network partition`);
    };
    return {
      describe: () => "test/lock",
      get: async (): Promise<VersionedRecord | undefined> => {
        fail();
        return this.record === undefined
          ? undefined
          : { record: { ...this.record }, version: String(this.version) };
      },
      create: async (record: LeaderRecord) => {
        fail();
        if (this.record !== undefined) throw new Error("AlreadyExists");
        this.record = { ...record };
        return String(++this.version);
      },
      update: async (record: LeaderRecord, version: string) => {
        fail();
        if (String(this.version) !== version) throw new Error("Conflict");
        this.record = { ...record };
        const next = String(++this.version);
        if (this.lostAnswers.has(identity)) throw new Error(`${identity}: the answer was lost`);
        return next;
      },
    };
  }
}
