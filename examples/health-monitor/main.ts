/**
 * Runs the health-monitor controller against the cluster of your kubeconfig (or `--url`), with a
 * local probe target: `node examples/health-monitor/main.ts [--url http://127.0.0.1:6443]`.
 * Installs the HealthMonitor CRD if it is missing and it may; under the ServiceAccount of rbac.yaml
 * it may not, and an administrator applies the CRD. Ctrl-C stops it cleanly.
 */
import { parseArgs } from "node:util";
import { Manager, onTerminate } from "kontroller/controller";
import { ApiError, isAlreadyExists } from "kontroller/core";
import { customResourceDefinitions } from "kontroller/resources";
import { healthMonitorController } from "./controller.ts";
import { HealthMonitor } from "./health-monitor.ts";
import { startProbeTarget } from "./probe-target.ts";

const { values } = parseArgs({ options: { url: { type: "string" } } });
await using target = await startProbeTarget();
process.stderr.write(`probe target at ${target.url} (/healthy, /unhealthy, /flaky)\n`);
const manager = new Manager({
  name: "health-monitor",
  ...(values.url ? { clientOptions: { url: values.url } } : {}),
});
try {
  await manager.client.resource(customResourceDefinitions).create(HealthMonitor.crd());
} catch (err) {
  // Forbidden: the controller runs with the rules of rbac.yaml, which do not let it change APIs.
  const forbidden = err instanceof ApiError && err.reason === "Forbidden";
  if (!isAlreadyExists(err) && !forbidden) throw err;
}
manager.add(healthMonitorController(manager));
await manager.start(onTerminate());
