/**
 * The API server on etcd, beside its ceiling and its embedded twin in the same run: creates
 * (HTTP POSTs with the same number in flight) through the API server on etcd and in memory,
 * against raw etcd puts through the etcd3 client (the ceiling: what the client and etcd can do
 * with no server around them), with 32 in flight and with one (`create-serial`); and a list of
 * 10 000 objects from each (raw: one range read).
 * Bar (issue 9): creates on etcd ≥ 0.5× the raw put rate at the same concurrency.
 *
 * Each API server runs as `kontroller serve` in a process of its own, as servers do, so the
 * load generator's HTTP client is not charged to the server it measures; the raw puts go to an
 * etcd of their own, started the same way.
 */
import { Etcd3 } from "etcd3";
import { startEtcd } from "kontroller/testing";
import { keepAliveAgent, pool, send } from "./apiserver/http-client.ts";
import { startServe } from "./etcd/serve-process.ts";
import { type Suite, timed } from "./harness.ts";

/** Requests (or puts) in flight in every create workload. */
const IN_FLIGHT = 32;

function configMap(name: string, namespace: string) {
  return {
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: { name, namespace, labels: { app: "bench", tier: "backend" } },
    data: { key: `value-of-${name}`, config: "a=1\nb=2\nc=3\n" },
  };
}

/** What the API server stores for a ConfigMap, near enough: the same size of JSON value. */
function storedConfigMap(name: string, namespace: string): string {
  const cm = configMap(name, namespace);
  return JSON.stringify({
    ...cm,
    metadata: {
      ...cm.metadata,
      uid: "5f0c3a4e-8f3b-4c8e-9d0a-6b1e2c3d4e5f",
      creationTimestamp: "2026-01-01T00:00:00Z",
    },
  });
}

export const suite: Suite = {
  name: "etcd",
  description: `API server on etcd vs in memory vs raw etcd puts (etcd3 client), ${IN_FLIGHT} in flight; list of 10 000`,
  async run(ctx) {
    // The servers' etcd, and one of the same kind for the raw ceiling (so that the servers do
    // not hear of the raw puts through their watch of etcd).
    await using etcd = await startEtcd();
    await using rawEtcd = await startEtcd();
    const raw = new Etcd3({
      hosts: rawEtcd.endpoint,
      grpcOptions: { "grpc.max_receive_message_length": -1 },
    });
    await using onEtcd = await startServe(["--storage", "etcd", "--etcd-endpoints", etcd.endpoint]);
    await using inMemory = await startServe(["--storage", "memory"]);
    const urls = { etcd: onEtcd.url, memory: inMemory.url };
    const agent = keepAliveAgent(IN_FLIGHT);
    try {
      let round = 0;
      const viaServer = (url: string, total: number, inFlight: number) => async () => {
        const r = round++;
        const { ms } = await timed(() =>
          pool(total, inFlight, async (i) => {
            const body = JSON.stringify(configMap(`c${r}-${i}`, "default"));
            const res = await send(
              agent,
              `${url}/api/v1/namespaces/default/configmaps`,
              "POST",
              body,
            );
            if (res.status !== 201) throw new Error(`create failed: ${res.status} ${res.text}`);
          }),
        );
        return { objects_per_s: { value: total / (ms / 1000), unit: "objects/s" } };
      };
      const rawPuts = (total: number, inFlight: number) => async () => {
        const r = round++;
        const { ms } = await timed(() =>
          pool(total, inFlight, async (i) => {
            const name = `c${r}-${i}`;
            await raw.kv.put({
              key: Buffer.from(`/bench/raw/configmaps/default/${name}`),
              value: Buffer.from(storedConfigMap(name, "default")),
            });
          }),
        );
        return { objects_per_s: { value: total / (ms / 1000), unit: "objects/s" } };
      };
      // Warm up (JIT, connections) before measuring: the servers are long-running processes.
      for (const url of [urls.etcd, urls.memory]) await viaServer(url, 2_000, IN_FLIGHT)();
      const creates = ctx.quick ? 1_000 : 5_000;
      await ctx.compare("create", {
        "raw-etcd": rawPuts(creates, IN_FLIGHT),
        "kontroller-etcd": viaServer(urls.etcd, creates, IN_FLIGHT),
        "kontroller-memory": viaServer(urls.memory, creates, IN_FLIGHT),
      });
      // One request in flight: each create waits for etcd's commit (the latency regime).
      const serial = ctx.quick ? 100 : 500;
      await ctx.compare("create-serial", {
        "raw-etcd": rawPuts(serial, 1),
        "kontroller-etcd": viaServer(urls.etcd, serial, 1),
        "kontroller-memory": viaServer(urls.memory, serial, 1),
      });

      // The same 10 000 objects in each (the servers' in a namespace of their own; 2 000 with
      // --quick, a smoke run, under the same name as the other suites do).
      const size = ctx.quick ? 2_000 : 10_000;
      for (const url of [urls.etcd, urls.memory]) {
        const ns = JSON.stringify({ metadata: { name: "lists" } });
        await send(agent, `${url}/api/v1/namespaces`, "POST", ns);
        await pool(size, IN_FLIGHT, async (i) => {
          const body = JSON.stringify(configMap(`l-${i}`, "lists"));
          const res = await send(agent, `${url}/api/v1/namespaces/lists/configmaps`, "POST", body);
          if (res.status !== 201) throw new Error(`create failed: ${res.status} ${res.text}`);
        });
      }
      await pool(size, IN_FLIGHT, async (i) => {
        await raw.kv.put({
          key: Buffer.from(`/bench/list/configmaps/lists/l-${i}`),
          value: Buffer.from(storedConfigMap(`l-${i}`, "lists")),
        });
      });
      const listVia = (url: string) => async () => {
        const { result, ms } = await timed(() =>
          send(agent, `${url}/api/v1/namespaces/lists/configmaps`, "GET"),
        );
        if (result.status !== 200) throw new Error(`list failed: ${result.status}`);
        return { ms: { value: ms, unit: "ms" } };
      };
      await ctx.compare("list-10k", {
        "raw-etcd": async () => {
          const { result, ms } = await timed(() =>
            raw.kv.range({
              key: Buffer.from("/bench/list/"),
              range_end: Buffer.from("/bench/list0"),
            }),
          );
          if (result.kvs.length !== size) throw new Error(`listed ${result.kvs.length}`);
          for (const kv of result.kvs) kv.value.toString("utf8");
          return { ms: { value: ms, unit: "ms" } };
        },
        "kontroller-etcd": listVia(urls.etcd),
        "kontroller-memory": listVia(urls.memory),
      });
    } finally {
      agent.destroy();
      raw.close();
    }
  },
};
