/**
 * What auditing costs a request: create and get throughput (4 keep-alive clients) of the
 * embedded server without audit, writing every request's events at Metadata to a file, and at
 * RequestResponse (bodies in the events), side by side in the same run.
 */
import { mkdtemp, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ApiServer, type AuditOptions, FileAuditSink } from "kontroller/apiserver";
import { keepAliveAgent, pool, send } from "./apiserver/http-client.ts";
import { type Suite, timed } from "./harness.ts";

const CMS = "/api/v1/namespaces/default/configmaps";

function configMap(i: number, prefix: string) {
  return {
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: { name: `${prefix}-${i}`, labels: { app: "bench", shard: String(i % 16) } },
    data: { key: `value-${i}`, config: "a=1\nb=2\nc=3\n" },
  };
}

export const suite: Suite = {
  name: "audit",
  description:
    "embedded API server create/get throughput: no audit, Metadata and RequestResponse to a file",
  async run(ctx) {
    const dir = await mkdtemp(join(tmpdir(), "kontroller-bench-audit-"));
    const sinks: FileAuditSink[] = [];
    const audit = (level: "Metadata" | "RequestResponse"): AuditOptions => {
      const sink = new FileAuditSink({ path: join(dir, `${level}.log`) });
      sinks.push(sink);
      return { sink, policy: { rules: [{ level }] } };
    };
    const servers = {
      none: new ApiServer({ compactionIntervalMs: 0 }),
      metadata: new ApiServer({ compactionIntervalMs: 0, audit: audit("Metadata") }),
      "request-response": new ApiServer({
        compactionIntervalMs: 0,
        audit: audit("RequestResponse"),
      }),
    };
    const urls = Object.fromEntries(
      await Promise.all(Object.entries(servers).map(async ([k, s]) => [k, await s.listen()])),
    ) as Record<keyof typeof servers, string>;
    const agent = keepAliveAgent(4);
    const n = ctx.quick ? 500 : 4000;
    try {
      let round = 0;
      const creates = (url: string) => async () => {
        const r = round++;
        const { ms } = await timed(() =>
          pool(n, 4, async (i) => {
            const res = await send(agent, url + CMS, "POST", JSON.stringify(configMap(i, `c${r}`)));
            if (res.status !== 201) throw new Error(`create failed: ${res.status} ${res.text}`);
          }),
        );
        return { requests_per_s: { value: n / (ms / 1000), unit: "requests/s" } };
      };
      const gets = (url: string) => async () => {
        const { ms } = await timed(() =>
          pool(n, 4, async (i) => {
            const res = await send(agent, `${url}${CMS}/g-${i % 500}`, "GET");
            if (res.status !== 200) throw new Error(`get failed: ${res.status} ${res.text}`);
          }),
        );
        return { requests_per_s: { value: n / (ms / 1000), unit: "requests/s" } };
      };
      for (const url of Object.values(urls)) {
        await pool(500, 4, async (i) => {
          await send(agent, url + CMS, "POST", JSON.stringify(configMap(i, "g")));
        });
      }
      const warm = { warmupRounds: ctx.quick ? 0 : 1 };
      await ctx.compare(
        "create",
        Object.fromEntries(Object.entries(urls).map(([k, url]) => [k, creates(url)])),
        warm,
      );
      await ctx.compare(
        "get",
        Object.fromEntries(Object.entries(urls).map(([k, url]) => [k, gets(url)])),
        warm,
      );
      for (const sink of sinks) await sink.flush();
      for (const [level, sink] of [
        ["metadata", sinks[0]!],
        ["request-response", sinks[1]!],
      ] as const) {
        ctx.report({
          workload: "log",
          impl: level,
          metric: "bytes",
          value: (await stat(sink.path)).size,
          unit: "bytes",
        });
        ctx.report({
          workload: "log",
          impl: level,
          metric: "dropped",
          value: sink.dropped,
          unit: "events",
        });
      }
    } finally {
      agent.destroy();
      await Promise.all(Object.values(servers).map((s) => s.close()));
      await rm(dir, { recursive: true, force: true });
    }
  },
};
