/**
 * One streaming request in the stream worker: gathers its body bytes and posts them to the main
 * thread under the credit rule of `stream-protocol.ts`.
 */
import type { Dispatcher } from "undici";
import { type FromWorker, WORKER_MESSAGE_BYTES, WORKER_PAUSE_BYTES } from "./stream-protocol.ts";
import { transportErrorParts } from "./transport.ts";

/**
 * One streaming request's body on its way to the main thread.
 *
 * Invariants: `#gathered` holds the bytes received and not yet posted, in order, `#gatheredBytes`
 * their length; `data` messages are posted only with credit (which the post spends), except the
 * last ones before `end`, and never hold more than {@link WORKER_MESSAGE_BYTES};
 * the socket is paused only while the bytes gathered exceed {@link WORKER_PAUSE_BYTES}; after
 * `end` (or an abort from the main thread) nothing more is posted for the stream.
 */
export class WorkerStream {
  readonly id: number;
  readonly #post: (message: FromWorker, transfer?: ArrayBuffer[]) => void;
  readonly #onDone: () => void;
  #controller: Dispatcher.DispatchController | undefined;
  #gathered: Buffer[] = [];
  #gatheredBytes = 0;
  #credit = true;
  #done = false;

  /**
   * @param post sends a message to the main thread.
   * @param onDone called once, when the stream ends or is aborted.
   */
  constructor(
    id: number,
    post: (message: FromWorker, transfer?: ArrayBuffer[]) => void,
    onDone: () => void,
  ) {
    this.id = id;
    this.#post = post;
    this.#onDone = onDone;
  }

  /** The request started: its controller (pause, resume, abort). */
  started(controller: Dispatcher.DispatchController): void {
    this.#controller = controller;
  }

  /** Body bytes arrived. */
  data(chunk: Buffer): void {
    if (this.#done) return;
    this.#gathered.push(chunk);
    this.#gatheredBytes += chunk.length;
    if (this.#credit) this.#flush();
    else if (this.#gatheredBytes > WORKER_PAUSE_BYTES && !this.#controller!.paused)
      this.#controller!.pause();
  }

  /** The main thread took the message marked last: post what gathered meanwhile, read on. */
  taken(): void {
    if (this.#done) return;
    this.#credit = true;
    if (this.#gatheredBytes > 0) this.#flush();
  }

  /** The body ended: what is gathered goes out first, then the end. */
  end(error?: unknown): void {
    if (this.#done) return;
    if (this.#gatheredBytes > 0) this.#flush();
    this.#done = true;
    this.#onDone();
    this.#post(
      error === undefined
        ? { type: "end", id: this.id }
        : { type: "end", id: this.id, error: transportErrorParts(error) },
    );
  }

  /** The main thread is done with the stream. */
  abort(): void {
    if (this.#done) return;
    this.#done = true;
    this.#onDone();
    this.#gathered = [];
    this.#controller?.abort(new Error("the stream was closed by its reader"));
  }

  /**
   * Posts every gathered byte, in messages of {@link WORKER_MESSAGE_BYTES} (the last one may be
   * shorter, and is marked) copied into buffers that are transferred; spends the credit.
   */
  #flush(): void {
    const parts = this.#gathered;
    let left = this.#gatheredBytes;
    this.#gathered = [];
    this.#gatheredBytes = 0;
    this.#credit = false;
    let i = 0;
    let offset = 0; // into parts[i]
    while (left > 0) {
      const size = Math.min(left, WORKER_MESSAGE_BYTES);
      const view = new Uint8Array(size);
      for (let at = 0; at < size; ) {
        const part = parts[i]!;
        const n = Math.min(part.length - offset, size - at);
        view.set(part.subarray(offset, offset + n), at);
        at += n;
        offset += n;
        if (offset === part.length) {
          i++;
          offset = 0;
        }
      }
      left -= size;
      const bytes = view.buffer as ArrayBuffer;
      this.#post({ type: "data", id: this.id, bytes, last: left === 0 }, [bytes]);
    }
    if (this.#controller?.paused) this.#controller.resume();
  }
}
