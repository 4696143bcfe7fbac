import type { CacheEntry, CacheEvent } from "./cache-event.ts";

/**
 * What a watch sends before any live event, taken from the cache when the watch starts: the
 * current objects that pass its filter, in key order, then (optionally) the initial-events-end
 * bookmark at the cache's resourceVersion — or the recorded events after the watch's start
 * resourceVersion, in resourceVersion order, still to be filtered. It is a snapshot: later
 * changes to the cache do not touch it, so it can be handed out as slowly as the client reads.
 */
export type WatchBacklog =
  | {
      readonly kind: "initial";
      readonly entries: readonly CacheEntry[];
      /** Where the initial-events-end bookmark goes, if the watch asked for one. */
      readonly endBookmarkRv?: number;
    }
  | { readonly kind: "replay"; readonly events: readonly CacheEvent[] };

/** Most lines a backlog chunk holds (one socket write each). */
export const BACKLOG_CHUNK_LINES = 500;
/** A backlog chunk ends once it holds this many bytes. */
export const BACKLOG_CHUNK_BYTES = 1024 * 1024;

/**
 * The lines `line` gives for `items` (undefined: the watcher does not see that item), taken as
 * they are asked for, in chunks of at most {@link BACKLOG_CHUNK_LINES} lines or about
 * {@link BACKLOG_CHUNK_BYTES}; then `end`'s line (the initial-events-end bookmark) if given.
 * An initial backlog gives each entry's memoized ADDED line, a replay each visible event's.
 */
export function* backlogChunks<T>(
  items: readonly T[],
  line: (item: T) => Buffer | undefined,
  end?: () => Buffer,
): Generator<Buffer[], void, undefined> {
  let chunk: Buffer[] = [];
  let bytes = 0;
  for (const item of items) {
    const l = line(item);
    if (l === undefined) continue;
    chunk.push(l);
    bytes += l.length;
    if (chunk.length >= BACKLOG_CHUNK_LINES || bytes >= BACKLOG_CHUNK_BYTES) {
      yield chunk;
      chunk = [];
      bytes = 0;
    }
  }
  if (end !== undefined) chunk.push(end());
  if (chunk.length > 0) yield chunk;
}
