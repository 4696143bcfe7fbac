/**
 * Leader election across processes: three candidates (`candidate.ts`, each its own Node
 * process on the real clock) elect a leader on one Lease of the test API server; the leader
 * is SIGKILLed and another takes over once the lease runs out; the next leader is SIGTERMed,
 * releases the Lease, and the last one takes over at once.
 *
 * What is asserted, and from what (clocks of different processes are not compared):
 * - Safety, from the candidates' reports in the order the parent receives them: a
 *   `started-leading` never arrives while another candidate's leadership is still on, unless
 *   that candidate is dead. This order is causal: a candidate reports `stopped-leading` before
 *   it writes the release, and the next leader can acquire only after that write, over the
 *   parent's own API server; so the report is in the parent's pipe before the write that lets
 *   another lead is even served.
 * - Safety, from the Lease itself (every version of it, watched by the parent): a new holder
 *   that replaced a live-looking one (not a released Lease) acquired at least a lease duration
 *   after the old holder's last renewal. Both timestamps come from `Date.now()` of processes on
 *   this one host, so they are comparable.
 * - Liveness after SIGKILL, measured in the parent with `performance.now()`: another candidate
 *   leads within {@link TAKEOVER_BOUND_MS} of the kill.
 * - Graceful release on SIGTERM: the Lease is handed back (no holder, `leaseDurationSeconds`
 *   1, as client-go writes it), the next holder acquires it less than a lease duration after
 *   the release, and the takeover takes well under a lease duration in the parent's time.
 */
import assert from "node:assert/strict";
import { type ChildProcess, spawn } from "node:child_process";
import { performance } from "node:perf_hooks";
import { describe, it } from "node:test";
import { createClient, type ResourceClient } from "kontroller/client";
import { parseTime } from "kontroller/core";
import { type Lease, leases } from "kontroller/resources";
import { startTestServer } from "kontroller/testing";
import type { CandidateConfig, CandidateMessage } from "./candidate.ts";

/**
 * Lease timings of the candidates. A Lease stores whole seconds, so 2 s is the shortest lease
 * that leaves room for a renew deadline of several retry periods (a 1.5 s one is refused).
 */
const LEASE_DURATION_MS = 2000;
const RENEW_DEADLINE_MS = 1000;
const RETRY_PERIOD_MS = 200;
/** The longest gap between two acquire attempts: the elector adds up to 120 % jitter. */
const MAX_ATTEMPT_GAP_MS = RETRY_PERIOD_MS * 2.2;
/**
 * The bound on a takeover after the leader is killed. A waiting candidate first sees the dead
 * leader's last renewal (made before the kill) at its next attempt, at most one attempt gap
 * later; it takes over once it has seen that record unchanged for a lease duration, at the
 * first attempt after that: at most one more gap. The margin covers the HTTP round trips, the
 * report over IPC and scheduling delays while other test files load this 2-core machine
 * (`npm test` runs four at once); measured: 2.0–2.2 s alone, up to 2.5 s with eight test
 * files running at once.
 */
const TAKEOVER_BOUND_MS = LEASE_DURATION_MS + 2 * MAX_ATTEMPT_GAP_MS + 1000;
/**
 * The bound on a takeover after the leader is asked to stop: the release write, then at most
 * one attempt gap before another candidate acquires the released Lease, plus the same margin
 * as above (measured: 0.04–0.35 s, alone or with eight files at once). Without the release,
 * the next candidate would wait out the lease from the last renewal, at most a retry period
 * before the SIGTERM: about 1.8 s or more (checked by making the candidates not release).
 */
const HANDOVER_BOUND_MS = MAX_ATTEMPT_GAP_MS + 1000;

const fixture = new URL("./candidate.ts", import.meta.url).pathname;

/** What the parent saw, in the order it saw it. */
type Entry = { atMs: number; identity: string } & (
  | CandidateMessage
  | { type: "exit"; code: number | null; signal: NodeJS.Signals | null }
);

/**
 * The candidate processes, their reports as one log, and the safety check applied to every
 * entry as it arrives.
 */
