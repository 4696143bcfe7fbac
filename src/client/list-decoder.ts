/**
 * A streaming decoder for list bodies (`{"kind":…,"metadata":{…},"items":[{…},{…}]}`): each
 * item is parsed as soon as its closing brace arrives, so a 100 MB list is never held as one
 * buffer or one string. Everything outside `items` (kind, apiVersion, metadata, in any order)
 * is kept as bytes and parsed at the end, with `items` emptied.
 *
 * The scanner tracks only what it must: nesting depth, whether it is inside a string (strings
 * are skipped with `indexOf('"')`, checking the backslashes before each quote) and, at the top
 * level, the last string seen, which is the key of the next array.
 */
import { DecodeError } from "./decode-error.ts";

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const LBRACE = 0x7b;
const RBRACE = 0x7d;
const LBRACKET = 0x5b;
const RBRACKET = 0x5d;

/** Where the scanner is, relative to the top-level `items` array. */
const TOP = 0;
const BETWEEN_ITEMS = 1;
const IN_ITEM = 2;

/** What remains of the list once its items are taken out. */
export interface ListEnvelope {
  readonly kind?: string;
  readonly apiVersion?: string;
  /** Emptied: `[]` (or `null`) when the body had `items`; absent when it had none. */
  readonly items?: unknown;
  readonly metadata?: { resourceVersion?: string; continue?: string; remainingItemCount?: number };
}

/**
 * Incremental list decoder. Feed chunks with {@link push}; each complete item is parsed and
 * passed to `onItem`; {@link end} parses the envelope.
 *
 * Invariants: `#depth` counts the open `{`/`[` outside strings; `#mode` is `IN_ITEM` exactly
 * while an item of the top-level `items` array is open (depth ≥ 3) and `BETWEEN_ITEMS` while
 * the array is open between items (depth 2); `#rest` holds every byte outside the items.
 */
export class ListDecoder {
  readonly #onItem: (text: string) => void;
  readonly #maxItemBytes: number;
  #depth = 0;
  #mode = TOP;
  #inString = false;
  /** Consecutive backslashes just before the resume point of a string scan. */
  #backslashes = 0;
  /** The top-level string being read, and the last one read (the key of the next array). */
  #topString = "";
  #lastTopString = "";
  #rest: Buffer[] = [];
  #item: Buffer[] = [];
  #itemBytes = 0;
  #bytes = 0;

  /**
   * @param onItem receives the JSON text of each item, in order.
   * @param maxItemBytes a larger item is an error (`TooLarge`).
   */
  constructor(onItem: (text: string) => void, maxItemBytes: number) {
    this.#onItem = onItem;
    this.#maxItemBytes = maxItemBytes;
  }

  /** Scans one chunk, emitting the items it completes. */
  push(chunk: Uint8Array): void {
    const buf = Buffer.isBuffer(chunk)
      ? chunk
      : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    const n = buf.length;
    this.#bytes += n;
    let i = 0;
    /** Start of the run of bytes (in this chunk) that belongs to the envelope or the item. */
    let runStart = 0;
    let topStringStart = -1;
    if (this.#inString && this.#depth === 1) topStringStart = 0;
    while (i < n) {
      if (this.#inString) {
        const q = buf.indexOf(QUOTE, i);
        if (q < 0) {
          this.#backslashes = trailingBackslashes(buf, i, n, this.#backslashes);
          i = n;
          break;
        }
        const before = trailingBackslashes(buf, i, q, this.#backslashes);
        this.#backslashes = 0;
        if (before % 2 === 1) {
          i = q + 1;
          continue;
        }
        this.#inString = false;
        if (topStringStart >= 0) {
          this.#lastTopString = this.#topString + buf.toString("latin1", topStringStart, q);
          topStringStart = -1;
        }
        i = q + 1;
        continue;
      }
      const c = buf[i]!;
      if (this.#mode === BETWEEN_ITEMS && c !== LBRACE && c !== RBRACKET && !isSeparator(c)) {
        throw new DecodeError("InvalidJSON", "a list item is not an object");
      }
      if (c === QUOTE) {
        this.#inString = true;
        this.#backslashes = 0;
        if (this.#depth === 1) {
          this.#topString = "";
          topStringStart = i + 1;
        }
      } else if (c === LBRACE || c === LBRACKET) {
        if (this.#mode === BETWEEN_ITEMS) {
          this.#mode = IN_ITEM;
          runStart = i;
        } else if (this.#depth === 1 && c === LBRACKET && this.#lastTopString === "items") {
          this.#rest.push(buf.subarray(runStart, i + 1));
          this.#mode = BETWEEN_ITEMS;
        }
        this.#depth++;
      } else if (c === RBRACE || c === RBRACKET) {
        this.#depth--;
        if (this.#mode === IN_ITEM && this.#depth === 2) {
          this.#emitItem(buf, runStart, i + 1);
          this.#mode = BETWEEN_ITEMS;
        } else if (this.#mode === BETWEEN_ITEMS && this.#depth === 1) {
          this.#mode = TOP;
          runStart = i;
        } else if (this.#depth < 0) {
          throw new DecodeError("InvalidJSON", "the list body has an unbalanced bracket");
        }
      }
      i++;
    }
    if (this.#inString && topStringStart >= 0 && this.#topString.length < 64) {
      this.#topString += buf.toString("latin1", topStringStart, n);
    }
    if (this.#mode === TOP) {
      if (runStart < n) this.#rest.push(buf.subarray(runStart, n));
    } else if (this.#mode === IN_ITEM) {
      this.#item.push(buf.subarray(runStart, n));
      this.#itemBytes += n - runStart;
      if (this.#itemBytes > this.#maxItemBytes) {
        throw new DecodeError(
          "TooLarge",
          `a list item exceeds ${this.#maxItemBytes} bytes; raise the client's maxObjectBytes if objects are this large`,
        );
      }
    }
  }

  /** Bytes scanned so far. */
  get bytes(): number {
    return this.#bytes;
  }

  /** Ends the body: throws `Truncated` if it stopped inside the list, else parses the envelope. */
  end(): ListEnvelope {
    if (this.#depth !== 0 || this.#inString || this.#mode !== TOP) {
      throw new DecodeError(
        "Truncated",
        `the list body ended after ${this.#bytes} bytes, inside the ${this.#mode === TOP ? "envelope" : "items"}`,
      );
    }
    const text = Buffer.concat(this.#rest).toString("utf8");
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch (cause) {
      throw new DecodeError("InvalidJSON", "the list body is not valid JSON", text, { cause });
    }
    if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) {
      throw new DecodeError("InvalidJSON", "the list body is not a JSON object", text);
    }
    return parsed as ListEnvelope;
  }

  #emitItem(buf: Buffer, start: number, end: number): void {
    let text: string;
    if (this.#item.length === 0) {
      text = buf.toString("utf8", start, end);
    } else {
      this.#item.push(buf.subarray(start, end));
      text = Buffer.concat(this.#item).toString("utf8");
      this.#item = [];
      this.#itemBytes = 0;
    }
    this.#onItem(text);
  }
}

/**
 * The number of consecutive backslashes ending at `end` (exclusive) within [from, end); if the
 * whole range is backslashes, `carried` (those before `from`) are added.
 */
function trailingBackslashes(buf: Buffer, from: number, end: number, carried: number): number {
  let j = end - 1;
  while (j >= from && buf[j] === BACKSLASH) j--;
  const run = end - 1 - j;
  return j < from ? run + carried : run;
}

/** Whitespace or the comma between items. */
function isSeparator(c: number): boolean {
  return c === 0x2c || c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;
}
