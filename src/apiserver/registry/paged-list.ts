import { errors, type KubeObject } from "../../core/index.ts";
import type { KeyValue, Storage } from "../storage/storage.ts";
import { isStorageError } from "../storage/storage-error.ts";
import { CacheEntry, type ObjectAttrs } from "../watchcache/cache-event.ts";
import type { CacheFilter } from "../watchcache/cache-watcher.ts";
import type { WatchCache } from "../watchcache/watch-cache.ts";
import { decodeFromStorage } from "./codec.ts";
import { decodeContinue, encodeContinue } from "./continue-token.ts";
import type { ListQuery, ListResult } from "./types.ts";

/**
 * A paged (or exact-revision) list read from storage, as kube's etcd3 store serves it: every page
 * is read at the first page's revision (the continue token carries it), selectors are applied
 * while reading until `limit` items match, and `remainingItemCount` is given only without
 * selectors. A compacted snapshot is 410 Expired with a token to continue at the latest revision.
 */
export async function listFromStorage(
  storage: Storage,
  prefix: string,
  filter: CacheFilter,
  q: ListQuery,
  attrs: (object: KubeObject) => ObjectAttrs,
  decode: (kv: KeyValue) => KubeObject = decodeFromStorage,
): Promise<ListResult> {
  let revision: number | undefined;
  let startKey = prefix;
  if (q.continue !== undefined) {
    const token = decodeContinue(q.continue);
    revision = token.rv === -1 ? undefined : token.rv;
    startKey = prefix + token.start;
  } else if (q.resourceVersion && q.resourceVersion !== "0") {
    revision = Number(q.resourceVersion);
  }
  const limit = q.limit ?? 0;
  const selecting = !filter.label.empty || !filter.field.empty;
  const items: CacheEntry[] = [];
  let more = false;
  let remaining: number | undefined;
  let listRevision = 0;
  try {
    for (;;) {
      const want = limit > 0 ? limit - items.length : 0;
      const page = await storage.list(prefix, {
        ...(revision === undefined ? {} : { revision }),
        startKey,
        limit: selecting && want > 0 ? Math.max(want, 500) : want,
        countRemaining: !selecting && limit > 0,
      });
      listRevision = page.revision;
      revision = page.revision;
      for (const kv of page.kvs) {
        const object = decode(kv);
        const e = new CacheEntry(kv.key, object, kv.modRevision, attrs(object));
        if (selecting && !matchesFilter(filter, e)) continue;
        if (limit > 0 && items.length === limit) {
          more = true;
          break;
        }
        items.push(e);
      }
      if (!selecting) {
        more = page.more;
        remaining = page.remaining;
        break;
      }
      if (more || !page.more) break;
      startKey = `${page.kvs[page.kvs.length - 1]!.key}\u0000`;
    }
  } catch (err) {
    if (isStorageError(err, "Compacted") || isStorageError(err, "FutureRevision")) {
      if (q.continue !== undefined) {
        throw errors.expired(
          "The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter, or use the continue token in this response to retrieve the remainder of the results. Continuing with the provided token results in an inconsistent list - objects that were created, modified, or deleted between the time the first chunk was returned and now may show up in the list.",
          encodeContinue({ rv: -1, start: startKey.slice(prefix.length) }),
        );
      }
      if (isStorageError(err, "FutureRevision")) {
        throw errors.timeout(
          `Too large resource version: ${q.resourceVersion}, current: ${err.currentRevision}`,
          1,
          "ResourceVersionTooLarge",
        );
      }
      throw errors.expired("The resourceVersion for the provided list is too old.");
    }
    throw err;
  }
  const last = items[items.length - 1];
  return {
    items,
    resourceVersion: listRevision,
    ...(more && last
      ? {
          continue: encodeContinue({
            rv: listRevision,
            start: `${last.key.slice(prefix.length)}\u0000`,
          }),
        }
      : {}),
    ...(more && remaining !== undefined ? { remainingItemCount: remaining } : {}),
  };
}

function matchesFilter(filter: CacheFilter, e: CacheEntry): boolean {
  if (!filter.label.empty && !filter.label.matches(e.attrs.labels)) return false;
  return filter.field.empty || filter.field.matches(e.attrs.fields);
}

/** Where {@link listObjects} reads: a resource's storage prefix and its watch cache. */
export interface ListSource {
  readonly storage: Storage;
  readonly cache: WatchCache;
  /** The prefix to list: the resource's, or one namespace's under it. */
  readonly prefix: string;
  readonly attrs: (object: KubeObject) => ObjectAttrs;
  readonly decode: (kv: KeyValue) => KubeObject;
}

/**
 * A list as kube serves it: from storage for a continue token, an exact resourceVersion or a
 * page (unless NotOlderThan), otherwise from the watch cache once it is fresh enough — the
 * latest revision for resourceVersion "", any state for "0", at least N for N.
 */
export async function listObjects(
  source: ListSource,
  namespace: string,
  q: ListQuery,
  signal?: AbortSignal,
): Promise<ListResult> {
  const filter: CacheFilter = { namespace, label: q.label, field: q.field };
  const rv = q.resourceVersion ?? "";
  const paged = (q.limit ?? 0) > 0 && rv !== "0";
  const exact =
    q.resourceVersionMatch === "Exact" ||
    (rv !== "" && rv !== "0" && paged && q.resourceVersionMatch === undefined);
  if (q.continue !== undefined || exact || (paged && q.resourceVersionMatch !== "NotOlderThan"))
    return listFromStorage(source.storage, source.prefix, filter, q, source.attrs, source.decode);
  const cache = source.cache;
  if (rv === "") await cache.waitUntilFresh(await source.storage.currentRevision(), signal);
  else if (rv !== "0") await cache.waitUntilFresh(Number(rv), signal);
  const { entries, rv: listRv } = cache.list(filter);
  return { items: entries, resourceVersion: listRv };
}
