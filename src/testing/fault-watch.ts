/**
 * The fault proxy's watches: what it keeps of each, and how a chunk is forwarded and a watch
 * ended (cleanly, by reset, or mid-line).
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import type { CutMode, ProxiedRequest } from "./fault-rules.ts";

/** A watch forwarded by the proxy, and what its faults hold. */
export interface OpenWatch {
  readonly req: ProxiedRequest;
  readonly res: ServerResponse;
  readonly upstream: IncomingMessage | undefined;
  stalled: boolean;
  /** Bytes after the last newline forwarded (a line in transit). */
  partial: Buffer;
  /** Lines forwarded (counted only while `endAfterLines` is finite); the watch ends at the limit. */
  lines: number;
  endAfterLines: number;
  /** Lines to write at the next line boundary. */
  inject: string[];
  /** Sends what a stall held back. */
  flush: () => void;
  /** Complete lines a stall holds back (newlines in the held chunks). */
  heldLines: number;
}

/** Bytes of the blocks a stalled watch's held chunks are merged into. */
export const HOLD_BLOCK_BYTES = 1024 * 1024;

/**
 * Forwards a chunk of a watch line by line, honouring `endAfterLines`: at the limit it calls
 * `end` and forwards nothing more of the chunk.
 */
export function passChunk(w: OpenWatch, chunk: Buffer, end: () => void): void {
  if (w.inject.length === 0 && w.endAfterLines === Number.POSITIVE_INFINITY) {
    // Nothing to do between lines: forward the chunk whole, remembering a line in transit.
    w.res.write(chunk);
    const last = chunk.lastIndexOf(10);
    w.partial = last < 0 ? Buffer.concat([w.partial, chunk]) : chunk.subarray(last + 1);
    return;
  }
  let start = 0;
  for (let nl = chunk.indexOf(10); nl >= 0; nl = chunk.indexOf(10, start)) {
    w.res.write(chunk.subarray(start, nl + 1));
    start = nl + 1;
    w.partial = Buffer.alloc(0);
    for (const line of w.inject.splice(0)) w.res.write(`${line}\n`);
    if (++w.lines >= w.endAfterLines) {
      end();
      return;
    }
  }
  if (start < chunk.length) {
    const rest = chunk.subarray(start);
    w.partial = Buffer.concat([w.partial, rest]);
    w.res.write(rest);
  }
}

/** Ends a watch's streams: cleanly, by reset, or mid-line (a truncated event). */
export function endWatchStream(w: OpenWatch, mode: CutMode): void {
  w.upstream?.destroy();
  if (mode === "reset") {
    w.res.socket?.destroy();
    return;
  }
  if (mode === "truncate")
    w.res.write(w.partial.length > 0 ? "" : '{"type":"MODIFIED","object":{"kind":');
  w.res.end();
}

/** The number of `\n` bytes in `chunk`. */
export function countNewlines(chunk: Buffer): number {
  let n = 0;
  for (let i = chunk.indexOf(10); i >= 0; i = chunk.indexOf(10, i + 1)) n++;
  return n;
}
