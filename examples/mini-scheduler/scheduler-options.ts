/** The options of the mini scheduler, with their defaults resolved and checked in one place. */
import type { InformerFactory, Logger } from "kontroller/cache";
import type { Client } from "kontroller/client";
import type { EventRecorder } from "kontroller/controller";
import { type Clock, checkNumber, InvalidOptionError, realClock } from "kontroller/core";
import type { Binder } from "./binder.ts";

/** Options of {@link Scheduler}. */
export interface SchedulerOptions {
  /** Reads and binds through this client. */
  client: Client;
  /**
   * Schedules the pods whose `spec.schedulerName` is this. The API server defaults it to
   * `default-scheduler`; pass that where no other scheduler runs (the embedded server).
   * @default "mini-scheduler"
   */
  schedulerName?: string;
  /**
   * Informers come from here (share a Manager's factory); its owner starts and stops it — after
   * the scheduler is constructed, since that is when the scheduler asks for its informers.
   * @default a factory of its own, started and stopped with the scheduler
   */
  factory?: InformerFactory;
  /** Binds pods to nodes. @default a Binding POSTed to `pods/{name}/binding` */
  binder?: Binder;
  /**
   * Records `Scheduled` and `FailedScheduling` events; a recorder given here is flushed, not
   * closed, when the scheduler stops.
   * @default an EventRecorder of its own, reporting as the scheduler name, closed on stop
   */
  recorder?: EventRecorder;
  /** A pod's first backoff after it fit nowhere; doubles per failure. @default 1000 */
  initialBackoffMs?: number;
  /** The longest backoff. @default 10000 */
  maxBackoffMs?: number;
  /** Bindings in flight at once; the scheduling loop waits for a free slot. @default 64 */
  maxInFlightBinds?: number;
  /**
   * Write the `PodScheduled=False` condition (reason `Unschedulable`) on pods that fit
   * nowhere, as kube-scheduler does. @default true
   */
  updatePodConditions?: boolean;
  /** Times backoffs and events. @default realClock */
  clock?: Clock;
  /** @default silent */
  logger?: Logger;
}

/** Options with every default filled in. */
export interface ResolvedOptions
  extends Required<Omit<SchedulerOptions, "factory" | "binder" | "recorder">>,
    Pick<SchedulerOptions, "factory" | "binder" | "recorder"> {}

const silent: Logger = { error() {}, warn() {}, info() {}, debug() {} };

/**
 * Fills in defaults and checks values.
 * @throws {InvalidOptionError} naming the option and the value.
 */
export function resolveOptions(options: SchedulerOptions): ResolvedOptions {
  const owner = "Scheduler";
  if (typeof options?.client?.resource !== "function") {
    throw new InvalidOptionError(owner, "client", options?.client, "must be a Client");
  }
  const schedulerName = options.schedulerName ?? "mini-scheduler";
  if (typeof schedulerName !== "string" || schedulerName === "") {
    throw new InvalidOptionError(
      owner,
      "schedulerName",
      schedulerName,
      "must be a non-empty string",
    );
  }
  const initialBackoffMs = checkNumber(
    owner,
    "initialBackoffMs",
    options.initialBackoffMs ?? 1000,
    {
      min: 0,
    },
  );
  const maxBackoffMs = checkNumber(owner, "maxBackoffMs", options.maxBackoffMs ?? 10_000, {
    min: initialBackoffMs,
  });
  const maxInFlightBinds = checkNumber(owner, "maxInFlightBinds", options.maxInFlightBinds ?? 64, {
    min: 1,
    integer: true,
  });
  if (options.binder !== undefined && typeof options.binder?.bind !== "function") {
    throw new InvalidOptionError(owner, "binder", options.binder, "must have bind(pod, node)");
  }
  return {
    ...options,
    schedulerName,
    initialBackoffMs,
    maxBackoffMs,
    maxInFlightBinds,
    updatePodConditions: options.updatePodConditions ?? true,
    clock: options.clock ?? realClock,
    logger: options.logger ?? silent,
  };
}
