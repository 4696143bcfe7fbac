import type { IncomingMessage, ServerResponse } from "node:http";
import type { Clock } from "../../core/index.ts";
import type { CacheWatcher } from "../watchcache/cache-watcher.ts";
import { ChunkWriter } from "./chunk-writer.ts";
import { answersInProtobuf, PROTOBUF_WATCH, protobufFrameOfLine } from "./protobuf-wire.ts";

/**
 * Streams a watcher to the client: HTTP 200, chunked, one JSON event per line, headers flushed
 * at once. Each batch of lines is written together (a {@link ChunkWriter} packs a backlog's
 * memoized lines into its reused chunks, a live batch goes as one buffer); while the socket is
 * full the writer waits for it —
 * the backpressure that paces a watcher's backlog — and the watcher's own bounded buffer absorbs
 * live events meanwhile (or, when full, closes the watch as too slow).
 * Ends when the watcher closes (timeout, error event, too slow, cut) or the client goes away.
 * `sent` hears how many events each batch carried.
 */
export async function streamWatch(
  req: IncomingMessage,
  res: ServerResponse,
  watcher: CacheWatcher,
  sent?: (events: number) => void,
): Promise<void> {
  const protobuf = answersInProtobuf(res);
  res.writeHead(200, {
    "Content-Type": protobuf ? PROTOBUF_WATCH : "application/json",
    "Transfer-Encoding": "chunked",
    "Cache-Control": "no-cache, private",
  });
  res.flushHeaders();
  const onClose = () => watcher.close("client");
  req.socket.once("close", onClose);
  res.once("close", onClose);
  const writer = new ChunkWriter(res);
  try {
    for await (const batch of watcher) {
      if (res.destroyed) break;
      // A protobuf watch re-encodes the cache's JSON lines as frames, one per event.
      const lines = protobuf ? batch.map(protobufFrameOfLine) : batch;
      // The backlog goes through the writer's reused chunks; a live batch as it is. Awaited
      // only when the writer has to wait: a live event costs no promise.
      if (watcher.inBacklog) {
        const wrote = writer.write(lines);
        if (wrote !== undefined) await wrote;
        const flushed = writer.flush();
        if (flushed !== undefined) await flushed;
      } else {
        const wrote = writer.writeWhole(lines);
        if (wrote !== undefined) await wrote;
      }
      sent?.(lines.length);
    }
  } finally {
    req.socket.off("close", onClose);
    res.off("close", onClose);
    if (!res.destroyed) res.end();
  }
}

/**
 * The deadline of a watch: `timeoutSeconds` from now, or (as kube) a random point in
 * [minRequestTimeout, 2×minRequestTimeout).
 */
export function watchDeadline(
  clock: Clock,
  timeoutSeconds: number | undefined,
  minRequestTimeoutSeconds: number,
): number {
  const seconds = timeoutSeconds ?? minRequestTimeoutSeconds * (1 + Math.random());
  return clock.now() + seconds * 1000;
}
