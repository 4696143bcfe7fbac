/**
 * `sync-10k-pods`: a SharedInformer's initial sync of 10 000 Pods (bench/protobuf/pods.ts) from
 * the embedded API server in its own process, over protobuf (`contentType: "protobuf"`) against
 * JSON, in the same run: `sync_ms`, from the informer's start to its handler having seen every
 * Pod. The informers stream their list (a watch with initial events), as they do by default;
 * `KONTROLLER_BENCH_WATCH_LIST=false` measures paged lists instead.
 */
import { listerWatcherFor, SharedInformer } from "kontroller/cache";
import { type Client, createClient } from "kontroller/client";
import { type Pod, pods } from "kontroller/resources";
import { heapUsedAfterGc, type Measured, nowMs, type SuiteContext } from "../harness.ts";
import { startBenchServer } from "../informer/server-control.ts";

const silent = { error() {}, warn() {}, info() {}, debug() {} };
const useWatchList = process.env.KONTROLLER_BENCH_WATCH_LIST !== "false";

/** One sync of `count` Pods in `namespace` on `client`'s server. */
async function syncRound(client: Client, namespace: string, count: number): Promise<Measured> {
  let seen = 0;
  const informer = new SharedInformer<Pod>({
    listerWatcher: listerWatcherFor(client.resource(pods, { namespace })),
    useWatchList,
    logger: silent,
  });
  const registration = informer.addEventHandler({ onAdd: () => void seen++ });
  const started = nowMs();
  const running = informer.run();
  await registration.waitForSync();
  const ms = nowMs() - started;
  await informer.stop();
  await running;
  if (seen < count) throw new Error(`synced with ${seen} of ${count} Pods`);
  return { sync_ms: { value: ms, unit: "ms" } };
}

export async function runSync(ctx: SuiteContext): Promise<void> {
  const count = ctx.quick ? 1_000 : 10_000;
  await using server = await startBenchServer();
  const namespace = "sync-pods";
  await server.call({ type: "populate-pods", namespace, count });
  // One client of each kind for the whole run, as a controller keeps one.
  const protobuf = createClient({ url: server.url, contentType: "protobuf" });
  const json = createClient({ url: server.url });
  const round = (client: Client) => async () => {
    // Each round starts on a server holding only the live objects and collected, in a process
    // that has collected the previous round's cache.
    await server.call({ type: "quiesce" });
    heapUsedAfterGc();
    return syncRound(client, namespace, count);
  };
  try {
    await ctx.compare(
      "sync-10k-pods",
      { protobuf: round(protobuf), json: round(json) },
      // A sync is 0.2-1 s and single rounds vary by 1.5x on 2 cores: a warm-up round keeps the
      // JIT out of the figures, 9 rounds steady the median.
      { warmupRounds: ctx.quick ? 0 : 1, minRounds: ctx.quick ? 0 : 9 },
    );
  } finally {
    await Promise.all([protobuf.close(), json.close()]);
  }
}
