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
 * The initial ADDED events of `entries` (each entry's line, memoized on it: `line`) in chunks,
 * taken as they are asked for, then `end` (the end bookmark line) if given.
 */
export function* initialChunks(
  entries: readonly CacheEntry[],
  line: (entry: CacheEntry) => Buffer,
  end: (() => Buffer) | undefined,
): Generator<Buffer[], void, undefined> {
  let chunk: Buffer[] = [];
  let bytes = 0;
  for (const entry of entries) {
    const l = line(entry);
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

/**
 * The lines `line` gives for `events` (undefined: the watcher does not see that event), in
 * chunks of at most {@link BACKLOG_CHUNK_LINES} lines or about {@link BACKLOG_CHUNK_BYTES}.
 */
export function* replayChunks(
  events: readonly CacheEvent[],
  line: (event: CacheEvent) => Buffer | undefined,
): Generator<Buffer[], void, undefined> {
  let chunk: Buffer[] = [];
  let bytes = 0;
  for (const event of events) {
    const l = line(event);
    if (l === undefined) continue;
    chunk.push(l);
    bytes += l.length;
    if (chunk.length >= BACKLOG_CHUNK_LINES || bytes >= BACKLOG_CHUNK_BYTES) {
      yield chunk;
      chunk = [];
      bytes = 0;
    }
  }
  if (chunk.length > 0) yield chunk;
}
