/**
 * Splits a byte stream into `\n`-terminated lines as the chunks arrive. A line is decoded to a
 * string once it is complete; a partial line waits (as slices of the chunks, never copied until
 * it completes) for the rest.
 */
import { DecodeError } from "./decode-error.ts";

/**
 * Incremental line splitter.
 *
 * Invariant: `#pending` holds the bytes after the last `\n` seen, in order; `#pendingBytes` is
 * their total length and never exceeds `maxLineBytes`.
 */
export class LineSplitter {
  readonly #maxLineBytes: number;
  #pending: Buffer[] = [];
  #pendingBytes = 0;

  /** @param maxLineBytes a longer line is an error (`TooLarge`) rather than unbounded memory. */
  constructor(maxLineBytes: number) {
    this.#maxLineBytes = maxLineBytes;
  }

  /** Bytes of an unfinished line held so far. */
  get pendingBytes(): number {
    return this.#pendingBytes;
  }

  /** The unfinished line so far, decoded (for error reports). */
  pendingText(): string {
    return Buffer.concat(this.#pending).toString("utf8", 0, Math.min(this.#pendingBytes, 4096));
  }

  /**
   * Appends every complete, non-blank line of `chunk` (with the partial line before it) to
   * `out`, without the `\n` (and without a trailing `\r`).
   */
  push(chunk: Uint8Array, out: string[]): void {
    const buf = Buffer.isBuffer(chunk)
      ? chunk
      : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    let start = 0;
    let nl = buf.indexOf(10);
    if (this.#pendingBytes > 0 || this.#pending.length > 0) {
      if (nl < 0) {
        this.#hold(buf);
        return;
      }
      this.#pending.push(buf.subarray(0, nl));
      const line = Buffer.concat(this.#pending, this.#pendingBytes + nl).toString("utf8");
      this.#pending = [];
      this.#pendingBytes = 0;
      emit(line, out);
      start = nl + 1;
      nl = buf.indexOf(10, start);
    }
    while (nl >= 0) {
      if (nl > start) emit(buf.toString("utf8", start, nl), out);
      start = nl + 1;
      nl = buf.indexOf(10, start);
    }
    if (start < buf.length) this.#hold(buf.subarray(start));
  }

  #hold(part: Buffer): void {
    this.#pendingBytes += part.length;
    if (this.#pendingBytes > this.#maxLineBytes) {
      const head = this.pendingText();
      this.#pending = [];
      this.#pendingBytes = 0;
      throw new DecodeError(
        "TooLarge",
        `a watch line exceeds ${this.#maxLineBytes} bytes; raise maxLineBytes if objects are this large`,
        head,
      );
    }
    this.#pending.push(part);
  }
}

function emit(line: string, out: string[]): void {
  const end = line.charCodeAt(line.length - 1) === 13 ? line.length - 1 : line.length;
  const text = end === line.length ? line : line.slice(0, end);
  if (text.trim() !== "") out.push(text);
}
