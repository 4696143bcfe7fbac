/**
 * The options of the control plane, and where they are checked and defaulted (one place).
 */
import type { Client, ClientOptions } from "../client/index.ts";
import type { ManagerOptions } from "../controller/index.ts";
import { checkNumber, InvalidOptionError } from "../core/index.ts";
import { DEFAULT_IGNORED_RESOURCES, type GroupResourceName } from "./resource-mapper.ts";

/** Options for {@link ControlPlane}. */
export interface ControlPlaneOptions
  extends Pick<
    ManagerOptions,
    "logger" | "clock" | "metrics" | "healthPort" | "healthHost" | "leaderElection"
  > {
  /** The client every controller shares. @default createClient(clientOptions) */
  client?: Client;
  /** How to make the client when none is given (`{ url }`, a kubeconfig). */
  clientOptions?: ClientOptions;
  /** Run the garbage collector. @default true */
  garbageCollector?: boolean;
  /** Run the namespace controller. @default true */
  namespaceLifecycle?: boolean;
  /**
   * Run the pvc-protection and pv-protection controllers, which release the finalizers the
   * API server puts on claims and volumes once nothing uses them. @default true
   */
  volumeProtection?: boolean;
  /**
   * Run the clusterrole-aggregation controller, which fills the rules of ClusterRoles with an
   * aggregationRule (kube's `admin`, `edit` and `view`) from the roles their selectors match.
   * @default true
   */
  clusterRoleAggregation?: boolean;
  /** Objects the garbage collector checks at once. @default 8 */
  garbageCollectorWorkers?: number;
  /** Namespaces emptied at once. @default 4 */
  namespaceWorkers?: number;
  /**
   * Discovery is read again this often (and whenever a CRD changes) to watch new resources.
   * @default 30000
   */
  discoveryResyncMs?: number;
  /** Resources the garbage collector does not watch. @default events (core and events.k8s.io) */
  ignoredResources?: readonly GroupResourceName[];
  /** In-flight reconciles get this long on stop. @default 5000 */
  gracefulShutdownMs?: number;
}

/** The options with their defaults, checked. */
export interface ResolvedOptions {
  gcOn: boolean;
  nsOn: boolean;
  protectionOn: boolean;
  aggregationOn: boolean;
  gcWorkers: number;
  nsWorkers: number;
  resyncMs: number;
  ignored: readonly GroupResourceName[];
  gracefulShutdownMs: number;
}

/** Checks `options` (an `InvalidOptionError` names a bad one) and fills in the defaults. */
export function resolveOptions(options: ControlPlaneOptions): ResolvedOptions {
  const owner = "ControlPlane";
  if (options.client !== undefined && options.clientOptions !== undefined) {
    throw new InvalidOptionError(
      owner,
      "clientOptions",
      "(options)",
      "must not be given with client",
    );
  }
  const gcOn = options.garbageCollector ?? true;
  const nsOn = options.namespaceLifecycle ?? true;
  const protectionOn = options.volumeProtection ?? true;
  const aggregationOn = options.clusterRoleAggregation ?? true;
  const switches = {
    garbageCollector: gcOn,
    namespaceLifecycle: nsOn,
    volumeProtection: protectionOn,
    clusterRoleAggregation: aggregationOn,
  };
  for (const [name, v] of Object.entries(switches)) {
    if (typeof v !== "boolean") throw new InvalidOptionError(owner, name, v, "must be a boolean");
  }
  const count = (name: string, value: number) =>
    checkNumber(owner, name, value, { min: 1, integer: true });
  return {
    gcOn,
    nsOn,
    protectionOn,
    aggregationOn,
    gcWorkers: count("garbageCollectorWorkers", options.garbageCollectorWorkers ?? 8),
    nsWorkers: count("namespaceWorkers", options.namespaceWorkers ?? 4),
    resyncMs: checkNumber(owner, "discoveryResyncMs", options.discoveryResyncMs ?? 30_000, {
      min: 100,
    }),
    ignored: options.ignoredResources ?? DEFAULT_IGNORED_RESOURCES,
    gracefulShutdownMs: checkNumber(
      owner,
      "gracefulShutdownMs",
      options.gracefulShutdownMs ?? 5000,
      {
        min: 0,
      },
    ),
  };
}
