/**
 * Runs the user-namespace controller against the cluster of your kubeconfig (or `--url`):
 * `node examples/user-namespace/main.ts [--url http://127.0.0.1:6443] [--data-dir DIR]`.
 * Installs the User CRD if it is missing and it may; under the ServiceAccount of rbac.yaml it may
 * not, and an administrator applies the CRD. Ctrl-C stops it cleanly.
 */
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { Manager, onTerminate } from "kontroller/controller";
import { ApiError, isAlreadyExists } from "kontroller/core";
import { PrometheusMetrics } from "kontroller/metrics";
import { customResourceDefinitions } from "kontroller/resources";
import { userNamespaceController } from "./controller.ts";
import { User } from "./user.ts";

const { values } = parseArgs({
  options: {
    url: { type: "string" },
    "data-dir": { type: "string" },
    "health-port": { type: "string" },
  },
});
const manager = new Manager({
  name: "user-namespace",
  metrics: new PrometheusMetrics(),
  ...(values.url ? { clientOptions: { url: values.url } } : {}),
  ...(values["health-port"] ? { healthPort: Number(values["health-port"]) } : {}),
});
try {
  await manager.client.resource(customResourceDefinitions).create(User.crd());
} catch (err) {
  // Forbidden: the controller runs with the rules of rbac.yaml, which do not let it change APIs.
  const forbidden = err instanceof ApiError && err.reason === "Forbidden";
  if (!isAlreadyExists(err) && !forbidden) throw err;
}
manager.add(
  userNamespaceController(manager, {
    dataDir: values["data-dir"] ?? join(tmpdir(), "kontroller-users"),
  }),
);
await manager.start(onTerminate());
