import { FieldSelector, LabelSelector } from "../../core/index.ts";
import type { Registry } from "../registry/registry.ts";
import type { CacheWatcher } from "../watchcache/cache-watcher.ts";
import {
  MemoryRbacObjects,
  RBAC_GROUP,
  type RbacObjects,
  type RbacResource,
  type Role,
} from "./rbac/index.ts";

const RESOURCES: readonly RbacResource[] = [
  "roles",
  "clusterroles",
  "rolebindings",
  "clusterrolebindings",
];
const EVERYTHING = { label: LabelSelector.everything(), field: FieldSelector.everything() };

/**
 * The RBAC objects the authorizer decides by, kept in step with the server's watch caches of
 * roles, clusterroles, rolebindings and clusterrolebindings — what kube-apiserver's RBAC
 * authorizer reads from its informers. Each change is applied as the cache hands it over, so a
 * binding takes effect as soon as its watch event is out: before the write's response reaches
 * the client on the memory storage, within the storage's watch latency on etcd (as on kube,
 * where an informer follows storage).
 *
 * Invariant: {@link objects} holds what the four caches held at the last event applied;
 * nothing else writes to it.
 */
export class RbacCache {
  readonly #objects = new MemoryRbacObjects();
  readonly #watchers: CacheWatcher[] = [];
  readonly #loops: Promise<void>[] = [];

  /** The objects, read only: what the authorizer and the escalation checks read. */
  get objects(): RbacObjects {
    return this.#objects;
  }

  /** Loads the current objects of `registry` and follows their changes until {@link close}. */
  start(registry: Registry): void {
    for (const resource of RESOURCES) {
      const served = registry.lookup(RBAC_GROUP, "v1", resource);
      if (served === undefined) throw new Error(`RbacCache: ${resource} are not served`);
      // The initial events are the current objects: one synchronous snapshot, then the changes.
      const watcher = served.store.watch({ filter: EVERYTHING });
      this.#watchers.push(watcher);
      this.#loops.push(this.#follow(resource, watcher));
    }
  }

  async #follow(resource: RbacResource, watcher: CacheWatcher): Promise<void> {
    for await (const lines of watcher) {
      for (const line of lines) {
        const event = JSON.parse(line.toString()) as { type: string; object: Role };
        const meta = event.object.metadata;
        if (event.type === "DELETED") {
          this.#objects.delete(resource, meta?.namespace ?? "", meta?.name ?? "");
        } else if (event.type === "ADDED" || event.type === "MODIFIED") {
          this.#objects.upsert(resource, event.object);
        }
      }
    }
  }

  /** Stops following the caches. Idempotent. */
  async close(): Promise<void> {
    for (const w of this.#watchers) w.close("cache-closed");
    await Promise.all(this.#loops);
  }
}
