/**
 * The embedded API server against a raw node:http ceiling in the same run: create and merge-patch
 * throughput (4 keep-alive clients), list of 10 000 and 100 000 ConfigMaps, and watch fan-out (1 000
 * watchers × 1 000 events: delivered events/s, serializations per event, heap per watcher).
 *
 * Every workload runs over plain HTTP (impls `kontroller` and `raw-http`) and over HTTPS (impls
 * `kontroller-tls` and `raw-http-tls`: the server with `tls: {}`, and the ceiling on node:https
 * with the server's own P-256 serving certificate), all four interleaved round by round, so that
 * TLS's cost is plain against TLS of the same server in the same rounds. Connections are kept
 * alive across rounds: TLS's cost here is encryption, not handshakes (the watch's handshakes
 * happen before its clock starts).
 */
import type { Agent } from "node:http";
import { ApiServer } from "kontroller/apiserver";
import { keepAliveAgent, openWatch, pool, send } from "./apiserver/http-client.ts";
import { type RawServer, startRawServer } from "./apiserver/raw-server.ts";
import { heapUsedAfterGc, type Measure, type Suite, timed } from "./harness.ts";

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

/** One server under test as its clients reach it: kontroller's `server`, or the ceiling's `raw`. */
type Impl = { url: string; agent: Agent; watchAgent: Agent } & (
  | { server: ApiServer; raw?: undefined }
  | { raw: RawServer; server?: undefined }
);

