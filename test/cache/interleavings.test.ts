/**
 * Property: whatever the interleaving of writes, faults (cut, reset and truncated watches, a
 * server that goes down and up, silent watches, bad lines, history too short to resume) and
 * handler delays, once the faults stop the informer's cache and every handler's view equal the
 * server's state, and no handler saw an inconsistent sequence. On the embedded server the
 * history is short enough to run out by itself; on either, the proxy can answer a watch 410.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import { type Logger, listerWatcherFor, SharedInformer } from "kontroller/cache";
import { createClient } from "kontroller/client";
import { objectKey } from "kontroller/core";
import { type ConfigMap, configMaps, namespaces } from "kontroller/resources";
import { FakeClock, startFaultProxy, startTestServer, testBackend } from "kontroller/testing";
import { EXPIRED_WATCH, mirroringHandler, servesStreamingLists, until } from "./rig.ts";

type Op =
  | { t: "create" | "update" | "delete"; name: string }
  | { t: "cut"; mode: "end" | "reset" | "truncate" }
  | { t: "down" | "up" | "stall" | "resume" | "inject" | "expire" | "idle" | "settle" }
  | { t: "tick"; ms: number };

const name = fc.constantFrom("a", "b", "c", "d", "e");
const op: fc.Arbitrary<Op> = fc.oneof(
  {
    arbitrary: fc.record({
      t: fc.constantFrom("create" as const, "update" as const, "delete" as const),
      name,
    }),
    weight: 8,
  },
  {
    arbitrary: fc.record({
      t: fc.constant("cut" as const),
      mode: fc.constantFrom("end" as const, "reset" as const, "truncate" as const),
    }),
    weight: 2,
  },
  {
    arbitrary: fc.record({
      t: fc.constantFrom(
        "down" as const,
        "up" as const,
        "stall" as const,
        "resume" as const,
        "inject" as const,
        "expire" as const,
        "idle" as const,
        "settle" as const,
      ),
    }),
    weight: 4,
  },
  {
    arbitrary: fc.record({
      t: fc.constant("tick" as const),
      ms: fc.integer({ min: 0, max: 40_000 }),
    }),
    weight: 2,
  },
);

const silent: Logger = { error() {}, warn() {}, info() {}, debug() {} };

describe("informer under random interleavings", () => {
  it("ends equal to the server, with consistent notifications, whatever happens", async () => {
    await using server = await startTestServer({
      compactionIntervalMs: 0,
      // A history of 8 events runs out under these writes (kube-apiserver's cannot be shortened).
      ...(testBackend() === "embedded"
        ? { watchCache: { historyMinCapacity: 8, historyMaxCapacity: 8, eventFreshMs: 0 } }
        : {}),
    });
    await using direct = createClient({ url: server.url });
    const useWatchList = await servesStreamingLists(server);
    let run = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.array(op, { minLength: 5, maxLength: 60 }),
        fc.array(fc.nat(3), { minLength: 1, maxLength: 8 }),
        async (ops, delays) => {
          const ns = `run-${run++}`;
          await direct.resource(namespaces).create({ metadata: { name: ns } });
          const writer = direct.resource(configMaps, { namespace: ns });
          await using proxy = await startFaultProxy({ target: server.url });
          const clock = new FakeClock();
          await using client = createClient({ url: proxy.url, clock, retry: { maxRetries: 0 } });
          const informer = new SharedInformer<ConfigMap>({
            listerWatcher: listerWatcherFor(client.resource(configMaps, { namespace: ns })),
            clock,
            logger: silent,
            onWatchError: () => {},
            watchIdleTimeoutMs: 10_000,
            useWatchList,
          });
          const fast = mirroringHandler();
          const slow = mirroringHandler();
          let call = 0;
          const slowly = async () => {
            for (let i = delays[call++ % delays.length]!; i > 0; i--)
              await new Promise((r) => setImmediate(r));
          };
          informer.addEventHandler(fast.handler);
          informer.addEventHandler({
            onAdd: async (o, i) => {
              await slowly();
              slow.handler.onAdd!(o, i);
            },
            onUpdate: async (a, b) => {
              await slowly();
              slow.handler.onUpdate!(a, b);
            },
            onDelete: async (o) => {
              await slowly();
              slow.handler.onDelete!(o);
            },
          });
          const running = informer.run();
          let version = 0;
          try {
            for (const o of ops) {
              switch (o.t) {
                case "create":
                  await writer
                    .create({ metadata: { name: o.name }, data: { v: String(version++) } })
                    .catch(() => {});
                  break;
                case "update":
                  await writer
                    .patch(o.name, "merge", { data: { v: String(version++) } })
                    .catch(() => {});
                  break;
                case "delete":
                  await writer.delete(o.name).catch(() => {});
                  break;
                case "cut":
                  proxy.cutWatches(o.mode);
                  break;
                case "down":
                  await proxy.down();
                  break;
                case "up":
                  await proxy.up();
                  break;
                case "stall":
                  proxy.stallWatches();
                  break;
                case "resume":
                  proxy.resumeWatches();
                  break;
                case "inject":
                  proxy.injectLine(
                    '{"type":"ADDED","object":{"kind":"Secret","apiVersion":"v1","metadata":{"name":"x","resourceVersion":"1"}}}',
                  );
                  break;
                case "expire":
                  proxy.failRequests({
                    status: 200,
                    count: 1,
                    match: (r) => r.watch && !r.watchList,
                    body: EXPIRED_WATCH,
                  });
                  break;
                case "idle":
                  await clock.advanceAsync(10_000);
                  break;
                case "tick":
                  await clock.advanceAsync(o.ms);
                  break;
                case "settle":
                  for (let i = 0; i < 20; i++) await new Promise((r) => setImmediate(r));
                  break;
              }
            }
            // The faults stop; time goes on until the informer has caught up.
            proxy.heal();
            await proxy.up();
            const want = new Map(
              (await writer.list()).items.map((o) => [objectKey(o), o.metadata?.resourceVersion]),
            );
            const same = (objs: Iterable<ConfigMap>) => {
              const got = new Map(
                [...objs].map((o) => [objectKey(o), o.metadata?.resourceVersion]),
              );
              return got.size === want.size && [...want].every(([k, v]) => got.get(k) === v);
            };
            const done = () =>
              same(informer.store.list()) && same(fast.model.values()) && same(slow.model.values());
            for (let i = 0; i < 40 && !done(); i++) {
              await clock.advanceAsync(31_000);
              await until(done, "convergence", 300).catch(() => {});
            }
            assert.ok(done(), `converged (cache ${informer.store.size}, server ${want.size})`);
            assert.deepEqual(fast.problems, []);
            assert.deepEqual(slow.problems, []);
          } finally {
            await informer.stop();
            await running;
          }
        },
      ),
      // FC_SEED=<seed> replays a failure fast-check reported; FC_RUNS=<n> runs more cases.
      {
        numRuns: Number(process.env.FC_RUNS ?? 40),
        ...(process.env.FC_SEED ? { seed: Number(process.env.FC_SEED) } : {}),
      },
    );
  });
});