class Candidates implements AsyncDisposable {
  readonly log: Entry[] = [];
  readonly violations: string[] = [];
  readonly #children = new Map<string, ChildProcess>();
  readonly #stderr = new Map<string, string>();
  readonly #dead = new Set<string>();
  readonly #waiters = new Set<() => void>();
  /** The candidate that reported `started-leading` and not yet `stopped-leading`. */
  #leader: string | undefined;

  spawn(config: CandidateConfig): void {
    const { identity } = config;
    const child = spawn(
      process.execPath,
      ["--conditions=kontroller-source", fixture, JSON.stringify(config)],
      { stdio: ["ignore", "ignore", "pipe", "ipc"] },
    );
    this.#children.set(identity, child);
    this.#stderr.set(identity, "");
    child.stderr?.on("data", (d: Buffer) => {
      this.#stderr.set(identity, this.#stderr.get(identity) + d.toString());
    });
    child.on("message", (m: CandidateMessage) => this.#add({ ...m, atMs: performance.now() }));
    child.on("exit", (code, signal) =>
      this.#add({ type: "exit", identity, code, signal, atMs: performance.now() }),
    );
  }

  /** The candidate that reported `started-leading` last and has not reported it stopped. */
  get leader(): string | undefined {
    return this.#leader;
  }

  kill(identity: string, signal: NodeJS.Signals): void {
    this.#children.get(identity)?.kill(signal);
  }

  /**
   * Resolves with the first entry at index `from` or later that `test` accepts; rejects as soon
   * as a safety violation is seen, or once `signal` aborts (the test's timeout), showing the log
   * and every candidate's stderr.
   */
  until(
    test: (e: Entry) => boolean,
    description: string,
    signal: AbortSignal,
    from = 0,
  ): Promise<Entry> {
    return new Promise((resolve, reject) => {
      const check = () => {
        const found = this.log.slice(from).find(test);
        if (found === undefined && this.violations.length === 0) return false;
        this.#waiters.delete(check);
        signal.removeEventListener("abort", onAbort);
        if (this.violations.length > 0) {
          const why = this.violations.join("; ");
          reject(new Error(`${why} (waiting for ${description})\n${this.describe()}`));
        } else resolve(found!);
        return true;
      };
      const onAbort = () => {
        this.#waiters.delete(check);
        reject(new Error(`gave up waiting for ${description}\n${this.describe()}`));
      };
      if (check()) return;
      this.#waiters.add(check);
      signal.addEventListener("abort", onAbort, { once: true });
    });
  }

  describe(): string {
    const log = this.log.map((e) => `${e.atMs.toFixed(0)} ms ${JSON.stringify(e)}`);
    const stderr = [...this.#stderr].map(([id, s]) => `stderr of ${id}:\n${s}`);
    return [...log, ...stderr].join("\n");
  }

  #add(e: Entry): void {
    this.log.push(e);
    this.#checkSafety(e);
    for (const check of [...this.#waiters]) check();
  }

  #checkSafety(e: Entry): void {
    switch (e.type) {
      case "started-leading":
        if (this.#leader === e.identity) {
          this.violations.push(`${e.identity} started leading twice without stopping`);
        } else if (this.#leader !== undefined && !this.#dead.has(this.#leader)) {
          this.violations.push(`${e.identity} started leading while ${this.#leader} still led`);
        }
        this.#leader = e.identity;
        break;
      case "stopped-leading":
        if (this.#leader === e.identity) this.#leader = undefined;
        break;
      case "exit":
        this.#dead.add(e.identity);
        break;
      case "ready":
      case "new-leader":
      case "error":
      case "done":
        break;
    }
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await Promise.all(
      [...this.#children].map(([identity, child]) => {
        if (this.#dead.has(identity)) return undefined;
        const exited = new Promise((resolve) => child.once("exit", resolve));
        child.kill("SIGKILL");
        return exited;
      }),
    );
  }
}

/** One version of the Lease, as the parent's watch saw it. */
interface LeaseVersion {
  holder: string;
  leaseDurationSeconds: number;
  acquireTimeMs: number;
  renewTimeMs: number;
  transitions: number;
}

/** Every version of one Lease, in order, from a watch that resumes where it broke off. */
class LeaseHistory implements AsyncDisposable {
  readonly versions: LeaseVersion[] = [];
  readonly #leases: ResourceClient<Lease>;
  readonly #name: string;
  readonly #stop = new AbortController();
  readonly #waiters = new Set<() => void>();
  #loop: Promise<void> | undefined;

  constructor(leaseClient: ResourceClient<Lease>, name: string) {
    this.#leases = leaseClient;
    this.#name = name;
  }

  async start(): Promise<void> {
    const list = await this.#leases.list({ fieldSelector: `metadata.name=${this.#name}` });
    for (const l of list.items) this.#add(l);
    let rv = list.resourceVersion;
    this.#loop = (async () => {
      while (!this.#stop.signal.aborted) {
        try {
          for await (const e of this.#leases.watch({
            fieldSelector: `metadata.name=${this.#name}`,
            resourceVersion: rv,
            signal: this.#stop.signal,
          })) {
            rv = e.object.metadata?.resourceVersion ?? rv;
            if (e.type === "ADDED" || e.type === "MODIFIED") this.#add(e.object);
          }
        } catch {
          // Closed by dispose, or broken: resume from the last version seen.
        }
      }
    })();
  }

  /** Resolves with the index of the first version from `from` on that `test` accepts. */
  async until(test: (v: LeaseVersion) => boolean, signal: AbortSignal, from = 0): Promise<number> {
    return new Promise((resolve, reject) => {
      const check = () => {
        const i = this.versions.findIndex((v, i) => i >= from && test(v));
        if (i < 0) return false;
        this.#waiters.delete(check);
        signal.removeEventListener("abort", onAbort);
        resolve(i);
        return true;
      };
      const onAbort = () => {
        this.#waiters.delete(check);
        reject(
          new Error(`Lease history:\n${this.versions.map((v) => JSON.stringify(v)).join("\n")}`),
        );
      };
      if (check()) return;
      this.#waiters.add(check);
      signal.addEventListener("abort", onAbort, { once: true });
    });
  }

  #add(lease: Lease): void {
    const s = lease.spec ?? {};
    this.versions.push({
      holder: s.holderIdentity ?? "",
      leaseDurationSeconds: s.leaseDurationSeconds ?? 0,
      acquireTimeMs: parseTime(s.acquireTime) ?? Number.NaN,
      renewTimeMs: parseTime(s.renewTime) ?? Number.NaN,
      transitions: s.leaseTransitions ?? 0,
    });
    for (const check of [...this.#waiters]) check();
  }

  async [Symbol.asyncDispose](): Promise<void> {
    this.#stop.abort();
    await this.#loop;
  }
}

