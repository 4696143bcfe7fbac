/**
 * Resource monitors: one shared informer per watched resource, started and stopped as discovery
 * changes (kube's GraphBuilder monitors). Objects are cut down to the metadata the control plane
 * needs before they are cached, so watching every resource costs little memory.
 */
import {
  type HandlerRegistration,
  type Logger,
  listerWatcherFor,
  SharedInformer,
} from "../cache/index.ts";
import type { Client, DiscoveredResource } from "../client/index.ts";
import { type Clock, DeletedFinalStateUnknown, type KubeObject } from "../core/index.ts";
import { resourceKey } from "./owner-graph.ts";

/** Receives what the monitors observe. Calls for one resource come in order. */
export interface MonitorHandler {
  /** `obj` was added or changed; `old` is its previous state, if it was known. */
  observed(resource: DiscoveredResource, obj: KubeObject, old: KubeObject | undefined): void;
  /** `obj` was deleted (its last known state). */
  deleted(resource: DiscoveredResource, obj: KubeObject): void;
  /** The monitor of `resource` stopped: discovery no longer lists it. */
  resourceRemoved(resource: DiscoveredResource): void;
}

/** Options for {@link ResourceMonitors}. */
export interface ResourceMonitorsOptions {
  client: Client;
  handler: MonitorHandler;
  /** @default realClock */
  clock?: Clock;
  logger: Logger;
  /** Called whenever every monitor has synced (again, after new monitors started). */
  onSynced?: () => void;
}

interface Monitor {
  readonly resource: DiscoveredResource;
  readonly informer: SharedInformer<KubeObject>;
  readonly registration: HandlerRegistration;
  readonly running: Promise<void>;
  /** Aborted when this monitor stops. */
  readonly stop: AbortController;
}

/** Keeps only what the owner graph and the namespace controller read. */
function metadataOnly(obj: KubeObject): KubeObject {
  const m = obj.metadata ?? {};
  return {
    apiVersion: obj.apiVersion,
    kind: obj.kind,
    metadata: {
      name: m.name,
      ...(m.namespace === undefined ? {} : { namespace: m.namespace }),
      uid: m.uid,
      resourceVersion: m.resourceVersion,
      ...(m.ownerReferences === undefined ? {} : { ownerReferences: m.ownerReferences }),
      ...(m.finalizers === undefined ? {} : { finalizers: m.finalizers }),
      ...(m.deletionTimestamp === undefined ? {} : { deletionTimestamp: m.deletionTimestamp }),
    },
  };
}

/**
 * The set of running monitors. {@link sync} makes it match a list of resources; {@link stop}
 * ends them all. Invariant: `#monitors` holds exactly the monitors started and not stopped,
 * keyed by `group/version/plural`; a stopped monitor's handler gets nothing more, and the
 * handler hears `resourceRemoved` for it once.
 */
export class ResourceMonitors {
  readonly #o: ResourceMonitorsOptions;
  readonly #monitors = new Map<string, Monitor>();
  readonly #stop = new AbortController();
  #stopped = false;

  constructor(options: ResourceMonitorsOptions) {
    this.#o = options;
  }

  /** The resources watched now. */
  get resources(): DiscoveredResource[] {
    return [...this.#monitors.values()].map((m) => m.resource);
  }

  /** True if `resource` (any version of its group and plural) is watched. */
  watches(group: string, plural: string): boolean {
    for (const m of this.#monitors.values()) {
      if (m.resource.group === group && m.resource.plural === plural) return true;
    }
    return false;
  }

  /** True once every running monitor has listed its resource and the handler has seen it. */
  hasSynced(): boolean {
    for (const m of this.#monitors.values()) if (!m.registration.hasSynced()) return false;
    return true;
  }

  /** Resolves once {@link hasSynced} is true; rejects with `signal.reason` on abort. */
  async waitForSync(signal?: AbortSignal): Promise<void> {
    while (!this.hasSynced()) {
      // A monitor stopped meanwhile never syncs: its wait ends with it, and the loop looks again.
      await Promise.all(
        [...this.#monitors.values()].map((m) =>
          m.registration
            .waitForSync(
              signal === undefined ? m.stop.signal : AbortSignal.any([signal, m.stop.signal]),
            )
            .catch((err: unknown) => {
              if (signal?.aborted) throw err;
            }),
        ),
      );
    }
  }

  /**
   * Starts monitors for the resources not watched yet and stops those not in `resources`,
   * except the ones `keep` says to keep (resources whose discovery failed this time).
   */
  async sync(
    resources: readonly DiscoveredResource[],
    keep: (r: DiscoveredResource) => boolean = () => false,
  ): Promise<{ added: string[]; removed: string[] }> {
    if (this.#stopped) return { added: [], removed: [] };
    const wanted = new Map(resources.map((r) => [resourceKey(r), r]));
    const removed: Monitor[] = [];
    for (const [key, m] of this.#monitors) {
      if (wanted.has(key) || keep(m.resource)) continue;
      this.#monitors.delete(key);
      removed.push(m);
    }
    const added: string[] = [];
    for (const [key, r] of wanted) {
      if (this.#monitors.has(key)) continue;
      this.#monitors.set(key, this.#start(r));
      added.push(key);
    }
    for (const m of removed) await this.#end(m);
    if (added.length > 0) void this.#notifyWhenSynced();
    return { added, removed: removed.map((m) => resourceKey(m.resource)) };
  }

  /** Stops every monitor and waits for them to end. Idempotent. */
  async stop(): Promise<void> {
    this.#stopped = true;
    this.#stop.abort(new Error("resource monitors stopped"));
    const all = [...this.#monitors.values()];
    this.#monitors.clear();
    await Promise.all(all.map((m) => m.informer.stop().then(() => m.running)));
  }

  #start(resource: DiscoveredResource): Monitor {
    const { client, handler, clock, logger } = this.#o;
    const informer = new SharedInformer<KubeObject>({
      name: `monitor ${resourceKey(resource)}`,
      listerWatcher: listerWatcherFor(client.resource(resource)),
      transform: metadataOnly,
      logger,
      ...(clock === undefined ? {} : { clock }),
    });
    const registration = informer.addEventHandler({
      onAdd: (obj) => handler.observed(resource, obj, undefined),
      onUpdate: (old, obj) => {
        if (old.metadata?.resourceVersion === obj.metadata?.resourceVersion) return;
        if (old.metadata?.uid !== obj.metadata?.uid) {
          handler.deleted(resource, old);
          handler.observed(resource, obj, undefined);
        } else {
          handler.observed(resource, obj, old);
        }
      },
      onDelete: (obj) =>
        handler.deleted(resource, obj instanceof DeletedFinalStateUnknown ? obj.obj : obj),
    });
    const stop = new AbortController();
    const running = informer
      .run(AbortSignal.any([this.#stop.signal, stop.signal]))
      .catch((err: unknown) => {
        logger.error({ err, resource: resourceKey(resource) }, "resource monitor failed");
      });
    return { resource, informer, registration, running, stop };
  }

  async #end(m: Monitor): Promise<void> {
    m.informer.removeEventHandler(m.registration);
    m.stop.abort(new Error(`${resourceKey(m.resource)} is no longer served`));
    await m.informer.stop();
    await m.running;
    this.#o.handler.resourceRemoved(m.resource);
  }

  async #notifyWhenSynced(): Promise<void> {
    try {
      await this.waitForSync(this.#stop.signal);
    } catch {
      return;
    }
    this.#o.onSynced?.();
  }
}
