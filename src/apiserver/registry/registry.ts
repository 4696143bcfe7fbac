import {
  type Clock,
  type GroupResource,
  isAlreadyExists,
  type KubeObject,
  parseApiVersion,
  realClock,
} from "../../core/index.ts";
import { apiVersionOf, type ResourceDefinition } from "../../resources/index.ts";
import type { Storage } from "../storage/storage.ts";
import { jsonEncoder } from "../watchcache/cache-event.ts";
import { EventLoopTurns } from "../watchcache/event-loop-turns.ts";
import { WatchCache, type WatchCacheOptions } from "../watchcache/watch-cache.ts";
import { builtinSpecs, NAMESPACES_PREFIX } from "./builtin-kinds.ts";
import { decodeFromStorage } from "./codec.ts";
import { pruneBuiltin } from "./known-fields.ts";
import { NamespaceAdmission } from "./namespace-admission.ts";
import { omitEmpty } from "./omit-empty.ts";
import { ALL_VERBS, type ServedResource } from "./served.ts";
import {
  DEFAULT_SERVICE_CLUSTER_IP_RANGE,
  DEFAULT_SERVICE_NODE_PORT_RANGE,
  parseIpv4Cidr,
  parsePortRange,
  ServiceAllocations,
} from "./service-allocation.ts";
import { Store } from "./store.ts";
import type { StoreOptions } from "./store-options.ts";
import { SYSTEM_NAMESPACES } from "./strategies/namespace.ts";
import { attrsOf, type Strategy } from "./strategy.ts";
import type { WriteOptions } from "./types.ts";

export {
  ALL_VERBS,
  type CustomResourceInfo,
  discoverySubresources,
  type PrinterColumn,
  type ScaleSubresource,
  type ServedResource,
  subresourceKind,
  subresourceVerbs,
} from "./served.ts";

/** Options of {@link Registry}. */
export interface RegistryOptions {
  readonly storage: Storage;
  /** @default realClock */
  readonly clock?: Clock;
  /**
   * Where Services' cluster IPs come from (kube's --service-cluster-ip-range).
   * @default "10.0.0.0/24"
   */
  readonly serviceClusterIpRange?: string;
  /**
   * Where Services' node ports come from (kube's --service-node-port-range).
   * @default "30000-32767"
   */
  readonly serviceNodePortRange?: string;
  /** Picks a number in [0, 1) for the IPs and ports handed out. @default Math.random */
  readonly random?: () => number;
  /**
   * Options for every watch cache (history sizes, watcher buffers, bookmark period).
   * @default the watch cache's defaults
   */
  readonly watchCache?: Partial<
    Omit<
      WatchCacheOptions,
      "storage" | "prefix" | "decode" | "attrs" | "kind" | "apiVersion" | "clock" | "turns"
    >
  >;
}

/** How {@link Registry.install} serves a resource version besides its definition and strategy. */
export type InstallOptions = Pick<ServedResource, "subresources" | "verbs" | "strategicMerge"> &
  Partial<Pick<ServedResource, "custom" | "scale">> &
  Pick<StoreOptions, "encoder"> &
  Partial<
    Pick<
      StoreOptions,
      | "fromStorage"
      | "toStorage"
      | "storageApiVersion"
      | "validate"
      | "normalize"
      | "decode"
      | "lifecycle"
    >
  > & {
    /** Replace the prefix's watch cache by a new one (see {@link Registry.install}). @default false */
    readonly freshCache?: boolean;
  };

/**
 * Every resource the server serves, by group, version and plural: the built-in kinds from the
 * start, custom resources as their CRDs are established. One watch cache per storage prefix,
 * shared by the versions served from it. It owns the server's state: its allocators (cluster
 * IPs), its namespace admission, the event-loop turns its watchers share.
 *
 * Invariant: `#served` and `#caches` change only through `install`/`uninstall`; a cache is
 * closed only when no served resource uses it.
 */
export class Registry {
  readonly storage: Storage;
  readonly clock: Clock;
  readonly #o: RegistryOptions;
  readonly #served = new Map<string, ServedResource>();
  readonly #caches = new Map<string, WatchCache>();
  readonly #namespaces: NamespaceAdmission;
  readonly #services: ServiceAllocations;
  /** The options of the server's own writes (its field management), from `start`. */
  #write: (served: ServedResource) => WriteOptions = () => ({});
  /** One counter of event-loop turns for all this server's watchers. */
  readonly #turns = new EventLoopTurns();
  #started = false;