describe("leader election across processes", { timeout: 30_000 }, () => {
  it("one leader at a time; a killed leader is replaced once its lease runs out, a stopped one at once", async (t) => {
    await using server = await startTestServer({ controllers: false });
    await using client = createClient({ url: server.url });
    const leaseName = "candidates";
    await using history = new LeaseHistory(
      client.resource(leases, { namespace: "default" }),
      leaseName,
    );
    await history.start();
    await using candidates = new Candidates();
    const identities = ["candidate-0", "candidate-1", "candidate-2"];
    for (const identity of identities) {
      candidates.spawn({
        url: server.url,
        identity,
        namespace: "default",
        leaseName,
        leaseDurationMs: LEASE_DURATION_MS,
        renewDeadlineMs: RENEW_DEADLINE_MS,
        retryPeriodMs: RETRY_PERIOD_MS,
      });
    }
    const started = (from: number, description: string) =>
      candidates.until((e) => e.type === "started-leading", description, t.signal, from);

    // An election, and every candidate in the race: each has seen the same leader.
    const first = await started(0, "a first leader");
    for (const identity of identities) {
      await candidates.until(
        (e) => e.type === "new-leader" && e.identity === identity && e.leader === first.identity,
        `${identity} to see ${first.identity} lead`,
        t.signal,
      );
    }

    // SIGKILL: nothing is released; another takes over once the lease has run out. (The leader
    // now is the first one, unless it missed its renew deadline meanwhile.)
    const killed = candidates.leader;
    assert.ok(killed !== undefined, candidates.describe());
    let from = candidates.log.length;
    let versionsFrom = history.versions.length;
    const killedAt = performance.now();
    candidates.kill(killed, "SIGKILL");
    const second = await started(from, `a leader after ${killed} was killed`);
    const takeoverMs = second.atMs - killedAt;
    t.diagnostic(`takeover after SIGKILL: ${takeoverMs.toFixed(0)} ms`);
    assert.notEqual(second.identity, killed);
    assert.ok(
      takeoverMs <= TAKEOVER_BOUND_MS,
      `takeover took ${takeoverMs} ms, over the bound of ${TAKEOVER_BOUND_MS} ms`,
    );
    const secondAt = await history.until(
      (v) => v.holder === second.identity,
      t.signal,
      versionsFrom,
    );
    const lastOfKilled = history.versions[secondAt - 1]!;
    assert.equal(lastOfKilled.holder, killed, "the killed leader released nothing");
    const waitedMs = history.versions[secondAt]!.acquireTimeMs - lastOfKilled.renewTimeMs;
    assert.ok(
      waitedMs >= LEASE_DURATION_MS,
      `${second.identity} acquired ${waitedMs} ms after ${killed}'s last renewal, before its lease ran out`,
    );

    // SIGTERM: the leader stops, hands the Lease back, and the last candidate takes it at once.
    const stopped = candidates.leader;
    assert.ok(stopped !== undefined, candidates.describe());
    from = candidates.log.length;
    versionsFrom = history.versions.length;
    const terminatedAt = performance.now();
    candidates.kill(stopped, "SIGTERM");
    const third = await started(from, `a leader after ${stopped} was stopped`);
    const handoverMs = third.atMs - terminatedAt;
    t.diagnostic(`takeover after SIGTERM: ${handoverMs.toFixed(0)} ms`);
    const remaining = identities.filter((i) => i !== killed && i !== stopped);
    assert.deepEqual([third.identity], remaining);
    assert.ok(
      handoverMs <= HANDOVER_BOUND_MS,
      `handover took ${handoverMs} ms, over the bound of ${HANDOVER_BOUND_MS} ms`,
    );
    const exited = await candidates.until(
      (e) => e.type === "exit" && e.identity === stopped,
      `${stopped} to exit`,
      t.signal,
      from,
    );
    assert.deepEqual(exited.type === "exit" && [exited.code, exited.signal], [0, null]);
    const thirdAt = await history.until((v) => v.holder === third.identity, t.signal, versionsFrom);
    const released = history.versions[thirdAt - 1]!;
    assert.deepEqual(
      { holder: released.holder, leaseDurationSeconds: released.leaseDurationSeconds },
      { holder: "", leaseDurationSeconds: 1 },
      "the stopped leader released the Lease",
    );
    assert.equal(history.versions[thirdAt - 2]?.holder, stopped);
    assert.ok(
      history.versions[thirdAt]!.acquireTimeMs - released.renewTimeMs < LEASE_DURATION_MS,
      `${third.identity} took the released Lease without waiting for it to run out`,
    );
    const leaders = candidates.log.filter((e) => e.type === "started-leading");
    assert.equal(
      history.versions[thirdAt]!.transitions,
      leaders.filter((e, i) => i > 0 && e.identity !== leaders[i - 1]!.identity).length,
      "one transition per change of leader",
    );

    // Every version of the Lease: a holder replaced a live one only after its lease ran out.
    for (const [i, v] of history.versions.entries()) {
      const prev = history.versions[i - 1];
      if (prev === undefined || prev.holder === "" || v.holder === prev.holder) continue;
      if (v.holder === "") continue; // a release by the holder itself
      assert.ok(
        v.acquireTimeMs - prev.renewTimeMs >= LEASE_DURATION_MS,
        `${v.holder} took the Lease from ${prev.holder} before it ran out`,
      );
    }
    assert.deepEqual(candidates.violations, [], candidates.describe());

    candidates.kill(third.identity, "SIGTERM");
    await candidates.until(
      (e) => e.type === "exit" && e.identity === third.identity,
      `${third.identity} to exit`,
      t.signal,
    );
    assert.deepEqual(candidates.violations, [], candidates.describe());
  });
});
