import {
  type Clock,
  errors,
  type GroupResource,
  type KubeObject,
  realClock,
} from "../../core/index.ts";
import {
  apiVersionOf,
  configMaps,
  deployments,
  events,
  eventsV1,
  leases,
  namespaces,
  nodes,
  pods,
  type ResourceDefinition,
  secrets,
  serviceAccounts,
  services,
} from "../../resources/index.ts";
import { builtinType } from "../managedfields/builtin-schema.ts";
import { crdType } from "../managedfields/crd-schema.ts";
import { FieldManager } from "../managedfields/field-manager.ts";
import type { JsonObject } from "../managedfields/schema.ts";
import type { VersionView } from "../managedfields/updater.ts";
import type { Storage } from "../storage/storage.ts";
import { jsonEncoder, type WatchEncoder } from "../watchcache/cache-event.ts";
import { WatchCache, type WatchCacheOptions } from "../watchcache/watch-cache.ts";
import { decodeFromStorage } from "./codec.ts";
import { pruneBuiltin } from "./known-fields.ts";
import { attrsOf, Store, type StoreOptions } from "./store.ts";
import {
  configMapStrategy,
  secretStrategy,
  serviceAccountStrategy,
  serviceStrategy,
} from "./strategies/core.ts";
import {
  eventFromV1,
  eventStrategy,
  eventToV1,
  eventV1Strategy,
  leaseStrategy,
} from "./strategies/events-leases.ts";
import { namespaceStrategy, SYSTEM_NAMESPACES } from "./strategies/namespace.ts";
import { nodeStrategy } from "./strategies/node.ts";
import { deploymentStrategy, podStrategy } from "./strategies/workloads.ts";
import type { Strategy } from "./strategy.ts";

/** A resource as the HTTP layer serves it. */
export interface ServedResource {
  readonly def: ResourceDefinition;
  readonly store: Store;
  /** Subresources besides the resource itself: `status`, `scale`, `finalize`. */
  readonly subresources: readonly string[];
  /** The verbs discovery lists. */
  readonly verbs: readonly string[];
  /** Patch types accepted (custom resources refuse strategic merge patch). */
  readonly strategicMerge: boolean;
  /** For custom resources: the CRD's printer columns and scale paths. */
  readonly custom?: CustomResourceInfo;
}

/** A CRD version's `additionalPrinterColumns` entry. */
export interface PrinterColumn {
  name: string;
  type: string;
  format?: string;
  description?: string;
  priority?: number;
  jsonPath: string;
}

/** What the HTTP layer needs to know about a custom resource beyond its store. */
export interface CustomResourceInfo {
  readonly printerColumns: readonly PrinterColumn[];
  readonly scale?: {
    specReplicasPath: string;
    statusReplicasPath: string;
    labelSelectorPath?: string;
  };
  /** The version's schema (for OpenAPI). */
  readonly schema?: unknown;
  /** The CRD's storage version (discovery's storageVersionHash is computed from it). */
  readonly storageVersion: string;
  /**
   * The CRD is being deleted: creates are refused (405) and discovery lists only the verbs
   * that read or delete, while its custom resources are removed.
   */
  readonly terminating?: boolean;
  /** Set for a deprecated version: the text of the warning every request to it gets. */
  readonly deprecationWarning?: string;
}

/** Options of {@link Registry}. */
export interface RegistryOptions {
  readonly storage: Storage;
  /** @default realClock */
  readonly clock?: Clock;
  /** Options for every watch cache (history sizes, watcher buffers, bookmark period). */
  readonly watchCache?: Partial<
    Omit<
      WatchCacheOptions,
      "storage" | "prefix" | "decode" | "attrs" | "kind" | "apiVersion" | "clock"
    >
  >;
}

/** Verbs of a resource with every operation. */
export const ALL_VERBS = [
  "create",
  "delete",
  "deletecollection",
  "get",
  "list",
  "patch",
  "update",
  "watch",
];

