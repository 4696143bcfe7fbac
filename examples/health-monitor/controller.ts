/**
 * Probes each HealthMonitor's URL, writes the result to its status, and probes again after its
 * interval. The queue has two lanes (the seed's idea): events of monitors with `spec.active`
 * go to the fast lane; periodic re-checks and everything else to the slow lane. So when
 * thousands of monitors are due, an active rollout's monitor is still checked at once.
 */
import {
  type ControllerSpec,
  controller,
  generationChanged,
  type Manager,
} from "kontroller/controller";
import { isNotFound, toTime } from "kontroller/core";
import { HealthMonitor } from "./health-monitor.ts";

/** Lane priorities: ≥ 0 is the fast lane of a two-lane queue. */
export const FAST = 0;
export const SLOW = -1;

/** Options of {@link healthMonitorController}. */
export interface HealthMonitorOptions {
  /** A probe that takes longer fails. @default 5000 */
  probeTimeoutMs?: number;
  /** Workers. @default 4 */
  concurrency?: number;
  /** @default Date.now */
  now?: () => number;
}

/** The result of one probe. */
export interface ProbeResult {
  healthy: boolean;
  statusCode?: number;
  message: string;
}

/** GETs `url`; 2xx is healthy. Never throws. */
export async function probe(url: string, signal: AbortSignal): Promise<ProbeResult> {
  try {
    const res = await fetch(url, { signal });
    await res.body?.cancel();
    return { healthy: res.ok, statusCode: res.status, message: `HTTP ${res.status}` };
  } catch (err) {
    return { healthy: false, message: err instanceof Error ? err.message : String(err) };
  }
}

/** The controller, ready for `manager.add()`. */
export function healthMonitorController(
  manager: Manager,
  options: HealthMonitorOptions = {},
): ControllerSpec<HealthMonitor> {
  const monitors = manager.client.resource(HealthMonitor);
  const lister = manager.factory.lister(HealthMonitor);
  const timeoutMs = options.probeTimeoutMs ?? 5000;
  const now = options.now ?? Date.now;
  return controller({
    name: "health-monitor",
    // Status writes (our own) bump no generation: only spec changes trigger a probe.
    for: { resource: HealthMonitor, predicates: [generationChanged] },
    queue: "two-lane",
    concurrency: options.concurrency ?? 4,
    priority: ({ object }) => ((object as HealthMonitor).spec?.active ? FAST : SLOW),
    reconcile: async ({ namespace, name }, { signal }) => {
      let m: HealthMonitor;
      try {
        m = lister.namespace(namespace ?? "default").get(name);
      } catch (err) {
        if (isNotFound(err)) return; // deleted: no more probes
        throw err;
      }
      if (m.metadata.deletionTimestamp) return;
      const result = await probe(
        m.spec.url,
        AbortSignal.any([signal, AbortSignal.timeout(timeoutMs)]),
      );
      const failures = result.healthy ? 0 : (m.status?.consecutiveFailures ?? 0) + 1;
      await monitors.inNamespace(m.metadata.namespace ?? "default").patch(
        name,
        "merge",
        {
          status: {
            healthy: result.healthy,
            message: result.message,
            lastProbeTime: toTime(now()),
            consecutiveFailures: failures,
            ...(result.statusCode === undefined ? {} : { statusCode: result.statusCode }),
          },
        },
        { subresource: "status", signal },
      );
      return { requeueAfterMs: (m.spec.intervalSeconds ?? 30) * 1000, priority: SLOW };
    },
  });
}
