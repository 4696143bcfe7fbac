/*
 * The decoder's reader of the protobuf wire format: the few reads Kubernetes' messages need
 * (varints, strings, bytes, skipping), over a Buffer view of the bytes. Encoding stays with
 * @bufbuild/protobuf's BinaryWriter; its reader was replaced for what an informer pays for:
 *
 * - Memory it keeps. An informer holds every object it decodes, and most of an object's short
 *   strings are ones it has seen before (label keys and values, "TCP", "Running"). Short strings
 *   are looked up in a table of recent ones and shared, as V8's JSON.parse shares them; the
 *   library's reader made a new string each time (10 000 Pods held 1.19 million strings, 45 MB,
 *   where JSON.parse's held 0.52 million, 29 MB).
 * - Garbage it makes: no array per string, no BigInt per int64, no DataView per reader, no view
 *   per long string (Node decodes UTF-8 from a range of the one Buffer).
 *
 * Errors are the library's: "premature EOF" for a read past the end, "invalid varint".
 */

/** Strings up to this many bytes are shared. */
const SHARED_MAX = 40;
/** The table of shared strings: direct-mapped by a hash of the bytes, a newer string evicting. */
const SLOTS = 8192;
const shared: string[] = new Array<string>(SLOTS).fill("");

/** How deep groups (a wire type Kubernetes never sends, skipped as unknown) may nest. */
const GROUP_DEPTH = 100;

export class WireReader {
  pos = 0;
  /** Where the bytes end. */
  readonly len: number;
  readonly #buf: Buffer;

  constructor(bytes: Uint8Array) {
    this.#buf = Buffer.isBuffer(bytes)
      ? bytes
      : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    this.len = bytes.length;
  }

  #checkBounds(): void {
    if (this.pos > this.len) throw new RangeError("premature EOF");
  }

  /** An unsigned 32-bit varint (a longer one keeps its low 32 bits, as Go's decoders do). */
  uint32(): number {
    const buf = this.#buf;
    let b = buf[this.pos++]!;
    let value = b & 0x7f;
    if (b < 0x80) {
      this.#checkBounds();
      return value;
    }
    for (let shift = 7; shift < 32; shift += 7) {
      b = buf[this.pos++]!;
      value |= (b & 0x7f) << shift;
      if (b < 0x80) {
        this.#checkBounds();
        return value >>> 0;
      }
    }
    // Bytes six to ten carry bits past 32.
    for (let n = 5; n < 10; n++) {
      b = buf[this.pos++]!;
      if (b < 0x80) {
        this.#checkBounds();
        return value >>> 0;
      }
    }
    this.#checkBounds();
    throw new Error("invalid varint");
  }

  int32(): number {
    return this.uint32() | 0;
  }

  bool(): boolean {
    return this.uint32() !== 0;
  }

  /** An `int64` as a number: its two 32-bit halves, the high one signed. */
  int64(): number {
    const buf = this.#buf;
    let low = 0;
    let high = 0;
    let b = 0;
    let done = false;
    // Seven bits a byte, least significant first: four bytes and a nibble fill the low half.
    for (let shift = 0; shift < 28 && !done; shift += 7) {
      b = buf[this.pos++]!;
      low |= (b & 0x7f) << shift;
      done = (b & 0x80) === 0;
    }
    if (!done) {
      b = buf[this.pos++]!;
      low |= (b & 0x0f) << 28;
      high = (b & 0x70) >> 4;
      done = (b & 0x80) === 0;
    }
    for (let shift = 3; shift < 32 && !done; shift += 7) {
      b = buf[this.pos++]!;
      high |= (b & 0x7f) << shift;
      done = (b & 0x80) === 0;
    }
    this.#checkBounds();
    if (!done) throw new Error("invalid varint");
    return (high | 0) * 2 ** 32 + (low >>> 0);
  }

  /** A length-delimited field's bytes (a view, not a copy). */
  bytes(): Buffer {
    const len = this.uint32();
    const start = this.pos;
    this.pos = start + len;
    this.#checkBounds();
    return this.#buf.subarray(start, this.pos);
  }

  /** A `string` field: UTF-8 text, short ASCII ones shared (see above). */
  string(): string {
    const len = this.uint32();
    const start = this.pos;
    const end = start + len;
    this.pos = end;
    this.#checkBounds();
    const buf = this.#buf;
    if (len > SHARED_MAX) return buf.toString("utf8", start, end);
    if (len === 0) return "";
    // The slot from the length and at most five of the bytes (the first two, the middle one, the
    // last two), not all of them: an object's strings differ mostly at their ends
    // ("web-7c9f-x2x4k"), and a hit compares them whole.
    const last = end - 1;
    let hash = Math.imul(len ^ buf[start]!, 0x01000193);
    hash = Math.imul(hash ^ buf[start + (len >> 1)]!, 0x01000193);
    hash = Math.imul(hash ^ buf[last]!, 0x01000193);
    const inner = len > 1 ? buf[start + 1]! | (buf[last - 1]! << 8) : 0;
    hash = Math.imul(hash ^ inner, 0x01000193);
    const slot = (hash ^ (hash >>> 13)) & (SLOTS - 1);
    const known = shared[slot]!;
    if (known.length === len && sameText(known, buf, start)) return known;
    const codes = new Array<number>(len);
    for (let i = 0; i < len; i++) {
      const b = buf[start + i]!;
      if (b > 0x7f) return buf.toString("utf8", start, end);
      codes[i] = b;
    }
    const text = String.fromCharCode.apply(null, codes);
    shared[slot] = text;
    return text;
  }

  /** Skips a field of wire type `wire` (numbered `no`: an end-group tag must match it). */
  skip(wire: number, no: number, depth = GROUP_DEPTH): void {
    switch (wire) {
      case 0:
        this.uint32();
        break;
      case 1:
        this.pos += 8;
        break;
      case 2: {
        const len = this.uint32(); // read before `pos` is: `pos += uint32()` loses the length
        this.pos += len;
        break;
      }
      case 3:
        if (depth <= 0) throw new Error("maximum recursion depth reached");
        for (;;) {
          const key = this.uint32();
          if ((key & 7) === 4) {
            if (key >>> 3 !== no) throw new Error("invalid end group tag");
            break;
          }
          this.skip(key & 7, key >>> 3, depth - 1);
        }
        break;
      case 5:
        this.pos += 4;
        break;
      default:
        throw new Error(`cant skip wire type ${wire}`);
    }
    this.#checkBounds();
  }
}

/** Whether `text` (ASCII) is the bytes at `start`. */
function sameText(text: string, buf: Buffer, start: number): boolean {
  for (let i = 0; i < text.length; i++) {
    if (text.charCodeAt(i) !== buf[start + i]) return false;
  }
  return true;
}
