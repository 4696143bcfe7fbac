import { errors, type GroupResource, type KubeObject } from "../../core/index.ts";
import type { Storage } from "../storage/storage.ts";
import type { WatchCache } from "../watchcache/watch-cache.ts";
import { NAMESPACES_PREFIX } from "./builtin-kinds.ts";
import { decodeFromStorage } from "./codec.ts";

/**
 * Namespace lifecycle admission (kube's NamespaceLifecycle plugin) for creates: the namespace
 * must exist (404) and not be terminating (403 with cause NamespaceTerminating).
 *
 * Like kube's, it reads the namespace from the namespaces' watch cache, and falls back to
 * storage when the cache has not seen it yet (a namespace created an instant ago) and — as
 * kube's live lookup of namespaces it saw deleted — while the cache has not yet seen this
 * server's deletion of it (with etcd, the cache hears of a write after the writer's response).
 *
 * Invariant: `#deletions` holds only deletions in flight — this server's writes of a
 * namespace's deletion the cache had not seen when last looked at.
 */
export class NamespaceAdmission {
  readonly #storage: Storage;
  readonly #cache: () => WatchCache | undefined;
  /** Namespaces this server deleted, by the revision of that write, until the cache saw it. */
  readonly #deletions = new Map<string, number>();

  /** `cache` returns the namespaces' watch cache, once there is one. */
  constructor(storage: Storage, cache: () => WatchCache | undefined) {
    this.#storage = storage;
    this.#cache = cache;
  }

  /** Admits (or refuses) a create of `name` of `gr` in `namespace`. */
  async admit(namespace: string, gr: GroupResource, name: string): Promise<void> {
    const key = `${NAMESPACES_PREFIX}${namespace}`;
    const cache = this.#cache();
    const deletion = this.#deletions.get(namespace);
    let ns: (KubeObject & { status?: { phase?: string } }) | undefined;
    if (deletion === undefined || (cache !== undefined && cache.resourceVersion >= deletion)) {
      if (deletion !== undefined) this.#deletions.delete(namespace);
      ns = cache?.get(key)?.object;
    }
    if (ns === undefined) {
      const kv = await this.#storage.get(key);
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
   * at `rv`: {@link admit} reads it from storage until the cache has caught up. Entries the
   * cache has caught up with are dropped here too.
   */
  noteDeletion(namespace: string, rv: number): void {
    const seen = this.#cache()?.resourceVersion ?? 0;
    for (const [name, at] of this.#deletions) if (at <= seen) this.#deletions.delete(name);
    this.#deletions.set(namespace, rv);
  }
}
