/**
 * `npm run demo` (= `kontroller demo`): the embedded API server, its control-plane controllers,
 * both example controllers with a handful of Users and HealthMonitors, and the mini scheduler
 * with a few nodes and pods; progress in the terminal; runs until Ctrl-C (or, with `--once`,
 * until the controllers have reconciled the demo's objects), then shuts down cleanly.
 *
 * `kontroller demo [--port N] [--kubeconfig-out PATH] [--data-dir DIR] [--quiet] [--controllers all|none] [--once]`
 */
import { mkdir, mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { ApiServer, kubeconfigFor } from "kontroller/apiserver";
import { type Client, createClient } from "kontroller/client";
import { type Controller, Manager, onTerminate } from "kontroller/controller";
import { startControlPlane } from "kontroller/controlplane";
import { PrometheusMetrics } from "kontroller/metrics";
import { customResourceDefinitions } from "kontroller/resources";
import { waitFor } from "kontroller/testing";
import { healthMonitorController } from "./health-monitor/controller.ts";
import { HealthMonitor } from "./health-monitor/health-monitor.ts";
import { startProbeTarget } from "./health-monitor/probe-target.ts";
import { type SchedulerDemo, startSchedulerDemo } from "./mini-scheduler/demo-cluster.ts";
import { userNamespaceController } from "./user-namespace/controller.ts";
import { User } from "./user-namespace/user.ts";

const USAGE = `usage: kontroller demo [--port N] [--kubeconfig-out PATH] [--data-dir DIR] [--quiet]
                       [--controllers all|none] [--once]

Runs an embedded API server with the example controllers until Ctrl-C.

  --port N                the API server's port (default 0: any free port)
  --kubeconfig-out PATH   where to write a kubeconfig for kubectl (default: a temporary folder)
  --data-dir DIR          where the user-namespace controller keeps each User's files
                          (default: a temporary folder)
  --quiet                 no progress line every 2 s
  --controllers all|none  all runs the control plane (garbage collector, namespace
                          controller) too; none runs only the example controllers (default all)
  --once                  stop by itself, with exit code 0, once the controllers have brought
                          every demo object to its state (each User Ready, each HealthMonitor
                          probed, each pod that fits bound); exit code 1 if that fails
`;

/** The demo's Users: name, display name. */
const DEMO_USERS = [
  ["ann", "Ann Example"],
  ["bob", "Bob Builder"],
  ["cy", "Cy Twombly"],
] as const;

/** The demo's HealthMonitors: name, path on the probe target, active. */
const DEMO_MONITORS = [
  ["checkout", "/healthy", true],
  ["search", "/flaky", false],
  ["legacy", "/unhealthy", false],
  ["payments", "/healthy", true],
] as const;

/** Runs the demo until `signal` aborts; resolves with the exit code. */
export async function runDemo(
  args: string[],
  signal: AbortSignal = onTerminate(),
): Promise<number> {
  const { values } = parseArgs({
    args,
    options: {
      port: { type: "string", default: "0" },
      "kubeconfig-out": { type: "string" },
      "data-dir": { type: "string" },
      quiet: { type: "boolean", default: false },
      controllers: { type: "string", default: "all" },
      once: { type: "boolean", default: false },
      help: { type: "boolean", short: "h" },
    },
  });
  if (values.help) {
    process.stdout.write(USAGE);
    return 0;
  }
  const port = Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    process.stderr.write(
      `kontroller demo: --port must be a port number, got ${values.port}\n${USAGE}`,
    );
    return 2;
  }
  if (values.controllers !== "all" && values.controllers !== "none") {
    process.stderr.write(
      `kontroller demo: --controllers must be all or none, got ${values.controllers}\n${USAGE}`,
    );
    return 2;
  }
  const say = (line: string) => process.stdout.write(`${line}\n`);

  const server = new ApiServer({ port });
  const url = await server.listen();
  const work = await mkdtemp(join(tmpdir(), "kontroller-demo-"));
  const kubeconfigPath = values["kubeconfig-out"] ?? join(work, "kubeconfig");
  await writeFile(kubeconfigPath, kubeconfigFor(url));
  const dataDir = values["data-dir"] ?? join(work, "users");
  await mkdir(dataDir, { recursive: true });
  // The garbage collector and the namespace controller, as a cluster runs them.
  const controlPlane =
    values.controllers === "all"
      ? await startControlPlane({
          clientOptions: { url },
          logger: { error() {}, warn() {}, info() {}, debug() {} },
        })
      : undefined;
  await using target = await startProbeTarget();
  say(`kontroller API server listening on ${url}`);

  const client = createClient({ url });
  const crds = client.resource(customResourceDefinitions);
  await crds.create(User.crd());
  await crds.create(HealthMonitor.crd());
  await waitFor(client.resource(User), "nobody", (u) => u === undefined);
  await waitFor(
    client.resource(HealthMonitor).inNamespace("default"),
    "nobody",
    (m) => m === undefined,
  );

  const metrics = new PrometheusMetrics();
  const manager = new Manager({
    name: "kontroller-demo",
    client,
    metrics,
    logger: { error() {}, warn() {}, info() {}, debug() {} },
  });
  const users = manager.add(userNamespaceController(manager, { dataDir }));
  const monitors = manager.add(healthMonitorController(manager));
  const stop = new AbortController();
  signal.addEventListener("abort", () => stop.abort(), { once: true });
  const running = manager.start(stop.signal);

  for (const [name, displayName] of DEMO_USERS) {
    await client.resource(User).create(User.object({ metadata: { name }, spec: { displayName } }));
  }
  const hm = client.resource(HealthMonitor).inNamespace("default");
  for (const [name, path, active] of DEMO_MONITORS) {
    await hm.create(
      HealthMonitor.object({
        metadata: { name, namespace: "default" },
        spec: { url: `${target.url}${path}`, intervalSeconds: 5, active },
      }),
    );
  }
  // No other scheduler runs here: the mini scheduler takes the pods kubectl creates, too.
  const scheduler = await startSchedulerDemo(client, stop.signal);
  say(`data for Users under ${dataDir}`);
  say(`try: kubectl --kubeconfig ${kubeconfigPath} get users`);
  say(`     kubectl --kubeconfig ${kubeconfigPath} get healthmonitors`);
  say(`     kubectl --kubeconfig ${kubeconfigPath} get namespaces`);
  say(`     kubectl --kubeconfig ${kubeconfigPath} get pods -o wide`);
  say(`     kubectl --kubeconfig ${kubeconfigPath} get nodes`);
  say("Ctrl-C stops the demo.");
  let exitCode = 0;
  if (values.once) {
    void reconciled(client, scheduler, stop.signal).then(
      () => {
        say("every User is Ready, every HealthMonitor probed, every pod that fits bound");
        stop.abort();
      },
      (err: unknown) => {
        if (stop.signal.aborted) return; // Ctrl-C came first
        process.stderr.write(`kontroller demo: --once: ${String(err)}\n`);
        exitCode = 1;
        stop.abort();
      },
    );
  }

  const progress = values.quiet
    ? undefined
    : setInterval(
        () =>
          void status(metrics, [users, monitors]).then((line) =>
            say(`${line} | ${scheduler.status()}`),
          ),
        2000,
      );
  try {
    await running;
    await scheduler.stopped;
  } finally {
    if (progress !== undefined) clearInterval(progress);
    await controlPlane?.stop();
    await server.close();
  }
  say("demo stopped");
  return exitCode;
}

