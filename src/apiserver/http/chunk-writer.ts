import type { ServerResponse } from "node:http";

/** Bytes of each of a writer's two chunk buffers: the size of one socket write. */
export const CHUNK_BYTES = 1024 * 1024;

/** Pieces totalling less than this go out as one small copy, without a chunk buffer. */
const SMALL_BYTES = 64 * 1024;

/**
 * Writes a response body made of many small pieces (memoized JSON of objects, line by line) as
 * large chunks, copied into two buffers that it owns and reuses: one is filled while the other
 * is being written. A body of any size therefore allocates and encodes nothing per chunk — a
 * streaming list or list of 100 000 objects used to build and encode its whole size again for
 * every request, which was most of what drove the server's major collections.
 *
 * Invariants:
 * - A buffer is filled only while no write of it is outstanding: its write's callback (the
 *   bytes are in the kernel) or the response's close releases it.
 * - Pieces reach the response in the order given. {@link write} may keep the tail of what it
 *   was given in the current buffer (a list fills whole chunks); {@link flush} sends it.
 * - At most two chunks are outstanding: a writer that needs a buffer while both are waits for
 *   the older one — the backpressure that holds a writer whose reader does not read.
 */
export class ChunkWriter {
  readonly #res: ServerResponse;
  readonly #buffers: [Buffer, Buffer] | [] = [];
  /** The outstanding write of each buffer, if any. */
  readonly #busy: [Promise<void> | undefined, Promise<void> | undefined] = [undefined, undefined];
  readonly #closed: Promise<void>;
  #current: 0 | 1 = 0;
  #offset = 0;

  constructor(res: ServerResponse) {
    this.#res = res;
    this.#closed = new Promise((resolve) => {
      if (res.destroyed) resolve();
      else res.once("close", () => resolve());
    });
  }

  /**
   * Writes `pieces` in order after everything written before, waiting while both buffers are
   * being written; what fills no whole chunk stays in the current buffer until more comes or
   * {@link flush}. The array may be reused once it is done; the buffers must never change (a
   * small batch or a piece larger than a chunk is written as it is, not copied). Returns a
   * promise only when it has to wait (the common case of a live event does not), so that a
   * server with many watchers pays no promise per event.
   */
  write(pieces: readonly Buffer[]): Promise<void> | undefined {
    if (this.#res.destroyed) return undefined;
    let total = 0;
    for (const p of pieces) total += p.length;
    if (total === 0) return undefined;
    if (total < SMALL_BYTES && this.#offset === 0) {
      // A live event or a handful: one write, as it comes; no buffer to wait for.
      return this.#direct(pieces.length === 1 ? pieces[0]! : Buffer.concat(pieces, total));
    }
    return this.#copy(pieces);
  }

  /**
   * Writes `pieces` as one buffer of their own, after everything written before — not through
   * the reused chunks, which a writer allocates only for the bulk bodies {@link write} is for: a
   * live watcher that fell behind sends a large batch now and then, and a thousand such watchers
   * must not each pin two chunks. A promise only when it has to wait for the socket.
   */
  writeWhole(pieces: readonly Buffer[]): Promise<void> | undefined {
    if (this.#res.destroyed || pieces.length === 0) return undefined;
    const flushed = this.flush();
    const bytes = pieces.length === 1 ? pieces[0]! : Buffer.concat(pieces);
    if (flushed === undefined) return this.#direct(bytes);
    return flushed.then(() => this.#direct(bytes));
  }

  /** Sends what the current buffer holds; a promise only when it has to wait. */
  flush(): Promise<void> | undefined {
    return this.#offset === 0 ? undefined : this.#flush();
  }

  async #copy(pieces: readonly Buffer[]): Promise<void> {
    for (const piece of pieces) {
      if (piece.length > CHUNK_BYTES - this.#offset) {
        await this.#flush();
        if (this.#res.destroyed) return;
        if (piece.length > CHUNK_BYTES) {
          await this.#direct(piece);
          continue;
        }
      }
      this.#buffer().set(piece, this.#offset);
      this.#offset += piece.length;
    }
  }

  /** The buffer being filled, allocated on first use. */
  #buffer(): Buffer {
    if (this.#buffers.length === 0) {
      (this.#buffers as Buffer[]).push(
        Buffer.allocUnsafeSlow(CHUNK_BYTES),
        Buffer.allocUnsafeSlow(CHUNK_BYTES),
      );
    }
    return this.#buffers[this.#current]!;
  }

  /** Writes the filled part of the current buffer, then waits until the other one is free. */
  async #flush(): Promise<void> {
    if (this.#offset === 0) return;
    const i = this.#current;
    const chunk = this.#buffer().subarray(0, this.#offset);
    this.#busy[i] = new Promise<void>((resolve) => {
      this.#res.write(chunk, () => resolve());
    });
    this.#current = i === 0 ? 1 : 0;
    this.#offset = 0;
    const other = this.#busy[this.#current];
    if (other !== undefined) {
      await Promise.race([other, this.#closed]);
      this.#busy[this.#current] = undefined;
    }
  }

  /** Writes `bytes` that the caller keeps unchanged; a promise of the drain if it must wait. */
  #direct(bytes: Buffer): Promise<void> | undefined {
    return this.#res.write(bytes) ? undefined : drained(this.#res);
  }
}

/**
 * Resolves once `res` can take more: on 'drain' or 'close' — or at once if it no longer needs to
 * drain (or is gone) by the time the listeners are in place, so that a 'drain' that came before
 * them (or none coming, for a response that was already flushed or destroyed) cannot leave the
 * writer waiting for ever.
 */
function drained(res: ServerResponse): Promise<void> {
  return new Promise<void>((resolve) => {
    const done = () => {
      res.off("drain", done);
      res.off("close", done);
      resolve();
    };
    res.once("drain", done);
    res.once("close", done);
    if (res.destroyed || res.writableEnded || !res.writableNeedDrain) done();
  });
}
