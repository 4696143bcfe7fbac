/**
 * Informers against the embedded API server (in its own process), in the same run:
 * kontroller's SharedInformer, @kubernetes/client-node's `makeInformer`, and the ceiling
 * `JSON.parse` of the same list bytes.
 *
 * - `sync-10k`, `sync-100k`: initial sync of ConfigMaps of about 1 KiB — `sync_ms` (time to
 *   synced: every object handed to the handler) and `heap_bytes_per_object` (heap the cache
 *   holds, measured as the heap released by stopping the informer).
 * - `steady-1k-per-s`: 1 000 writes/s for 30 s — `p50_ms`, `p99_ms` from each write's response
 *   to the handler call.
 * - `saturation`: a backlog of updates released at once — `events_per_s`.
 *
 * `--quick` shrinks every workload (1 000 and 5 000 objects, 3 s of writes, 5 000 events) but
 * keeps the names. `KONTROLLER_BENCH_ONLY=steady-1k-per-s,saturation` runs only those workloads.
 */
import type { Suite } from "./harness.ts";
import { peers } from "./informer/peers.ts";
import { startBenchServer } from "./informer/server-control.ts";
import { jsonParseRound, saturationRound, steadyRound, syncRound } from "./informer/workloads.ts";

const PAYLOAD_BYTES = 900;

export const suite: Suite = {
  name: "informer",
  description:
    "kontroller SharedInformer vs @kubernetes/client-node makeInformer vs JSON.parse, against the embedded API server",
  async run(ctx) {
    const only = process.env.KONTROLLER_BENCH_ONLY?.split(",");
    const wanted = (workload: string) => only === undefined || only.includes(workload);
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
          kontroller: () => syncRound(peers.kontroller!, server.url, namespace, count),
          "client-node": () => syncRound(peers["client-node"]!, server.url, namespace, count),
          "json-parse": () => jsonParseRound(server.url, namespace),
        },
        { warmupRounds: ctx.quick ? 0 : 1 },
      );
    }

    const objects = 1_000;
    await server.call({
      type: "populate",
      namespace: "steady",
      count: objects,
      bytes: PAYLOAD_BYTES,
    });
    const durationMs = ctx.quick ? 3_000 : 30_000;
    if (wanted("steady-1k-per-s"))
      await ctx.compare("steady-1k-per-s", {
        kontroller: () =>
          steadyRound(peers.kontroller!, server.url, "steady", objects, 1_000, durationMs),
        "client-node": () =>
          steadyRound(peers["client-node"]!, server.url, "steady", objects, 1_000, durationMs),
      });

    const events = ctx.quick ? 5_000 : 30_000;
    if (wanted("saturation"))
      await ctx.compare(
        "saturation",
        {
          kontroller: () => saturationRound(peers.kontroller!, server, "steady", objects, events),
          "client-node": () =>
            saturationRound(peers["client-node"]!, server, "steady", objects, events),
        },
        { warmupRounds: ctx.quick ? 0 : 1 },
      );
  },
};