/** Resolves once the controllers have brought every demo object to its state. */
async function reconciled(
  client: Client,
  scheduler: SchedulerDemo,
  signal: AbortSignal,
): Promise<void> {
  const monitors = client.resource(HealthMonitor).inNamespace("default");
  await Promise.all([
    ...DEMO_USERS.map(([name]) =>
      waitFor(
        client.resource(User),
        name,
        (u) => u?.status?.conditions?.find((c) => c.type === "Ready")?.status === "True",
        { signal },
      ),
    ),
    ...DEMO_MONITORS.map(([name]) =>
      waitFor(monitors, name, (m) => m?.status?.healthy !== undefined, { signal }),
    ),
    scheduler.scheduled(signal),
  ]);
}

/** One line: reconciles and errors per controller, queue depth per lane. */
async function status(metrics: PrometheusMetrics, controllers: Controller[]): Promise<string> {
  const metric = metrics.registry.getSingleMetric("controller_runtime_reconcile_total");
  const values = (await metric?.get())?.values ?? [];
  const count = (controller: string, result?: string) =>
    values
      .filter(
        (v) =>
          v.labels.controller === controller &&
          (result === undefined || v.labels.result === result),
      )
      .reduce((n, v) => n + v.value, 0);
  return controllers
    .map((c) => {
      const snap = c.snapshot();
      const fast = snap.ready.filter((r) => (r.priority ?? 0) >= 0).length;
      const slow = snap.ready.length - fast;
      return `${c.name}: ${count(c.name)} reconciles, ${count(c.name, "error")} errors; queue fast ${fast} slow ${slow} waiting ${snap.waiting.length}`;
    })
    .join(" | ");
}
