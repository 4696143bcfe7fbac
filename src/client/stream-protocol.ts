/**
 * The messages between an {@link HttpTransport} and its stream worker (`stream-worker.ts`), the
 * thread that receives the bodies of streaming requests (watches). Types and constants only, so
 * that both threads share them without loading each other.
 *
 * Flow control is by credit: the worker posts a stream's bytes when it holds the stream's
 * credit, then not again until the main thread has taken that message from the body's queue
 * (`taken`). Bytes that arrive meanwhile are gathered into the next message, so a busy main
 * thread receives few, large messages; past {@link WORKER_PAUSE_BYTES} gathered, the worker
 * stops reading the socket until the credit comes back.
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

/** Main thread → worker. */
export type ToWorker =
  | {
      readonly type: "open";
      readonly id: number;
      readonly origin: string;
      readonly method: string;
      readonly path: string;
      readonly headers: Record<string, string>;
      readonly body: string | Uint8Array | null;
      readonly headersTimeoutMs: number;
    }
  /** The main thread took the stream's last message: the worker may send again. */
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
  /** Body bytes, in order; the buffer is transferred, not copied. */
  | { readonly type: "data"; readonly id: number; readonly bytes: ArrayBuffer }
  /** The body ended, completely (no `error`) or not; before `head`, the request failed. */
  | { readonly type: "end"; readonly id: number; readonly error?: WorkerError };

/** Bytes the worker gathers for a stream without credit before it stops reading its socket. */
export const WORKER_PAUSE_BYTES = 4 * 1024 * 1024;
