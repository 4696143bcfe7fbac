/**
 * Splits a byte stream into `\n`-terminated lines as the chunks arrive. The complete lines of a
 * chunk are decoded to one string, which is then cut into lines; a partial line waits (as slices
 * of the chunks, never copied until it completes) for the rest.
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
    if (buf.length === 0) return;
    const last = buf.lastIndexOf(10);
    if (last < 0) {
      this.#hold(buf);
      return;
    }
    let start = 0;
    if (this.#pendingBytes > 0 || this.#pending.length > 0) {
      const nl = buf.indexOf(10);
      this.#pending.push(buf.subarray(0, nl));
      const line = Buffer.concat(this.#pending, this.#pendingBytes + nl).toString("utf8");
      this.#pending = [];
      this.#pendingBytes = 0;
      emit(line, 0, line.length, out);
      start = nl + 1;
    }
    // The complete lines are decoded with one call, then cut: `\n` never occurs inside a
    // multi-byte character, and a slice of a string shares its characters rather than copying.
    if (last > start) {
      const text = buf.toString("utf8", start, last);
      let from = 0;
      let nl = text.indexOf("\n");
      while (nl >= 0) {
        if (nl > from) emit(text, from, nl, out);
        from = nl + 1;
        nl = text.indexOf("\n", from);
      }
      if (text.length > from) emit(text, from, text.length, out);
    }
    if (last + 1 < buf.length) this.#hold(buf.subarray(last + 1));
  }

  #hold(part: Buffer): void {
    this.#pendingBytes += part.length;
    if (this.#pendingBytes > this.#maxLineBytes) {
      const head = this.pendingText();
      this.#pending = [];
      this.#pendingBytes = 0;
      throw new DecodeError(
        "TooLarge",
        `a watch line exceeds ${this.#maxLineBytes} bytes; raise the client's maxObjectBytes if objects are this large`,
        head,
      );
    }
    this.#pending.push(part);
  }
}

/** Appends `text[from, end)` to `out`, without a trailing `\r`, unless it is blank. */
function emit(text: string, from: number, end: number, out: string[]): void {
  if (text.charCodeAt(end - 1) === 13) end--;
  if (end <= from) return;
  // A JSON object line starts with `{`: the common case needs no blank check.
  if (text.charCodeAt(from) === 123) {
    out.push(from === 0 && end === text.length ? text : text.slice(from, end));
    return;
  }
  const line = text.slice(from, end);
  if (line.trim() !== "") out.push(line);
}
