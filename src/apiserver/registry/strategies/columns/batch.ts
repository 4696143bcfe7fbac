import type { KubeObject } from "../../../../core/index.ts";
import type { TableColumn } from "../../strategy.ts";
import {
  AGE,
  at,
  boolPtr,
  count,
  humanDuration,
  int,
  items,
  NAME,
  selectorColumn,
  since,
  str,
  templateColumns,
  timeOf,
} from "./common.ts";

/* The columns of Jobs and CronJobs. */

/** True if the first condition of a type in a Job's status is True. */
function hasCondition(job: KubeObject, type: string): boolean {
  return items(job, "status.conditions").find((c) => c.type === type)?.status === "True";
}

/**
 * A Job's state, the first that holds: Complete, Failed, Terminating (deleting), Suspended,
 * FailureTarget, SuccessCriteriaMet, else Running.
 */
function jobStatus(job: KubeObject): string {
  if (hasCondition(job, "Complete")) return "Complete";
  if (hasCondition(job, "Failed")) return "Failed";
  if (job.metadata?.deletionTimestamp !== undefined) return "Terminating";
  for (const type of ["Suspended", "FailureTarget", "SuccessCriteriaMet"]) {
    if (hasCondition(job, type)) return type;
  }
  return "Running";
}

/** `succeeded/completions`; without completions `succeeded/1`, `of n` when parallel. */
function jobCompletions(job: KubeObject): string {
  const succeeded = int(job, "status.succeeded");
  if (typeof at(job, "spec.completions") === "number")
    return `${succeeded}/${int(job, "spec.completions")}`;
  const parallelism = int(job, "spec.parallelism");
  return parallelism > 1 ? `${succeeded}/1 of ${parallelism}` : `${succeeded}/1`;
}

/** From the start to the completion, or to now while running; empty before the start. */
function jobDuration(job: KubeObject, now: number): string {
  const start = timeOf(at(job, "status.startTime"));
  if (start === undefined) return "";
  return humanDuration((timeOf(at(job, "status.completionTime")) ?? now) - start);
}

/** What kube says of a Job's selector, for Jobs and CronJobs. */
const JOB_SELECTOR =
  "A label query over pods that should match the pod count. Normally, the system sets this field for you. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/labels/#label-selectors";

/** `kubectl get jobs [-o wide]`. */
export const JOB_COLUMNS: readonly TableColumn[] = [
  NAME,
  { name: "Status", type: "string", description: "Status of the job.", cell: jobStatus },
  {
    name: "Completions",
    type: "string",
    description:
      "The number of pods which reached phase Succeeded. The value increases monotonically for a given spec. However, it may decrease in reaction to scale down of elastic indexed jobs.",
    cell: jobCompletions,
  },
  {
    name: "Duration",
    type: "string",
    description: "Time required to complete the job.",
    cell: jobDuration,
  },
  AGE,
  ...templateColumns("spec.template.spec"),
  selectorColumn("spec.selector", JOB_SELECTOR),
];

/** `kubectl get cronjobs [-o wide]`. */
export const CRON_JOB_COLUMNS: readonly TableColumn[] = [
  NAME,
  {
    name: "Schedule",
    type: "string",
    description: "The schedule in Cron format, see https://en.wikipedia.org/wiki/Cron.",
    cell: (o) => str(o, "spec.schedule"),
  },
  {
    name: "Timezone",
    type: "string",
    description:
      "The time zone name for the given schedule, see https://en.wikipedia.org/wiki/List_of_tz_database_time_zones. If not specified, this will default to the time zone of the kube-controller-manager process. The set of valid time zone names and the time zone offset is loaded from the system-wide time zone database by the API server during CronJob validation and the controller manager during execution. If no system-wide time zone database can be found a bundled version of the database is used instead. If the time zone name becomes invalid during the lifetime of a CronJob or due to a change in host configuration, the controller will stop creating new new Jobs and will create a system event with the reason UnknownTimeZone. More information can be found in https://kubernetes.io/docs/concepts/workloads/controllers/cron-jobs/#time-zones",
    cell: (o) => str(o, "spec.timeZone", "<none>"),
  },
  {
    name: "Suspend",
    type: "boolean",
    description:
      "This flag tells the controller to suspend subsequent executions, it does not apply to already started executions.  Defaults to false.",
    cell: (o) => boolPtr(at(o, "spec.suspend")),
  },
  {
    name: "Active",
    type: "integer",
    description: "A list of pointers to currently running jobs.",
    cell: (o) => count(o, "status.active"),
  },
  {
    name: "Last Schedule",
    type: "string",
    description: "Information when was the last time the job was successfully scheduled.",
    cell: (o, now) =>
      at(o, "status.lastScheduleTime") === undefined
        ? "<none>"
        : since(at(o, "status.lastScheduleTime"), now),
  },
  AGE,
  ...templateColumns("spec.jobTemplate.spec.template.spec"),
  selectorColumn("spec.jobTemplate.spec.selector", JOB_SELECTOR),
];
