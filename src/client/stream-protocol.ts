/**
 * The messages between an {@link HttpTransport} and its stream worker (`stream-worker.ts`), the
 * thread that receives the bodies of streaming requests (watches). Types and constants only, so
 * that both threads share them without loading each other.
 *
 * Flow control is by credit: the worker posts a stream's gathered bytes when it holds the
 * stream's credit — as messages of at most {@link WORKER_MESSAGE_BYTES}, the last one marked
 * `last` — then not again until the main thread has taken that last message from the body's
 * queue (`taken`). Bytes that arrive meanwhile are gathered for the next post, so a busy main
 * thread gets its bytes in few posts and always has the next message queued while it works;
 * past {@link WORKER_PAUSE_BYTES} gathered, the worker stops reading the socket until the credit
 * comes back.
 */

/** What the worker needs to make its own connections: the transport's agent options. */
export interface StreamWorkerConfig {
  readonly keepAliveTimeoutMs: number;
  readonly connect: {
    readonly ca?: string | Uint8Array;
    readonly cert?: string | Uint8Array;
    readonly key?: string | Uint8Array;
    readonly servername?: string;
    readonly rejectUnauthorized?: boolean;
  };
}

/** A streaming request as the worker sends it (headers resolved). */
export interface StreamOpen {
  readonly origin: string;
  readonly method: string;
  readonly path: string;
  readonly headers: Record<string, string>;
  readonly body: string | Uint8Array | null;
  readonly headersTimeoutMs: number;
}

/** Main thread → worker. */
export type ToWorker =
  | ({ readonly type: "open"; readonly id: number } & StreamOpen)
  /** The main thread took the stream's message marked `last`: the worker may send again. */
  | { readonly type: "taken"; readonly id: number }
  /** Stop the stream (aborted or discarded); the worker sends nothing more for it. */
  | { readonly type: "abort"; readonly id: number };

/** Why a request or its body failed, as the worker saw it (see `transportErrorParts`). */
export interface WorkerError {
  readonly code: string;
  readonly message: string;
}

/** Worker → main thread. */
export type FromWorker =
  /** The worker has loaded and takes requests (posted once, first). */
  | { readonly type: "ready"; readonly id: 0 }
  | {
      readonly type: "head";
      readonly id: number;
      readonly status: number;
      readonly headers: Record<string, string | string[] | undefined>;
    }
  /**
   * Body bytes, in order; the buffer is transferred, not copied. `last` marks the last message
   * of a post, whose taking gives the credit back.
   */
  | {
      readonly type: "data";
      readonly id: number;
      readonly bytes: ArrayBuffer;
      readonly last: boolean;
    }
  /** The body ended, completely (no `error`) or not; before `head`, the request failed. */
  | { readonly type: "end"; readonly id: number; readonly error?: WorkerError };

/** Bytes the worker gathers for a stream without credit before it stops reading its socket. */
export const WORKER_PAUSE_BYTES = 4 * 1024 * 1024;

/**
 * The largest data message. Buffers of 128 KiB and more are mapped and unmapped by the
 * allocator each time (glibc's mmap threshold is 128 KiB, allocator header included), and the
 * main thread, which frees them, paid for it in page faults and system time: receiving 43 MB as
 * 128 KiB messages cost the main thread 1.5–1.7 µs per 1.4 KB event, as 64 KiB messages
 * 0.3–0.5 µs (decoding included); as 4 MiB ones, system time alone was 4–10 µs per event.
 */
export const WORKER_MESSAGE_BYTES = 64 * 1024;
