/**
 * One convention for public constructors, checked over every class the package exports: a class
 * takes one options object (at most one parameter), and a bad option throws an
 * `InvalidOptionError` that names the option and the value. A new exported class fails this
 * test until it is listed below, with a bad option or as taking none.
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { describe, it } from "node:test";
import * as apiserver from "kontroller/apiserver";
import * as cache from "kontroller/cache";
import * as client from "kontroller/client";
import * as controller from "kontroller/controller";
import * as controlplane from "kontroller/controlplane";
import * as core from "kontroller/core";
import * as leaderelection from "kontroller/leaderelection";
import * as metrics from "kontroller/metrics";
import * as testing from "kontroller/testing";
import * as workqueue from "kontroller/workqueue";

const manifest = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")) as {
  exports: Record<string, string | Record<string, string>>;
};
/** The package's code entry points (`kontroller/core`, …), as its exports map lists them. */
const entryPoints = Object.entries(manifest.exports)
  .filter(([, target]) => typeof target === "object" && "kontroller-source" in target)
  .map(([path]) => path.replace(/^\.\//, ""));

type Constructor = abstract new (...args: never[]) => unknown;

/** A class (not a plain function), and not an error: errors take a message, not options. */
function isOptionsClass(value: unknown): value is Constructor {
  return (
    typeof value === "function" &&
    value.prototype?.constructor === value &&
    Function.prototype.toString.call(value).startsWith("class") &&
    !(value.prototype instanceof Error)
  );
}

/** Every exported class, as `entry/Name`. */
async function exportedClasses(): Promise<Map<string, Constructor>> {
  const out = new Map<string, Constructor>();
  for (const entry of entryPoints) {
    const module = (await import(`kontroller/${entry}`)) as Record<string, unknown>;
    for (const [name, value] of Object.entries(module)) {
      if (isOptionsClass(value)) out.set(`${entry}/${name}`, value);
    }
  }
  return out;
}

const transport = { request: () => Promise.reject(new Error("unused")) };
const aClient = client.createClient({ transport: transport as never });
const limiter = new workqueue.ItemExponentialFailureRateLimiter();

/** For each class that takes options: constructing it with one bad option, and that option. */
const BAD_OPTIONS: Record<string, { option: string; make: () => unknown }> = {
  "core/Backoff": { option: "initialMs", make: () => new core.Backoff({ initialMs: -1 }) },
  "core/DeletedFinalStateUnknown": {
    option: "key",
    make: () => new core.DeletedFinalStateUnknown({ key: 42 as never, obj: {} }),
  },
  "core/FieldSelector": {
    option: "requirements",
    make: () => new core.FieldSelector({ requirements: "a=b" as never }),
  },
  "core/LabelSelector": {
    option: "requirements",
    make: () => new core.LabelSelector({ requirements: "a=b" as never }),
  },
  "workqueue/BucketRateLimiter": {
    option: "qps",
    make: () => new workqueue.BucketRateLimiter({ qps: -1, burst: 1 }),
  },
  "workqueue/DelayingQueue": {
    option: "name",
    make: () => new workqueue.DelayingQueue({ name: "" }),
  },
  "workqueue/FairStrategy": {
    option: "tenantOf",
    make: () => new workqueue.FairStrategy({ tenantOf: "ns" as never }),
  },
  "workqueue/ItemExponentialFailureRateLimiter": {
    option: "baseDelayMs",
    make: () => new workqueue.ItemExponentialFailureRateLimiter({ baseDelayMs: -1 }),
  },
  "workqueue/ItemFastSlowRateLimiter": {
    option: "fastDelayMs",
    make: () =>
      new workqueue.ItemFastSlowRateLimiter({
        fastDelayMs: -1,
        slowDelayMs: 1,
        maxFastAttempts: 1,
      }),
  },
  "workqueue/MaxOfRateLimiter": {
    option: "limiters",
    make: () => new workqueue.MaxOfRateLimiter({ limiters: [] }),
  },
  "workqueue/MaxWaitRateLimiter": {
    option: "maxDelayMs",
    make: () => new workqueue.MaxWaitRateLimiter({ limiter, maxDelayMs: -1 }),
  },
  "workqueue/PriorityQueue": {
    option: "name",
    make: () => new workqueue.PriorityQueue({ name: "" }),
  },
  "workqueue/Queue": { option: "name", make: () => new workqueue.Queue({ name: "" }) },
  "workqueue/RateLimitingQueue": {
    option: "name",
    make: () => new workqueue.RateLimitingQueue({ name: "" }),
  },
  "workqueue/TwoLaneStrategy": {
    option: "isFast",
    make: () => new workqueue.TwoLaneStrategy({ isFast: true as never }),
  },
  "client/Client": { option: "transport", make: () => new client.Client({} as never) },
  "client/DiscoveryClient": {
    option: "client",
    make: () => new client.DiscoveryClient({ client: {} as never }),
  },
  "client/HttpTransport": {
    option: "url",
    make: () => new client.HttpTransport({ url: "not a url" }),
  },
  "client/ResourceClient": {
    option: "definition",
    make: () => new client.ResourceClient({ rest: {} as never, definition: {} as never }),
  },
  "cache/DeltaFIFO": {
    option: "transform",
    make: () => new cache.DeltaFIFO({ transform: "drop managedFields" as never }),
  },
  "cache/Indexer": {
    option: "indexers.byApp",
    make: () => new cache.Indexer({ indexers: { byApp: "app" as never } }),
  },
  "cache/InformerFactory": {
    option: "client",
    make: () => new cache.InformerFactory({ client: undefined as never }),
  },
  "cache/Lister": {
    option: "store",
    make: () => new cache.Lister({ store: {} as never, definition: { group: "", plural: "pods" } }),
  },
  "cache/Reflector": {
    option: "watchIdleTimeoutMs",
    make: () =>
      new cache.Reflector({
        listerWatcher: {} as never,
        queue: new cache.DeltaFIFO(),
        watchIdleTimeoutMs: -1,
      }),
  },
  "cache/ReflectorMachine": {
    option: "pageSize",
    make: () =>
      new cache.ReflectorMachine({
        pageSize: 0,
        pageSizeExplicit: true,
        useWatchList: true,
        minWatchTimeoutSeconds: 300,
        shortWatchMs: 1000,
        backoff: new core.Backoff(),
        random: Math.random,
      }),
  },
  "cache/SharedInformer": {
    option: "defaultResyncPeriodMs",
    make: () => new cache.SharedInformer({ listerWatcher: {} as never, defaultResyncPeriodMs: -1 }),
  },
  "leaderelection/LeaderElector": {
    option: "lock",
    make: () =>
      new leaderelection.LeaderElector({
        lock: undefined as never,
        identity: "a",
        onStartedLeading: () => {},
      }),
  },
  "leaderelection/LeaseLock": {
    option: "leases",
    make: () => new leaderelection.LeaseLock({ leases: aClient.resource("Lease"), name: "l" }),
  },
  "metrics/HealthServer": { option: "port", make: () => new metrics.HealthServer({ port: 70000 }) },
  "metrics/PrometheusControllerMetrics": {
    option: "registry",
    make: () => new metrics.PrometheusControllerMetrics({ registry: {} as never }),
  },
  "metrics/PrometheusInformerMetrics": {
    option: "registry",
    make: () => new metrics.PrometheusInformerMetrics({ registry: {} as never }),
  },
  "metrics/PrometheusMetrics": {
    option: "registry",
    make: () => new metrics.PrometheusMetrics({ registry: {} as never }),
  },
  "metrics/WorkqueueMetricsProvider": {
    option: "registry",
    make: () => new metrics.WorkqueueMetricsProvider({ registry: {} as never }),
  },
  "controller/Controller": {
    option: "spec",
    make: () =>
      new controller.Controller({ spec: {} as never, factory: {} as never, logger: {} as never }),
  },
  "controller/EventRecorder": {
    option: "seriesWindowMs",
    make: () =>
      new controller.EventRecorder({
        events: {} as never,
        reportingController: "example.com/c",
        reportingInstance: "c-1",
        seriesWindowMs: 0,
      }),
  },
  "controller/Manager": {
    option: "gracefulShutdownMs",
    make: () => new controller.Manager({ client: aClient, gracefulShutdownMs: -1 }),
  },
  "apiserver/ApiServer": { option: "port", make: () => new apiserver.ApiServer({ port: -1 }) },
  "apiserver/FileAuditSink": {
    option: "maxBufferBytes",
    make: () => new apiserver.FileAuditSink({ path: "audit.log", maxBufferBytes: -1 }),
  },
  "apiserver/EtcdStorage": {
    option: "endpoints",
    make: () => new apiserver.EtcdStorage({ endpoints: [] }),
  },
  "controlplane/ControlPlane": {
    option: "garbageCollectorWorkers",
    make: () =>
      new controlplane.ControlPlane({
        client: aClient,
        garbageCollectorWorkers: 0,
      }),
  },
  "testing/FakeClock": {
    option: "startMs",
    make: () => new testing.FakeClock({ startMs: Number.NaN }),
  },
  "testing/FakeListerWatcher": {
    option: "kind",
    make: () => new testing.FakeListerWatcher({ kind: "" }),
  },
  "testing/FaultProxy": {
    option: "target",
    make: () => new testing.FaultProxy({ target: "not a url" }),
  },
};

/** Classes whose constructor takes no options at all. */
const NO_OPTIONS = new Set([
  "workqueue/FifoStrategy",
  "apiserver/MemoryStorage",
  "apiserver/MemoryAuditSink",
  "testing/RequestRecorder",
  "controlplane/OwnerGraph",
]);

/** Classes made by their static factories only (a private constructor, no options of its own). */
const FACTORY_MADE = new Set(["apiserver/CertificateAuthority"]);

describe("public constructors", () => {
  it("every exported class takes one options object (at most one parameter)", async () => {
    const positional = [...(await exportedClasses())]
      .filter(([, cls]) => cls.length > 1)
      .map(([name, cls]) => `${name} takes ${cls.length} parameters`);
    assert.deepEqual(positional, []);
  });

  it("every exported class is listed: with a bad option, or as taking no options", async () => {
    const classes = [...(await exportedClasses()).keys()];
    const unlisted = classes.filter(
      (name) => !(name in BAD_OPTIONS) && !NO_OPTIONS.has(name) && !FACTORY_MADE.has(name),
    );
    assert.deepEqual(unlisted, [], "add each to BAD_OPTIONS (or, if it takes none, NO_OPTIONS)");
    const listed = [...Object.keys(BAD_OPTIONS), ...NO_OPTIONS, ...FACTORY_MADE];
    const stale = listed.filter((n) => !classes.includes(n));
    assert.deepEqual(stale, [], "listed, but no longer exported");
  });

  for (const [name, { option, make }] of Object.entries(BAD_OPTIONS)) {
    it(`${name} refuses a bad ${option} with an InvalidOptionError naming it`, async () => {
      assert.throws(
        () => make(),
        (err: unknown) => {
          assert.ok(err instanceof core.InvalidOptionError, `${name}: ${String(err)}`);
          assert.equal(err.option, option);
          assert.match(err.message, new RegExp(`option ${option.replace(".", "\\.")} .*, got `));
          return true;
        },
      );
    });
  }
});