export const suite: Suite = {
  name: "apiserver",
  description:
    "embedded API server vs a raw node:http JSON ceiling, over HTTP and HTTPS: create, list, watch fan-out",
  async run(ctx) {
    const options = { compactionIntervalMs: 0, watchCache: { watcherBufferSize: 5000 } };
    const server = new ApiServer(options);
    const tlsServer = new ApiServer({ ...options, tls: {} });
    const watchers = ctx.quick ? 100 : 1000;
    const events = ctx.quick ? 100 : 1000;
    const agents: Agent[] = [];
    const raws: RawServer[] = [];
    const agent = (sockets: number, ca?: string) => {
      const a = keepAliveAgent(sockets, ca);
      agents.push(a);
      return a;
    };
    try {
      const url = await server.listen();
      const tlsUrl = await tlsServer.listen();
      const pki = tlsServer.certificates!;
      const raw = await startRawServer();
      raws.push(raw);
      const rawTls = await startRawServer({
        cert: pki.serving.certificatePem,
        key: pki.serving.privateKeyPem,
      });
      raws.push(rawTls);
      const plain = { agent: agent(4), watchAgent: agent(watchers + 10) };
      const tls = {
        agent: agent(4, pki.ca.certificatePem),
        watchAgent: agent(watchers + 10, pki.ca.certificatePem),
      };
      const impls: Record<string, Impl> = {
        kontroller: { ...plain, url, server },
        "raw-http": { ...plain, url: raw.url, raw },
        "kontroller-tls": { ...tls, url: tlsUrl, server: tlsServer },
        "raw-http-tls": { ...tls, url: rawTls.url, raw: rawTls },
      };
      const each = (make: (impl: Impl) => Measure) =>
        Object.fromEntries(Object.entries(impls).map(([name, impl]) => [name, make(impl)]));

      // Writes are measured warm: a round of 4 000 is short enough that the first ones run
      // while the JIT is still compiling the server's write path (of both servers alike).
      const writeRounds = { warmupRounds: ctx.quick ? 0 : 2 };
      // Create: 4 concurrent keep-alive clients.
      const creates = ctx.quick ? 500 : 4000;
      let round = 0;
      await ctx.compare(
        "create",
        each((impl) => async () => {
          const r = round++;
          const { ms } = await timed(() =>
            pool(creates, 4, async (i) => {
              const body = JSON.stringify(configMap(i, `c${r}`));
              const res = await send(impl.agent, impl.url + CMS, "POST", body);
              if (res.status !== 201) throw new Error(`create failed: ${res.status} ${res.text}`);
            }),
          );
          return { objects_per_s: { value: creates / (ms / 1000), unit: "objects/s" } };
        }),
        writeRounds,
      );

      // Patch: merge patches of one key of 100 ConfigMaps, 4 keep-alive clients (a controller's
      // status and label writes); kontroller records each in the object's managedFields.
      const patchTargets = 100;
      for (const impl of Object.values(impls)) {
        if (impl.server === undefined) continue;
        for (let i = 0; i < patchTargets; i++) {
          await send(impl.agent, impl.url + CMS, "POST", JSON.stringify(configMap(i, "patched")));
        }
      }
      const patches = ctx.quick ? 500 : 4000;
      let seq = 0;
      await ctx.compare(
        "patch",
        each((impl) => async () => {
          const { ms } = await timed(() =>
            pool(patches, 4, async (i) => {
              const res = await send(
                impl.agent,
                `${impl.url + CMS}/patched-${i % patchTargets}`,
                "PATCH",
                JSON.stringify({ data: { key: `value-${seq++}` } }),
                "application/merge-patch+json",
              );
              if (res.status !== 200) throw new Error(`patch failed: ${res.status} ${res.text}`);
            }),
          );
          return { objects_per_s: { value: patches / (ms / 1000), unit: "objects/s" } };
        }),
        writeRounds,
      );

      // Lists: every server holds the same objects (in a namespace of their own here).
      const stores: Store[] = [];
      for (const impl of Object.values(impls)) {
        if (impl.server === undefined) continue;
        const ns = JSON.stringify({ metadata: { name: "lists" } });
        await send(impl.agent, `${impl.url}/api/v1/namespaces`, "POST", ns);
        stores.push(configMapStore(impl.server));
      }
      let held = 0;
      for (const [workload, size] of [
        ["list-10k", ctx.quick ? 1_000 : 10_000],
        ["list-100k", ctx.quick ? 10_000 : 100_000],
      ] as const) {
        for (; held < size; held++) {
          const cm = () => ({
            ...configMap(held, "l"),
            metadata: { ...configMap(held, "l").metadata, namespace: "lists" },
          });
          // A store takes its object over (it stamps the metadata): a fresh one each.
          for (const store of stores) await store.create("lists", cm());
          const stored = {
            ...cm(),
            metadata: {
              ...cm().metadata,
              resourceVersion: String(held + 2),
              uid: "00000000-0000-0000-0000-000000000000",
              creationTimestamp: "2026-01-01T00:00:00Z",
            },
          };
          raw.objects.push(stored);
          rawTls.objects.push(stored);
        }
        await ctx.compare(
          workload,
          each((impl) => async () => {
            const { result, ms } = await timed(() =>
              send(impl.agent, `${impl.url}/api/v1/namespaces/lists/configmaps`, "GET"),
            );
            return {
              ms: { value: ms, unit: "ms" },
              mb_per_s: { value: result.bytes / 1e6 / (ms / 1000), unit: "MB/s" },
            };
          }),
        );
      }

      // Watch fan-out.
      let fan = 0;
      await ctx.compare(
        "watch-fanout",
        each((impl) => async () => {
          const f = fan++;
          const cache = impl.server?.registry.caches().get("/registry/configmaps/");
          const query =
            cache === undefined
              ? "watch=1"
              : `watch=1&resourceVersion=${cache.resourceVersion}&labelSelector=fan%3D${f}`;
          const before = heapUsedAfterGc();
          const streams = await Promise.all(
            Array.from({ length: watchers }, () =>
              openWatch(impl.watchAgent, `${impl.url}${CMS}?${query}`, events),
            ),
          );
          const perWatcher = (heapUsedAfterGc() - before) / watchers;
          const s0 = cache?.stats().serializations ?? 0;
          const slow0 = cache?.stats().slowWatchersClosed ?? 0;
          let rawSerializations = 0;
          const { ms } = await timed(async () => {
            const store = impl.server === undefined ? undefined : configMapStore(impl.server);
            for (let i = 0; i < events; i++) {
              const cm = configMap(i, `w${f}`);
              if (impl.raw !== undefined) {
                rawSerializations += impl.raw.broadcast(cm);
                if (i % 10 === 9) await new Promise((r) => setImmediate(r));
                continue;
              }
              cm.metadata.labels = {
                ...cm.metadata.labels,
                fan: String(f),
              } as typeof cm.metadata.labels;
              await store!.create("default", cm);
            }
            await Promise.all(streams.map((s) => s.done));
          });
          if ((cache?.stats().slowWatchersClosed ?? 0) !== slow0)
            throw new Error("a watcher was closed as slow");
          const serializations =
            cache === undefined ? rawSerializations : cache.stats().serializations - s0;
          for (const s of streams) s.close();
          return {
            events_per_s: { value: (watchers * events) / (ms / 1000), unit: "events/s" },
            serializations_per_event: {
              value: serializations / events,
              unit: "serializations/event",
            },
            heap_bytes_per_watcher: { value: perWatcher, unit: "bytes" },
          };
        }),
      );
    } finally {
      for (const a of agents) a.destroy();
      for (const r of raws) await r.close();
      await tlsServer.close();
      await server.close();
    }
  },
};
