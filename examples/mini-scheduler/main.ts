/**
 * Runs the mini scheduler against the cluster of your kubeconfig (or `--url`):
 * `node examples/mini-scheduler/main.ts [--url http://127.0.0.1:6443] [--scheduler-name NAME]`.
 * It schedules pods whose `spec.schedulerName` is NAME (default `mini-scheduler`, so that it
 * never competes with a cluster's own scheduler). Ctrl-C stops it cleanly.
 */
import { parseArgs } from "node:util";
import { stderrLogger } from "kontroller/cache";
import { createClient } from "kontroller/client";
import { onTerminate } from "kontroller/controller";
import { Scheduler } from "./scheduler.ts";

const { values } = parseArgs({
  options: {
    url: { type: "string" },
    "scheduler-name": { type: "string", default: "mini-scheduler" },
  },
});
await using client = createClient(values.url ? { url: values.url } : {});
const scheduler = new Scheduler({
  client,
  schedulerName: values["scheduler-name"],
  logger: stderrLogger,
});
process.stderr.write(`scheduling pods with spec.schedulerName=${scheduler.name}\n`);
await scheduler.start(onTerminate());
process.stderr.write(
  `stopped: ${scheduler.stats.bound} bound, ${scheduler.stats.unschedulable} unschedulable attempts\n`,
);
