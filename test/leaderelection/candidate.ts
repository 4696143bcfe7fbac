/**
 * One leader-election candidate in its own process, for `leader-election-processes.test.ts`:
 * `node --conditions=kontroller-source candidate.ts '<CandidateConfig as JSON>'`, spawned with
 * an IPC channel. It runs a LeaderElector on a Lease of the given server, on the real clock,
 * and reports to the parent over IPC (see {@link CandidateMessage}). SIGTERM (or the parent
 * going away) cancels the run, which releases the Lease; then it exits 0.
 */
import { performance } from "node:perf_hooks";
import { createClient } from "kontroller/client";
import { LeaderElector, LeaseLock } from "kontroller/leaderelection";
import { leases } from "kontroller/resources";

/** What the parent passes in argv[2]. */
export interface CandidateConfig {
  url: string;
  identity: string;
  namespace: string;
  leaseName: string;
  leaseDurationMs: number;
  renewDeadlineMs: number;
  retryPeriodMs: number;
}

/**
 * What a candidate reports. `monotonicMs` is this process's `performance.now()`: comparable
 * between one candidate's messages only, never across processes.
 */
export type CandidateMessage =
  | { type: "ready"; identity: string }
  /** The elector saw a new holder of the Lease (`""`: released). */
  | { type: "new-leader"; identity: string; leader: string }
  /** Leadership acquired: from now on this candidate acts as the leader. */
  | { type: "started-leading"; identity: string; monotonicMs: number }
  /**
   * Leadership over: sent the moment the leader's signal aborts, before the Lease is released,
   * so it reaches the parent before any other candidate can have acquired the released Lease.
   */
  | { type: "stopped-leading"; identity: string; monotonicMs: number }
  /** A lock operation failed (conflicts are expected while candidates race). */
  | { type: "error"; identity: string; message: string }
  /** The run is over (the Lease released if held); the process exits next. */
  | { type: "done"; identity: string };

const config = JSON.parse(process.argv[2] ?? "") as CandidateConfig;
const { identity } = config;

function send(message: CandidateMessage): Promise<void> {
  return new Promise((resolve) => {
    if (!process.send || !process.connected) return resolve();
    process.send(message, undefined, {}, () => resolve());
  });
}

const stop = new AbortController();
process.on("SIGTERM", () => stop.abort(new Error("SIGTERM")));
process.on("disconnect", () => stop.abort(new Error("the parent went away")));

const client = createClient({ url: config.url });
const elector = new LeaderElector({
  lock: new LeaseLock({
    leases: client.resource(leases, { namespace: config.namespace }),
    name: config.leaseName,
  }),
  identity,
  leaseDurationMs: config.leaseDurationMs,
  renewDeadlineMs: config.renewDeadlineMs,
  retryPeriodMs: config.retryPeriodMs,
  onStartedLeading(signal) {
    void send({ type: "started-leading", identity, monotonicMs: performance.now() });
    signal.addEventListener(
      "abort",
      () => void send({ type: "stopped-leading", identity, monotonicMs: performance.now() }),
      { once: true },
    );
  },
  onNewLeader(leader) {
    void send({ type: "new-leader", identity, leader });
  },
  onError(err) {
    void send({ type: "error", identity, message: String(err) });
  },
});

await send({ type: "ready", identity });
// A run also ends when leadership is lost (a renewal deadline missed); then, like a restarted
// process, the candidate runs for it again.
while (!stop.signal.aborted) await elector.run(stop.signal);
await client.close();
await send({ type: "done", identity });
if (process.connected) process.disconnect();