/**
 * The verbs of a subresource, as discovery lists them and the HTTP layer allows them:
 * `finalize` is only replaced, `binding` only created (POST), the others (`status`, `scale`)
 * read, patched and replaced.
 */
export function subresourceVerbs(subresource: string): readonly string[] {
  if (subresource === "finalize") return ["update"];
  if (subresource === "binding") return ["create"];
  return ["get", "patch", "update"];
}

/** The kind a subresource's requests carry, when it is not the resource's own. */
export function subresourceKind(subresource: string): string | undefined {
  if (subresource === "binding") return "Binding";
  return undefined;
}

interface BuiltinSpec {
  def: ResourceDefinition;
  strategy: Strategy;
  prefix: string;
  subresources?: string[];
  verbs?: string[];
  encoder?: WatchEncoder;
  fromStorage?: (o: KubeObject) => KubeObject;
  toStorage?: (o: KubeObject) => KubeObject;
  storageApiVersion?: string;
}

/** Where namespaces are stored. */
const NAMESPACES_PREFIX = "/registry/namespaces/";

/**
 * Every resource the server serves, by group, version and plural: the built-in kinds from the
 * start, custom resources as their CRDs are established. One watch cache per storage prefix,
 * shared by the versions served from it.
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
  /** Namespaces this server deleted, by the revision of that write, until the cache saw it. */
  readonly #namespaceDeletions = new Map<string, number>();
  #started = false;

  constructor(options: RegistryOptions) {
    this.#o = options;
    this.storage = options.storage;
    this.clock = options.clock ?? realClock;
  }

  /** Starts the built-in resources' caches and creates the system namespaces. */
  async start(): Promise<void> {
    if (this.#started) return;
    this.#started = true;
    const specs = builtinSpecs();
    for (const spec of specs) {
      await this.install(spec.def, spec.strategy, spec.prefix, {
        fieldManager: this.#builtinFieldManager(spec, specs),
        subresources: spec.subresources ?? [],
        verbs: spec.verbs ?? ALL_VERBS,
        strategicMerge: true,
        encoder: spec.encoder ?? jsonEncoder,
        normalize: (o) => pruneBuiltin(spec.def.kind, o),
        ...(spec.fromStorage ? { fromStorage: spec.fromStorage } : {}),
        ...(spec.toStorage ? { toStorage: spec.toStorage } : {}),
        ...(spec.storageApiVersion ? { storageApiVersion: spec.storageApiVersion } : {}),
      });
    }
    const nsStore = this.lookup("", "v1", "namespaces")!.store;
    for (const name of SYSTEM_NAMESPACES) {
      try {
        await nsStore.create("", { apiVersion: "v1", kind: "Namespace", metadata: { name } });
      } catch (err) {
        if (!(err instanceof Error && (err as { reason?: string }).reason === "AlreadyExists"))
          throw err;
      }
    }
  }

  /**
   * The field manager of a built-in resource: its kind's schema (deduced but for metadata when
   * the models table has none — events.k8s.io/v1 Events), and views of the other versions
   * stored under the same prefix, converted through the stored form.
   */
  #builtinFieldManager(spec: BuiltinSpec, all: readonly BuiltinSpec[]): FieldManager {
    const typeOf = (s: BuiltinSpec) =>
      (s.fromStorage ? undefined : builtinType(s.def.kind)) ?? crdType(undefined);
    const id = (o: KubeObject) => o;
    const views = new Map<string, VersionView>();
    for (const other of all) {
      if (other === spec || other.prefix !== spec.prefix) continue;
      const toStored = spec.toStorage ?? id;
      const fromStored = spec.fromStorage ?? id;
      views.set(apiVersionOf(other.def), {
        type: typeOf(other),
        toVersion: (o) => (other.fromStorage ?? id)(toStored(o)) as JsonObject,
        fromVersion: (o) => fromStored((other.toStorage ?? id)(o)) as JsonObject,
      });
    }
    return new FieldManager({
      apiVersion: apiVersionOf(spec.def),
      kind: spec.def.kind,
      type: typeOf(spec),
      views: (v) => views.get(v),
      statusSubresource: spec.strategy.statusSubresource ?? false,
      clock: this.clock,
    });
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
    extra: Pick<ServedResource, "subresources" | "verbs" | "strategicMerge"> &
      Partial<Pick<ServedResource, "custom">> &
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
          | "fieldManager"
        >
      > & { readonly freshCache?: boolean },
  ): Promise<ServedResource> {
    let cache = this.#caches.get(prefix);
    const replaced = extra.freshCache ? cache : undefined;
    if (cache === undefined || replaced !== undefined) {
      cache = new WatchCache({
        ...this.#o.watchCache,
        storage: this.storage,
        prefix,
        clock: this.clock,
        kind: def.kind,
        apiVersion: extra.storageApiVersion ?? apiVersionOf(def),
        decode: extra.decode ?? decodeFromStorage,
        attrs: (o) => attrsOf(strategy, o),
      });
      this.#caches.set(prefix, cache);
      await cache.start();
    }
    const store = new Store({
      def,
      storage: this.storage,
      cache,
      prefix,
      strategy,
      clock: this.clock,
      encoder: extra.encoder,
      admitNamespace: (ns, gr, name) => this.admitNamespace(ns, gr, name),
      ...(prefix === NAMESPACES_PREFIX
        ? { onDeletionWritten: (name: string, rv: number) => this.#noteNamespaceDeletion(name, rv) }
        : {}),
      ...(extra.fromStorage ? { fromStorage: extra.fromStorage } : {}),
      ...(extra.toStorage ? { toStorage: extra.toStorage } : {}),
      ...(extra.storageApiVersion ? { storageApiVersion: extra.storageApiVersion } : {}),
      ...(extra.validate ? { validate: extra.validate } : {}),
      ...(extra.normalize ? { normalize: extra.normalize } : {}),
      ...(extra.decode ? { decode: extra.decode } : {}),
      fieldManager:
        extra.fieldManager ??
        new FieldManager({
          apiVersion: apiVersionOf(def),
          kind: def.kind,
          type: builtinType(def.kind) ?? crdType(undefined),
          statusSubresource: strategy.statusSubresource ?? false,
          clock: this.clock,
        }),
    });
    const served: ServedResource = {
      def,
      store,
      subresources: extra.subresources,
      verbs: extra.verbs,
      strategicMerge: extra.strategicMerge,
      ...(extra.custom ? { custom: extra.custom } : {}),
    };
    this.#served.set(servedKey(def.group, def.version, def.plural), served);
    if (
      replaced !== undefined &&
      ![...this.#served.values()].some((s) => s.store.cache === replaced)
    )
      await replaced.close();
    return served;
  }

  /** Stops serving a resource version; closes its cache when no other version uses it. */
  async uninstall(group: string, version: string, plural: string): Promise<void> {
    const served = this.#served.get(servedKey(group, version, plural));
    if (served === undefined) return;
    this.#served.delete(servedKey(group, version, plural));
    const cache = served.store.cache;
    if ([...this.#served.values()].some((s) => s.store.cache === cache)) return;
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

  /**
   * Namespace lifecycle admission for a create: the namespace must exist (404) and not be
   * terminating (403 with cause NamespaceTerminating).
   */
  async admitNamespace(namespace: string, gr: GroupResource, name: string): Promise<void> {
    // Like kube's lifecycle admission, read the namespace from the cache; fall back to storage
    // when the cache has not seen it yet (a namespace created an instant ago), and — as kube's
    // live lookup of namespaces it saw deleted — while the cache has not yet seen this server's
    // deletion of it (with etcd, the cache hears of a write after the writer's response).
    const key = `${NAMESPACES_PREFIX}${namespace}`;
    const cache = this.#caches.get(NAMESPACES_PREFIX);
    const deletion = this.#namespaceDeletions.get(namespace);
    let ns: (KubeObject & { status?: { phase?: string } }) | undefined;
    if (deletion === undefined || (cache !== undefined && cache.resourceVersion >= deletion)) {
      if (deletion !== undefined) this.#namespaceDeletions.delete(namespace);
      ns = cache?.get(key)?.object;
    }
    if (ns === undefined) {
      const kv = await this.storage.get(key);
      if (kv === undefined) throw errors.notFound({ group: "", resource: "namespaces" }, namespace);
      ns = decodeFromStorage(kv);
    }
    if (ns.metadata?.deletionTimestamp || ns.status?.phase === "Terminating") {
      throw errors.forbidden(
        gr,
        name,
        `unable to create new content in namespace ${namespace} because it is being terminated`,
        [
          {
            reason: "NamespaceTerminating",
            message: `namespace ${namespace} is being terminated`,
            field: "metadata.namespace",
          },
        ],
      );
    }
  }

  /**
   * Notes that this server wrote the deletion of `namespace` (marked Terminating, or removed)
   * at `rv`: {@link admitNamespace} reads it from storage until the cache has caught up. Entries
   * the cache has caught up with are dropped here too, so the map holds only deletions in flight.
   */
  #noteNamespaceDeletion(namespace: string, rv: number): void {
    const seen = this.#caches.get(NAMESPACES_PREFIX)?.resourceVersion ?? 0;
    for (const [name, at] of this.#namespaceDeletions)
      if (at <= seen) this.#namespaceDeletions.delete(name);
    this.#namespaceDeletions.set(namespace, rv);
  }

  /** Closes every watch cache. Idempotent. */
  async close(): Promise<void> {
    const caches = [...this.#caches.values()];
    this.#caches.clear();
    this.#served.clear();
    await Promise.all(caches.map((c) => c.close()));
  }
}

function servedKey(group: string, version: string, plural: string): string {
  return `${group}/${version}/${plural}`;
}

const eventsV1Encoder: WatchEncoder = Object.freeze({
  id: "events.k8s.io/v1",
  encode: (o: KubeObject) => JSON.stringify(eventToV1(o)),
});

function builtinSpecs(): BuiltinSpec[] {
  const specs: BuiltinSpec[] = [
    {
      def: namespaces,
      strategy: namespaceStrategy,
      prefix: NAMESPACES_PREFIX,
      subresources: ["status", "finalize"],
      verbs: ALL_VERBS.filter((v) => v !== "deletecollection"),
    },
    { def: configMaps, strategy: configMapStrategy, prefix: "/registry/configmaps/" },
    { def: secrets, strategy: secretStrategy, prefix: "/registry/secrets/" },
    {
      def: services,
      strategy: serviceStrategy,
      prefix: "/registry/services/specs/",
      subresources: ["status"],
      verbs: ALL_VERBS.filter((v) => v !== "deletecollection"),
    },
    {
      def: serviceAccounts,
      strategy: serviceAccountStrategy,
      prefix: "/registry/serviceaccounts/",
    },
    {
      def: pods,
      strategy: podStrategy,
      prefix: "/registry/pods/",
      subresources: ["status", "binding"],
    },
    {
      def: nodes,
      strategy: nodeStrategy,
      prefix: "/registry/minions/",
      subresources: ["status"],
    },
    { def: events, strategy: eventStrategy, prefix: "/registry/events/" },
    {
      def: eventsV1,
      strategy: eventV1Strategy,
      prefix: "/registry/events/",
      encoder: eventsV1Encoder,
      fromStorage: eventToV1,
      toStorage: eventFromV1,
      storageApiVersion: "v1",
    },
    { def: leases, strategy: leaseStrategy, prefix: "/registry/leases/" },
    {
      def: deployments,
      strategy: deploymentStrategy,
      prefix: "/registry/deployments/",
      subresources: ["status"],
    },
  ];
  // The CRD resource is installed by the CRD controller, which owns its strategy.
  return specs;
}
