import { hostname } from "node:os";
import { pino } from "pino";
import { InformerFactory, type Logger } from "../cache/index.ts";
import { type Client, type ClientOptions, createClient } from "../client/index.ts";
import {
  type Clock,
  checkMetrics,
  checkNumber,
  InvalidOptionError,
  type KubeObject,
  type MetricsProvider,
  noopMetricsProvider,
  realClock,
} from "../core/index.ts";
import { LeaderElector, LeaseLock } from "../leaderelection/index.ts";
import { HealthServer } from "../metrics/index.ts";
import { eventsV1, leases } from "../resources/index.ts";
import type { ControllerSpec } from "./builder.ts";
import { Controller, DEFAULT_GRACE_MS } from "./controller.ts";
import { EventRecorder } from "./event-recorder.ts";

/** Leader election settings: only the leader runs controllers. */
export interface LeaderElectionOptions {
  /** The Lease's name, shared by every replica. */
  name: string;
  /** The Lease's namespace. @default "default" */
  namespace?: string;
  /** This replica's identity. @default hostname plus a random suffix */
  identity?: string;
  /** @default 15000 */
  leaseDurationMs?: number;
  /** @default 10000 */
  renewDeadlineMs?: number;
  /** @default 2000 */
  retryPeriodMs?: number;
}

/** Options for {@link Manager}. */
export interface ManagerOptions {
  /** Names the manager in events (`reportingController`) and logs. @default "kontroller" */
  name?: string;
  /** The client every controller shares. @default createClient(clientOptions) */
  client?: Client;
  /** How to make the client when none is given. @default the default kubeconfig */
  clientOptions?: ClientOptions;
  /** @default pino at level "info" on stderr */
  logger?: Logger;
  /** @default realClock */
  clock?: Clock;
  /** Only the leader of this Lease runs controllers. @default no leader election */
  leaderElection?: LeaderElectionOptions;
  /**
   * Serve /healthz and /readyz on this port (0: any free port), and /metrics when `metrics` can
   * expose what it collected (`PrometheusMetrics` from kontroller/metrics can).
   * @default not served
   */
  healthPort?: number;
  /** @default "0.0.0.0" */
  healthHost?: string;
  /**
   * Makes the instruments of every informer, queue and controller of this manager. For
   * Prometheus metrics (and /metrics on `healthPort`), pass
   * `new PrometheusMetrics()` from kontroller/metrics.
   * @default noopMetricsProvider (no metrics)
   */
  metrics?: MetricsProvider;
  /**
   * On stop, in-flight reconciles get this long before their signals abort.
   * @default DEFAULT_GRACE_MS (30000)
   */
  gracefulShutdownMs?: number;
  /** Informers resync handlers that ask for it this often. @default 0 (never) */
  resyncPeriodMs?: number;
}

/** The manager lost leadership: its controllers stopped; the process should exit and restart. */
export class LeadershipLostError extends Error {
  constructor(identity: string) {
    super(`${identity} lost leadership; controllers stopped`);
    this.name = "LeadershipLostError";
  }
}

/**
 * Runs controllers (controller-runtime's Manager): one client, one informer factory, one metrics
 * provider and one event recorder shared by every controller; optional leader election; an HTTP
 * endpoint for /metrics, /healthz and /readyz.
 *
 * `start(signal)` starts the informers, waits for their caches, then (as leader, with leader
 * election) starts the workers; it resolves once `signal` aborts and everything has stopped:
 * reconciles in flight finish within `gracefulShutdownMs`, leadership is released, informers
 * and the endpoint close. It rejects with {@link LeadershipLostError} if leadership is lost.
 */
export class Manager {
  readonly name: string;
  readonly client: Client;
  readonly factory: InformerFactory;
  readonly metrics: MetricsProvider;
  readonly recorder: EventRecorder;
  readonly logger: Logger;
  readonly #o: ManagerOptions;
  readonly #clock: Clock;
  readonly #ownsClient: boolean;
  readonly #controllers: Controller[] = [];
  readonly #graceMs: number;
  #elector: LeaderElector | undefined;
  #health: HealthServer | undefined;
  #state: "new" | "starting" | "running" | "stopping" | "stopped" = "new";
  #synced = false;
  #healthUrl: string | undefined;

