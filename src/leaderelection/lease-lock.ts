import type { ResourceClient } from "../client/index.ts";
import { InvalidOptionError, isNotFound, parseTime, toMicroTime } from "../core/index.ts";
import type { Lease } from "../resources/index.ts";
import type { LeaderLock, LeaderRecord, VersionedRecord } from "./leader-record.ts";

/** Options for {@link LeaseLock}. */
export interface LeaseLockOptions {
  /**
   * A Lease client bound to the lock's namespace: `client.resource(leases, { namespace })`.
   * The Lease lives in that namespace.
   */
  leases: ResourceClient<Lease>;
  /** The Lease's name, shared by every candidate. */
  name: string;
}

/**
 * A {@link LeaderLock} on a coordination.k8s.io/v1 Lease, compare-and-swap through the Lease's
 * resourceVersion (the API server answers 409 Conflict to a stale one).
 */
export class LeaseLock implements LeaderLock {
  readonly #leases: ResourceClient<Lease>;
  readonly #namespace: string;
  readonly #name: string;
  /** The Lease as last read or written, so that updates keep its labels and annotations. */
  #last: Lease | undefined;

  constructor(options: LeaseLockOptions) {
    const { leases, name } = options;
    if (typeof leases?.get !== "function" || typeof leases.namespace !== "string") {
      throw new InvalidOptionError(
        "LeaseLock",
        "leases",
        leases,
        "must be a Lease client bound to a namespace",
      );
    }
    if (typeof name !== "string" || name === "") {
      throw new InvalidOptionError("LeaseLock", "name", name, "must be a non-empty string");
    }
    this.#leases = leases;
    this.#namespace = leases.namespace;
    this.#name = name;
  }

  describe(): string {
    return `${this.#namespace}/${this.#name}`;
  }

  async get(signal?: AbortSignal): Promise<VersionedRecord | undefined> {
    try {
      const lease = await this.#leases.get(this.#name, { signal });
      this.#last = lease;
      return { record: toRecord(lease), version: lease.metadata?.resourceVersion ?? "" };
    } catch (err) {
      if (isNotFound(err)) return undefined;
      throw err;
    }
  }

  async create(record: LeaderRecord, signal?: AbortSignal): Promise<string> {
    const lease = await this.#leases.create(
      {
        apiVersion: "coordination.k8s.io/v1",
        kind: "Lease",
        metadata: { name: this.#name, namespace: this.#namespace },
        spec: toSpec(record),
      },
      { signal },
    );
    this.#last = lease;
    return lease.metadata?.resourceVersion ?? "";
  }

  async update(record: LeaderRecord, version: string, signal?: AbortSignal): Promise<string> {
    const base = this.#last ?? { metadata: { name: this.#name, namespace: this.#namespace } };
    const lease = await this.#leases.update(
      {
        ...base,
        apiVersion: "coordination.k8s.io/v1",
        kind: "Lease",
        metadata: { ...base.metadata, resourceVersion: version },
        spec: toSpec(record),
      },
      { signal },
    );
    this.#last = lease;
    return lease.metadata?.resourceVersion ?? "";
  }
}

function fromTime(value: string | undefined): number {
  return parseTime(value) ?? 0;
}

function toSpec(r: LeaderRecord): NonNullable<Lease["spec"]> {
  return {
    holderIdentity: r.holderIdentity,
    leaseDurationSeconds: r.leaseDurationSeconds,
    acquireTime: toMicroTime(r.acquireTimeMs),
    renewTime: toMicroTime(r.renewTimeMs),
    leaseTransitions: r.leaderTransitions,
  };
}

function toRecord(lease: Lease): LeaderRecord {
  const s = lease.spec ?? {};
  return {
    holderIdentity: s.holderIdentity ?? "",
    leaseDurationSeconds: s.leaseDurationSeconds ?? 0,
    acquireTimeMs: fromTime(s.acquireTime),
    renewTimeMs: fromTime(s.renewTime),
    leaderTransitions: s.leaseTransitions ?? 0,
  };
}
