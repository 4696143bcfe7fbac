/**
 * The informer benchmark's server process: the embedded API server, with a fault proxy in
 * front, run apart from the benchmark so that serving does not compete with the informers
 * under test for the event loop. Driven over IPC by `server-control.ts`.
 */
import { ApiServer, MemoryStorage } from "kontroller/apiserver";
import { createClient } from "kontroller/client";
import { configMaps, namespaces, type Pod, pods } from "kontroller/resources";
import { startFaultProxy } from "kontroller/testing";
import { pod as benchPod } from "../protobuf/pods.ts";
import type { Reply, Request } from "./protocol.ts";

// Compaction only when the benchmark asks (quiesce), never in a measured window.
const storage = new MemoryStorage();
const server = new ApiServer({ compactionIntervalMs: 0, storage });
const url = await server.listen();
const proxy = await startFaultProxy({ target: url });
const client = createClient({ url });

function reply(r: Reply): void {
  process.send!(r);
}

/** Runs `n` tasks with at most `width` in flight. */
async function parallel(
  n: number,
  width: number,
  task: (i: number) => Promise<unknown>,
): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < n) await task(next++);
  };
  await Promise.all(Array.from({ length: Math.min(width, n) }, worker));
}

async function handle(msg: Request): Promise<void> {
  switch (msg.type) {
    case "populate": {
      const started = performance.now();
      await client.resource(namespaces).create({ metadata: { name: msg.namespace } });
      const cms = client.resource(configMaps, { namespace: msg.namespace });
      const payload = "x".repeat(msg.bytes);
      await parallel(msg.count, 64, (i) =>
        cms.create({
          metadata: { name: `cm-${i}`, labels: { app: "bench" } },
          data: { seq: "0", payload },
        }),
      );
      reply({ type: "populated", ms: performance.now() - started });
      return;
    }
    case "populate-pods": {
      const started = performance.now();
      await client.resource(namespaces).create({ metadata: { name: msg.namespace } });
      const podClient = client.resource(pods, { namespace: msg.namespace });
      await parallel(msg.count, 64, (i) => {
        // What the server sets itself is left for it to set.
        const { uid, resourceVersion, creationTimestamp, managedFields, ...metadata } =
          benchPod(i).metadata ?? {};
        void [uid, resourceVersion, creationTimestamp, managedFields];
        return podClient.create({
          ...(benchPod(i) as Pod),
          metadata: { ...metadata, namespace: msg.namespace },
        });
      });
      reply({ type: "populated", ms: performance.now() - started });
      return;
    }
    case "stall":
      // Also the watch an informer opens right after syncing, which may not be open yet.
      proxy.stallWatches({ newWatches: true });
      reply({ type: "stalled" });
      return;
    case "burst": {
      const cms = client.resource(configMaps, { namespace: msg.namespace });
      await parallel(msg.count, 64, (i) =>
        cms.patch(`cm-${i % msg.objects}`, "merge", { data: { seq: String(msg.firstSeq + i) } }),
      );
      // Every event (one per patch) must be in the proxy's hands before the release, so that
      // the round measures the informer reading a backlog, not the server still producing it —
      // nor collecting the burst's garbage while it releases the backlog.
      await proxy.whenHeld(msg.count);
      (globalThis as { gc?: () => void }).gc?.();
      reply({ type: "burst-done" });
      return;
    }
    case "resume":
      proxy.resumeWatches();
      reply({ type: "resumed" });
      return;
    case "quiesce":
      // Old revisions go (30 000 a steady round: kept, the server's heap grew by GBs over a
      // run and its major collections paused both peers' watches), then the garbage.
      await storage.compact(await storage.currentRevision());
      (globalThis as { gc?: () => void }).gc?.();
      reply({ type: "quiesced" });
      return;
    case "stats":
      reply({
        type: "stats",
        stats: Object.entries(server.stats()).find(([k]) => k.includes("configmaps"))?.[1],
      });
      return;
    case "stop":
      await client.close();
      await proxy.close();
      await server.close();
      await storage.close();
      process.disconnect();
      return;
  }
}

process.on("message", (msg: Request) => {
  handle(msg).catch((err: unknown) => reply({ type: "error", message: String(err) }));
});
reply({ type: "ready", url, proxyUrl: proxy.url });