  constructor(options: ManagerOptions = {}) {
    if (options.client !== undefined && options.clientOptions !== undefined) {
      throw new InvalidOptionError(
        "Manager",
        "clientOptions",
        "(options)",
        "must not be given together with client",
      );
    }
    if (options.healthPort !== undefined) {
      checkNumber("Manager", "healthPort", options.healthPort, {
        min: 0,
        max: 65535,
        integer: true,
      });
    }
    this.#graceMs = checkNumber(
      "Manager",
      "gracefulShutdownMs",
      options.gracefulShutdownMs ?? DEFAULT_GRACE_MS,
      { min: 0 },
    );
    this.metrics =
      checkMetrics("Manager", options.metrics, [
        "newQueueMetrics",
        "newInformerMetrics",
        "newControllerMetrics",
      ]) ?? noopMetricsProvider;
    this.#o = options;
    this.name = options.name ?? "kontroller";
    this.#clock = options.clock ?? realClock;
    this.#ownsClient = options.client === undefined;
    this.client = options.client ?? createClient(options.clientOptions);
    this.logger = options.logger ?? pino({ name: this.name, level: "info" }, pino.destination(2));
    this.factory = new InformerFactory({
      client: this.client,
      clock: this.#clock,
      logger: this.logger,
      metrics: this.metrics,
      ...(options.resyncPeriodMs === undefined
        ? {}
        : { defaultResyncPeriodMs: options.resyncPeriodMs }),
    });
    this.recorder = new EventRecorder({
      events: this.client.resource(eventsV1),
      reportingController: this.name,
      reportingInstance: `${this.name}-${hostname()}`,
      clock: this.#clock,
      onError: (err) => this.logger.warn({ err }, "could not record an event"),
    });
  }

  /** Adds a controller; its informers start with the manager. Only before `start`. */
  add<T extends KubeObject>(spec: ControllerSpec<T>): Controller {
    if (this.#state !== "new") throw new Error(`Manager: add "${spec.name}" before start`);
    if (this.#controllers.some((c) => c.name === spec.name)) {
      throw new InvalidOptionError(
        "Manager.add",
        "name",
        spec.name,
        "must be unique among the manager's controllers",
      );
    }
    const c = new Controller({
      spec: spec as unknown as ControllerSpec,
      factory: this.factory,
      logger: this.logger,
      clock: this.#clock,
      metrics: this.metrics,
      recorder: this.recorder,
    });
    this.#controllers.push(c);
    return c;
  }

  /** The controllers added so far. */
  get controllers(): readonly Controller[] {
    return this.#controllers;
  }

  /** The health endpoint's URL, once listening. */
  get healthUrl(): string | undefined {
    return this.#healthUrl;
  }

  /** True once caches synced and (with leader election) the elector is running. */
  get ready(): boolean {
    return this.#synced && (this.#state === "running" || this.#state === "starting");
  }

  /** True while this manager's controllers run (always, without leader election). */
  get leading(): boolean {
    return this.#o.leaderElection === undefined
      ? this.#state === "running"
      : (this.#elector?.isLeader ?? false);
  }

  async start(signal: AbortSignal): Promise<void> {
    if (this.#state !== "new") throw new Error("Manager: start can be called once");
    this.#state = "starting";
    const run = new AbortController();
    const onAbort = () => run.abort(signal.reason);
    signal.addEventListener("abort", onAbort, { once: true });
    let lost = false;
    let elected: Promise<void> = Promise.resolve();
    try {
      for (const c of this.#controllers) c.connect();
      await this.#startHealth();
      // With a stream worker (streamThread: "worker"), the informers' first syncs, the heaviest
      // reads of a controller's life, then go through it instead of this thread.
      await this.client.prepare();
      this.factory.start(run.signal);
      try {
        await this.factory.waitForCacheSync(run.signal);
      } catch (err) {
        // Stopping before the caches synced is no error; an informer that stopped on its own
        // before syncing is one (the controllers must not run on a cache that never filled).
        if (run.signal.aborted) return;
        throw err;
      }
      this.#synced = true;
      this.#state = "running";
      this.logger.info({ controllers: this.#controllers.map((c) => c.name) }, "caches synced");
      if (this.#o.leaderElection === undefined) {
        await this.#runControllers(run.signal);
      } else {
        const stoppedLeading = new Promise<void>((resolve) => {
          this.#elector = this.#makeElector(this.#o.leaderElection!, resolve);
        });
        elected = this.#elector!.run(run.signal);
        await Promise.race([elected, stoppedLeading]);
        lost = !run.signal.aborted;
      }
    } finally {
      this.#state = "stopping";
      run.abort(new Error("manager stopping"));
      signal.removeEventListener("abort", onAbort);
      await elected;
      await this.recorder.close();
      await this.factory.shutdown();
      await this.#health?.close();
      if (this.#ownsClient) await this.client.close();
      this.#state = "stopped";
      this.logger.info({}, "manager stopped");
    }
    if (lost) throw new LeadershipLostError(this.#elector?.leader ?? this.name);
  }

  /** Starts every controller's workers, and stops them gracefully when `signal` aborts. */
  async #runControllers(signal: AbortSignal): Promise<void> {
    await Promise.all(this.#controllers.map((c) => c.start(signal)));
    await new Promise<void>((resolve) => {
      if (signal.aborted) resolve();
      else signal.addEventListener("abort", () => resolve(), { once: true });
    });
    await Promise.all(this.#controllers.map((c) => c.stop({ graceMs: this.#graceMs })));
  }

  #makeElector(le: LeaderElectionOptions, onStopped: () => void): LeaderElector {
    const namespace = le.namespace ?? "default";
    const identity = le.identity ?? `${hostname()}-${Math.random().toString(36).slice(2, 8)}`;
    return new LeaderElector({
      lock: new LeaseLock({ leases: this.client.resource(leases, { namespace }), name: le.name }),
      identity,
      clock: this.#clock,
      ...(le.leaseDurationMs === undefined ? {} : { leaseDurationMs: le.leaseDurationMs }),
      ...(le.renewDeadlineMs === undefined ? {} : { renewDeadlineMs: le.renewDeadlineMs }),
      ...(le.retryPeriodMs === undefined ? {} : { retryPeriodMs: le.retryPeriodMs }),
      onStartedLeading: (leading) => {
        this.logger.info(
          { identity, lease: `${namespace}/${le.name}` },
          "became leader; starting controllers",
        );
        return this.#runControllers(leading);
      },
      onStoppedLeading: () => {
        this.logger.info({ identity }, "stopped leading");
        onStopped();
      },
      onNewLeader: (leader) => {
        if (leader !== identity) this.logger.info({ leader }, "new leader observed");
      },
      onError: (err) => this.logger.warn({ err }, "leader election"),
    });
  }

  async #startHealth(): Promise<void> {
    if (this.#o.healthPort === undefined) return;
    this.#health = new HealthServer({
      port: this.#o.healthPort,
      ...(this.#o.healthHost === undefined ? {} : { host: this.#o.healthHost }),
      metrics: this.metrics,
      liveness: { manager: () => (this.#state === "stopped" ? "stopped" : undefined) },
      readiness: {
        "informers-synced": () => (this.#synced ? undefined : "informers have not synced yet"),
        "leader-election": () =>
          this.#o.leaderElection === undefined || this.#elector !== undefined
            ? undefined
            : "not started",
      },
    });
    this.#healthUrl = await this.#health.listen();
    this.logger.info({ url: this.#healthUrl }, "serving /metrics, /healthz and /readyz");
  }
}

/**
 * An AbortSignal that aborts on SIGINT or SIGTERM (once); for `manager.start(onTerminate())`.
 * A second signal while stopping exits at once with code 1.
 */
export function onTerminate(): AbortSignal {
  const ac = new AbortController();
  const handler = (sig: NodeJS.Signals) => {
    if (ac.signal.aborted) process.exit(1);
    ac.abort(new Error(`received ${sig}`));
  };
  process.on("SIGINT", handler);
  process.on("SIGTERM", handler);
  return ac.signal;
}