  constructor(options: RegistryOptions) {
    this.#o = options;
    this.storage = options.storage;
    this.clock = options.clock ?? realClock;
    this.#namespaces = new NamespaceAdmission(this.storage, () =>
      this.#caches.get(NAMESPACES_PREFIX),
    );
    this.#services = new ServiceAllocations({
      storage: this.storage,
      ipAddresses: () => this.lookup("networking.k8s.io", "v1", "ipaddresses"),
      write: (served) => this.#write(served),
      clusterIpRange: parseIpv4Cidr(
        options.serviceClusterIpRange ?? DEFAULT_SERVICE_CLUSTER_IP_RANGE,
      ),
      nodePortRange: parsePortRange(
        options.serviceNodePortRange ?? DEFAULT_SERVICE_NODE_PORT_RANGE,
      ),
      ...(options.random ? { random: options.random } : {}),
    });
  }

  /**
   * Starts the built-in resources' caches and creates the system namespaces, each written with
   * `write(namespaces)` (the server's field management).
   */
  async start(write: (served: ServedResource) => WriteOptions = () => ({})): Promise<void> {
    if (this.#started) return;
    this.#started = true;
    this.#write = write;
    for (const spec of builtinSpecs(this.#services)) {
      // Objects are normalized in the form they are stored in (an events.k8s.io Event as a
      // core one).
      const { group, version } = parseApiVersion(spec.storageApiVersion ?? apiVersionOf(spec.def));
      await this.install(spec.def, spec.strategy, spec.prefix, {
        subresources: spec.subresources ?? [],
        ...(spec.scale ? { scale: spec.scale } : {}),
        verbs: spec.verbs ?? ALL_VERBS,
        strategicMerge: true,
        encoder: spec.encoder ?? jsonEncoder,
        normalize: (o) => {
          const removed = pruneBuiltin(group, version, spec.def.kind, o);
          omitEmpty(spec.def.kind, o);
          return removed;
        },
        ...(spec.fromStorage ? { fromStorage: spec.fromStorage } : {}),
        ...(spec.toStorage ? { toStorage: spec.toStorage } : {}),
        ...(spec.storageApiVersion ? { storageApiVersion: spec.storageApiVersion } : {}),
        ...(spec.lifecycle ? { lifecycle: spec.lifecycle } : {}),
      });
    }
    const ns = this.lookup("", "v1", "namespaces")!;
    for (const name of SYSTEM_NAMESPACES) {
      const object: KubeObject = { apiVersion: "v1", kind: "Namespace", metadata: { name } };
      try {
        await ns.store.create("", object, write(ns));
      } catch (err) {
        if (!isAlreadyExists(err)) throw err;
      }
    }
  }

  /**
   * Serves `def` from `prefix`, creating or sharing its watch cache. With `freshCache`, a new
   * cache replaces the prefix's existing one (whose entries were decoded, and selectable values
   * computed, another way): the old one keeps serving the versions not reinstalled yet and is
   * closed once none uses it, so requests meanwhile are answered, not 404.
   */
  async install(
    def: ResourceDefinition,
    strategy: Strategy,
    prefix: string,
    extra: InstallOptions,
  ): Promise<ServedResource> {
    let cache = this.#caches.get(prefix);
    const replaced = extra.freshCache ? cache : undefined;
    if (cache === undefined || replaced !== undefined) {
      cache = new WatchCache({
        ...this.#o.watchCache,
        storage: this.storage,
        prefix,
        clock: this.clock,
        turns: this.#turns,
        kind: def.kind,
        apiVersion: extra.storageApiVersion ?? apiVersionOf(def),
        decode: extra.decode ?? decodeFromStorage,
        attrs: (o) => attrsOf(strategy, o),
      });
      this.#caches.set(prefix, cache);
      await cache.start();
    }
    const { subresources, verbs, strategicMerge, custom, scale, freshCache: _, ...store } = extra;
    const served: ServedResource = {
      def,
      store: new Store({
        ...store,
        def,
        storage: this.storage,
        cache,
        prefix,
        strategy,
        clock: this.clock,
        admitNamespace: (ns: string, gr: GroupResource, name: string) =>
          this.#namespaces.admit(ns, gr, name),
        ...(prefix === NAMESPACES_PREFIX
          ? {
              onDeletionWritten: (name: string, rv: number) =>
                this.#namespaces.noteDeletion(name, rv),
            }
          : {}),
      }),
      subresources,
      verbs,
      strategicMerge,
      ...(scale ? { scale } : {}),
      ...(custom ? { custom } : {}),
    };
    this.#served.set(servedKey(def.group, def.version, def.plural), served);
    if (replaced !== undefined && !this.#uses(replaced)) await replaced.close();
    return served;
  }

  /** Stops serving a resource version; closes its cache when no other version uses it. */
  async uninstall(group: string, version: string, plural: string): Promise<void> {
    const served = this.#served.get(servedKey(group, version, plural));
    if (served === undefined) return;
    this.#served.delete(servedKey(group, version, plural));
    const cache = served.store.cache;
    if (this.#uses(cache)) return;
    for (const [prefix, c] of this.#caches) {
      if (c === cache) this.#caches.delete(prefix);
    }
    await cache.close();
  }

  /** The served resource, if any. */
  lookup(group: string, version: string, plural: string): ServedResource | undefined {
    return this.#served.get(servedKey(group, version, plural));
  }

  /** Every served resource. */
  all(): ServedResource[] {
    return [...this.#served.values()];
  }

  /** Every watch cache, by storage prefix (for stats and fault injection). */
  caches(): ReadonlyMap<string, WatchCache> {
    return this.#caches;
  }

  /** Namespace lifecycle admission for a create; see {@link NamespaceAdmission.admit}. */
  admitNamespace(namespace: string, gr: GroupResource, name: string): Promise<void> {
    return this.#namespaces.admit(namespace, gr, name);
  }

  /** Closes every watch cache. Idempotent. */
  async close(): Promise<void> {
    const caches = [...this.#caches.values()];
    this.#caches.clear();
    this.#served.clear();
    await Promise.all(caches.map((c) => c.close()));
  }

  /** True if a served resource reads from `cache`. */
  #uses(cache: WatchCache): boolean {
    return [...this.#served.values()].some((s) => s.store.cache === cache);
  }
}

function servedKey(group: string, version: string, plural: string): string {
  return `${group}/${version}/${plural}`;
}
