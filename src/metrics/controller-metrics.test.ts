import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { Registry } from "prom-client";
import { InvalidOptionError } from "../core/index.ts";
import { PrometheusControllerMetrics } from "./controller-metrics.ts";
import { HealthServer } from "./health-server.ts";
import { PrometheusInformerMetrics } from "./informer-metrics.ts";
import { PrometheusMetrics } from "./prometheus-metrics.ts";

describe("PrometheusControllerMetrics", () => {
  it("exposes controller-runtime's names, every series at zero from the start", async () => {
    const registry = new Registry();
    const m = new PrometheusControllerMetrics({ registry }).newControllerMetrics("users");
    let text = await registry.metrics();
    for (const result of ["success", "error", "requeue", "requeue_after"]) {
      assert.match(
        text,
        new RegExp(
          `controller_runtime_reconcile_total\\{controller="users",result="${result}"\\} 0`,
        ),
      );
    }
    assert.match(text, /controller_runtime_reconcile_errors_total\{controller="users"\} 0/);
    assert.match(
      text,
      /controller_runtime_terminal_reconcile_errors_total\{controller="users"\} 0/,
    );
    assert.match(text, /controller_runtime_active_workers\{controller="users"\} 0/);
    m.reconciled("success");
    m.reconciled("error");
    m.reconcileError();
    m.terminalError();
    m.reconcileTime(0.02);
    m.maxConcurrentReconciles(4);
    m.activeWorkers(2);
    text = await registry.metrics();
    assert.match(
      text,
      /controller_runtime_reconcile_total\{controller="users",result="success"\} 1/,
    );
    assert.match(text, /controller_runtime_reconcile_errors_total\{controller="users"\} 1/);
    assert.match(text, /controller_runtime_max_concurrent_reconciles\{controller="users"\} 4/);
    assert.match(text, /controller_runtime_active_workers\{controller="users"\} 2/);
    assert.match(
      text,
      /controller_runtime_reconcile_time_seconds_bucket\{le="0.025",controller="users"\} 1/,
    );
  });

  it("needs a registry", () => {
    assert.throws(() => new PrometheusControllerMetrics({} as never), InvalidOptionError);
    assert.throws(() => new PrometheusInformerMetrics({} as never), InvalidOptionError);
  });
});

describe("PrometheusInformerMetrics", () => {
  it("counts lists, watches, events and failures per informer", async () => {
    const registry = new Registry();
    const m = new PrometheusInformerMetrics({ registry }).newInformerMetrics("v1/configmaps");
    m.lists.inc();
    m.events.inc(3);
    m.failures.inc("watch", "Expired");
    const text = await registry.metrics();
    assert.match(text, /informer_lists_total\{informer="v1\/configmaps"\} 1/);
    assert.match(text, /informer_events_total\{informer="v1\/configmaps"\} 3/);
    assert.match(text, /informer_watches_total\{informer="v1\/configmaps"\} 0/);
    assert.match(
      text,
      /informer_failures_total\{informer="v1\/configmaps",phase="watch",reason="Expired"\} 1/,
    );
  });
});

describe("HealthServer", () => {
  it("serves /metrics, /healthz and /readyz from its checks", async () => {
    const provider = new PrometheusMetrics();
    provider.newControllerMetrics("c");
    let synced = false;
    await using server = new HealthServer({
      port: 0,
      host: "127.0.0.1",
      metrics: provider,
      liveness: { ping: () => undefined },
      readiness: { "informers-synced": () => (synced ? undefined : "2 informers have not synced") },
    });
    const url = await server.listen();
    const get = async (path: string) => {
      const r = await fetch(`${url}${path}`);
      return { status: r.status, text: await r.text(), type: r.headers.get("content-type") };
    };
    const metrics = await get("/metrics");
    assert.equal(metrics.status, 200);
    assert.match(metrics.text, /controller_runtime_reconcile_total/);
    assert.match(metrics.type ?? "", /text\/plain/);
    assert.deepEqual(await get("/healthz"), {
      status: 200,
      text: "ok\n",
      type: "text/plain; charset=utf-8",
    });
    const notReady = await get("/readyz");
    assert.equal(notReady.status, 503);
    assert.match(notReady.text, /\[-\]informers-synced failed: 2 informers have not synced/);
    synced = true;
    assert.equal((await get("/readyz")).status, 200);
    assert.match((await get("/readyz?verbose")).text, /\[\+\]informers-synced ok/);
    assert.equal((await get("/nope")).status, 404);
    assert.equal((await fetch(`${url}/healthz`, { method: "POST" })).status, 405);
  });

  it("refuses a bad port", () => {
    assert.throws(() => new HealthServer({ port: 70000 }), /option port must be <= 65535/);
  });
});
