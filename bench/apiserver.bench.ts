/**
 * The embedded API server against a raw node:http ceiling in the same run: create and merge-patch
 * throughput (4 keep-alive clients), list of 10 000 and 100 000 ConfigMaps, and watch fan-out (1 000
 * watchers × 1 000 events: delivered events/s, serializations per event, heap per watcher).
 */
import { ApiServer } from "kontroller/apiserver";
import { keepAliveAgent, openWatch, pool, send } from "./apiserver/http-client.ts";
import { startRawServer } from "./apiserver/raw-server.ts";
import { heapUsedAfterGc, type Suite, timed } from "./harness.ts";

const CMS = "/api/v1/namespaces/default/configmaps";

function configMap(i: number, prefix: string) {
  return {
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: {
      name: `${prefix}-${i}`,
      namespace: "default",
      labels: { app: "bench", shard: String(i % 16) },
    },
    data: { key: `value-${i}`, config: "a=1\nb=2\nc=3\n" },
  };
}

type Store = { create(ns: string, body: unknown): Promise<unknown> };

function configMapStore(server: ApiServer): Store {
  return server.registry.lookup("", "v1", "configmaps")!.store as unknown as Store;
}

export const suite: Suite = {
  name: "apiserver",
  description: "embedded API server vs a raw node:http JSON ceiling: create, list, watch fan-out",
  async run(ctx) {
    const server = new ApiServer({
      compactionIntervalMs: 0,
      watchCache: { watcherBufferSize: 5000 },
    });
    const url = await server.listen();
    const raw = await startRawServer();
    const agent = keepAliveAgent(4);
    try {
      // Writes are measured warm: a round of 4 000 is short enough that the first ones run
      // while the JIT is still compiling the server's write path (of both servers alike).
      const writeRounds = { warmupRounds: ctx.quick ? 0 : 2 };
      // Create: 4 concurrent keep-alive clients.
      const creates = ctx.quick ? 500 : 4000;
      let round = 0;
      await ctx.compare(
        "create",
        {
          kontroller: async () => {
            const r = round++;
            const { ms } = await timed(() =>
              pool(creates, 4, async (i) => {
                const res = await send(
                  agent,
                  url + CMS,
                  "POST",
                  JSON.stringify(configMap(i, `c${r}`)),
                );
                if (res.status !== 201) throw new Error(`create failed: ${res.status} ${res.text}`);
              }),
            );
            return { objects_per_s: { value: creates / (ms / 1000), unit: "objects/s" } };
          },
          "raw-http": async () => {
            const r = round++;
            const { ms } = await timed(() =>
              pool(creates, 4, async (i) => {
                await send(agent, raw.url + CMS, "POST", JSON.stringify(configMap(i, `c${r}`)));
              }),
            );
            return { objects_per_s: { value: creates / (ms / 1000), unit: "objects/s" } };
          },
        },
        writeRounds,
      );

      // Patch: merge patches of one key of 100 ConfigMaps, 4 keep-alive clients (a controller's
      // status and label writes); kontroller records each in the object's managedFields.
      const patchTargets = 100;
      for (let i = 0; i < patchTargets; i++) {
        await send(agent, url + CMS, "POST", JSON.stringify(configMap(i, "patched")));
      }
      const patches = ctx.quick ? 500 : 4000;
      let seq = 0;
      const patchRound = (base: string) => async () => {
        const { ms } = await timed(() =>
          pool(patches, 4, async (i) => {
            const res = await send(
              agent,
              `${base + CMS}/patched-${i % patchTargets}`,
              "PATCH",
              JSON.stringify({ data: { key: `value-${seq++}` } }),
              "application/merge-patch+json",
            );
            if (res.status !== 200) throw new Error(`patch failed: ${res.status} ${res.text}`);
          }),
        );
        return { objects_per_s: { value: patches / (ms / 1000), unit: "objects/s" } };
      };
      await ctx.compare(
        "patch",
        { kontroller: patchRound(url), "raw-http": patchRound(raw.url) },
        writeRounds,
      );

      // Lists: both servers hold the same objects (in a namespace of their own here).
      await send(
        agent,
        `${url}/api/v1/namespaces`,
        "POST",
        JSON.stringify({ metadata: { name: "lists" } }),
      );
      const store = configMapStore(server);
      let held = 0;
      for (const [workload, size] of [
        ["list-10k", ctx.quick ? 1_000 : 10_000],
        ["list-100k", ctx.quick ? 10_000 : 100_000],
      ] as const) {
        for (; held < size; held++) {
          const cm = {
            ...configMap(held, "l"),
            metadata: { ...configMap(held, "l").metadata, namespace: "lists" },
          };
          await store.create("lists", cm);
          raw.objects.push({
            ...cm,
            metadata: {
              ...cm.metadata,
              resourceVersion: String(held + 2),
              uid: "00000000-0000-0000-0000-000000000000",
              creationTimestamp: "2026-01-01T00:00:00Z",
            },
          });
        }
        const measure = (base: string) => async () => {
          const { result, ms } = await timed(() =>
            send(agent, `${base}/api/v1/namespaces/lists/configmaps`, "GET"),
          );
          return {
            ms: { value: ms, unit: "ms" },
            mb_per_s: { value: result.bytes / 1e6 / (ms / 1000), unit: "MB/s" },
          };
        };
        await ctx.compare(workload, { kontroller: measure(url), "raw-http": measure(raw.url) });
      }

      // Watch fan-out.
      const watchers = ctx.quick ? 100 : 1000;
      const events = ctx.quick ? 100 : 1000;
      const watchAgent = keepAliveAgent(watchers + 10);
      let fan = 0;
      await ctx.compare("watch-fanout", {
        kontroller: async () => {
          const f = fan++;
          const cache = server.registry.caches().get("/registry/configmaps/")!;
          const rv = cache.resourceVersion;
          const before = heapUsedAfterGc();
          const streams = await Promise.all(
            Array.from({ length: watchers }, () =>
              openWatch(
                watchAgent,
                `${url}${CMS}?watch=1&resourceVersion=${rv}&labelSelector=fan%3D${f}`,
                events,
              ),
            ),
          );
          const perWatcher = (heapUsedAfterGc() - before) / watchers;
          const s0 = cache.stats().serializations;
          const slow0 = cache.stats().slowWatchersClosed;
          const { ms } = await timed(async () => {
            for (let i = 0; i < events; i++) {
              const cm = configMap(i, `w${f}`);
              cm.metadata.labels = {
                ...cm.metadata.labels,
                fan: String(f),
              } as typeof cm.metadata.labels;
              await store.create("default", cm);
            }
            await Promise.all(streams.map((s) => s.done));
          });
          const serializations = cache.stats().serializations - s0;
          if (cache.stats().slowWatchersClosed !== slow0)
            throw new Error("a watcher was closed as slow");
          for (const s of streams) s.close();
          return {
            events_per_s: { value: (watchers * events) / (ms / 1000), unit: "events/s" },
            serializations_per_event: {
              value: serializations / events,
              unit: "serializations/event",
            },
            heap_bytes_per_watcher: { value: perWatcher, unit: "bytes" },
          };
        },
        "raw-http": async () => {
          const f = fan++;
          const before = heapUsedAfterGc();
          const streams = await Promise.all(
            Array.from({ length: watchers }, () =>
              openWatch(watchAgent, `${raw.url}${CMS}?watch=1`, events),
            ),
          );
          const perWatcher = (heapUsedAfterGc() - before) / watchers;
          let serializations = 0;
          const { ms } = await timed(async () => {
            for (let i = 0; i < events; i++) {
              serializations += raw.broadcast(configMap(i, `w${f}`));
              if (i % 10 === 9) await new Promise((r) => setImmediate(r));
            }
            await Promise.all(streams.map((s) => s.done));
          });
          for (const s of streams) s.close();
          return {
            events_per_s: { value: (watchers * events) / (ms / 1000), unit: "events/s" },
            serializations_per_event: {
              value: serializations / events,
              unit: "serializations/event",
            },
            heap_bytes_per_watcher: { value: perWatcher, unit: "bytes" },
          };
        },
      });
      watchAgent.destroy();
    } finally {
      agent.destroy();
      await raw.close();
      await server.close();
    }
  },
};
