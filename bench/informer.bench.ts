/**
 * Informers against the embedded API server (in its own process), in the same run:
 * kontroller's SharedInformer, @kubernetes/client-node's `makeInformer`, the `floor` (the least
 * any informer must do: one raw socket, `JSON.parse` of each object, a `Map`; `informer/floor.ts`)
 * and the ceiling `JSON.parse` of the same list bytes.
 *
 * - `sync-10k`, `sync-100k`: initial sync of ConfigMaps of about 1 KiB — `sync_ms` (time to
 *   synced: every object handed to the handler) and `heap_bytes_per_object` (heap the cache
 *   holds, measured as the heap released by stopping the informer).
 * - `steady-1k-per-s`: 1 000 writes/s for 30 s — `p50_ms`, `p99_ms` from each write's response
 *   to the handler call.
 * - `saturation`: a backlog of updates released at once — `events_per_s`; `json-parse` is the
 *   ceiling: `JSON.parse` of each line of the same backlog, read beforehand.
 *
 * `--quick` shrinks every workload (1 000 and 5 000 objects, 3 s of writes, 5 000 events) but
 * keeps the names. `KONTROLLER_BENCH_ONLY=steady-1k-per-s,saturation` runs only those workloads.
 */
import { heapUsedAfterGc, type Measured, type Suite, type SuiteContext } from "./harness.ts";
import { floorPeer } from "./informer/floor.ts";
import { closePeers, type Peer, peers } from "./informer/peers.ts";
import { type BenchServer, startBenchServer } from "./informer/server-control.ts";
import {
  jsonParseRound,
  saturationParseRound,
  saturationRound,
  steadyRound,
  syncRound,
} from "./informer/workloads.ts";

const PAYLOAD_BYTES = 900;

export const suite: Suite = {
  name: "informer",
  description:
    "kontroller SharedInformer vs @kubernetes/client-node makeInformer vs the floor vs JSON.parse, against the embedded API server",
  async run(ctx) {
    const only = process.env.KONTROLLER_BENCH_ONLY?.split(",");
    const wanted = (workload: string) => only === undefined || only.includes(workload);
    try {
      if (wanted("sync-10k") || wanted("sync-100k")) await runSyncs(ctx, wanted);
      if (wanted("steady-1k-per-s") || wanted("saturation")) await runStreams(ctx, wanted);
    } finally {
      await closePeers();
    }
  },
};

/** The informers under comparison, then the floor, by their `impl` names. */
const compared: Record<string, Peer> = { ...peers, floor: floorPeer };

/** One round function per informer under comparison (and the floor), by its `impl` name. */
function eachPeer(
  round: (peer: Peer) => () => Promise<Measured>,
): Record<string, () => Promise<Measured>> {
  return Object.fromEntries(Object.entries(compared).map(([impl, peer]) => [impl, round(peer)]));
}

/**
 * `round`, after the server has compacted and collected its garbage, so that no round starts
 * while the server runs a major collection on the second core; with `collectHere`, after this
 * process has collected its own too.
 */
function quiesced(
  server: BenchServer,
  round: () => Promise<Measured>,
  collectHere = false,
): () => Promise<Measured> {
  return async () => {
    await server.call({ type: "quiesce" });
    if (collectHere) heapUsedAfterGc();
    return round();
  };
}

/** The initial syncs, on a server of their own (which holds every populated object). */
async function runSyncs(ctx: SuiteContext, wanted: (workload: string) => boolean): Promise<void> {
  await using server = await startBenchServer();
  const sizes: [string, number][] = ctx.quick
    ? [
        ["sync-10k", 1_000],
        ["sync-100k", 5_000],
      ]
    : [
        ["sync-10k", 10_000],
        ["sync-100k", 100_000],
      ];
  for (const [workload, count] of sizes) {
    if (!wanted(workload)) continue;
    const namespace = workload;
    await server.call({ type: "populate", namespace, count, bytes: PAYLOAD_BYTES });
    // A sync is short (50-1 000 ms): one warm-up round each keeps JIT warm-up out of the
    // figures (it made the first measured rounds of every peer up to 2x slower).
    await ctx.compare(
      workload,
      {
        ...eachPeer((peer) =>
          quiesced(server, () => syncRound(peer, server.url, namespace, count)),
        ),
        "json-parse": quiesced(server, () => jsonParseRound(server.url, namespace)),
      },
      // A 10 000-object sync takes 0.1-0.3 s, and single rounds of either peer vary by 1.5x
      // on this machine: 15 rounds cost little and steady the median.
      { warmupRounds: ctx.quick ? 0 : 1, minRounds: workload === "sync-10k" ? 15 : 0 },
    );
  }
}

/**
 * Steady writes and saturation, on a fresh server: one still holding the 110 000 objects of the
 * syncs (and their history) ran major collections that put 60 ms pauses into both peers'
 * write-to-handler latencies, measuring the server rather than the informers.
 */
async function runStreams(ctx: SuiteContext, wanted: (workload: string) => boolean): Promise<void> {
  await using server = await startBenchServer();
  const objects = 1_000;
  await server.call({
    type: "populate",
    namespace: "steady",
    count: objects,
    bytes: PAYLOAD_BYTES,
  });
  const durationMs = ctx.quick ? 3_000 : 30_000;
  if (wanted("steady-1k-per-s"))
    await ctx.compare(
      "steady-1k-per-s",
      eachPeer((peer) =>
        quiesced(server, () => steadyRound(peer, server.url, "steady", objects, 1_000, durationMs)),
      ),
    );

  const events = ctx.quick ? 5_000 : 30_000;
  // Before each saturation round both processes collect their garbage: the server's history of
  // the previous bursts, and this process's — the json-parse round leaves 43 MB of read chunks
  // and parsed lines behind, whose collection otherwise lands in whichever round comes next.
  const settled = (round: () => Promise<Measured>) => quiesced(server, round, true);
  if (wanted("saturation"))
    await ctx.compare(
      "saturation",
      {
        ...eachPeer((peer) =>
          settled(() => saturationRound(peer, server, "steady", objects, events)),
        ),
        "json-parse": settled(() => saturationParseRound(server, "steady", objects, events)),
      },
      { warmupRounds: ctx.quick ? 0 : 1 },
    );
}
