/**
 * Kubernetes protobuf bodies decoded as they arrive: a list's items one by one (the envelope's
 * raw message is a ListMeta and a run of length-delimited items, each decoded once its bytes are
 * in), and a watch stream's frames (a 4-byte big-endian length, then a bare WatchEvent whose
 * object is an envelope of its own).
 */
import {
  decodeMessage,
  decodeObject,
  kindMessage,
  ProtobufError,
  type ProtoMessage,
  protoMessage,
} from "../resources/index.ts";
import { DecodeError } from "./decode-error.ts";

const MAGIC = [0x6b, 0x38, 0x73, 0x00] as const;
const LIST_META = protoMessage("k8s.io.apimachinery.pkg.apis.meta.v1.ListMeta")!;
const WATCH_EVENT = protoMessage("k8s.io.apimachinery.pkg.apis.meta.v1.WatchEvent")!;

/** A varint at `at` in `buf`: its value and where it ends, or undefined if it is not all in. */
function varint(buf: Buffer, at: number): [number, number] | undefined {
  let value = 0;
  let scale = 1;
  for (let i = at; i < buf.length; i++) {
    const b = buf[i]!;
    value += (b & 0x7f) * scale;
    if (b < 0x80) return [value, i + 1];
    scale *= 128;
    if (i - at > 9) throw new DecodeError("InvalidProtobuf", "a varint runs past 10 bytes");
  }
  return undefined;
}

type ListMeta = NonNullable<ProtobufListEnvelope["metadata"]>;

/** What a protobuf list's envelope said, besides its items. */
export interface ProtobufListEnvelope {
  apiVersion?: string;
  kind?: string;
  metadata?: { resourceVersion?: string; continue?: string; remainingItemCount?: number };
  items: true;
}

/**
 * Incremental decoder of a protobuf list body. `onItem` hears each item, decoded, with the
 * list's item kind and apiVersion set (the items of a typed list carry none on the wire).
 *
 * Invariant: `#pending` holds the body's bytes from offset `#offset` on that no field has been
 * decoded from yet; `#rawEnd` is the offset where the envelope's raw message ends once its
 * length is known (-1 before).
 */
export class ProtobufListDecoder {
  readonly #onItem: (item: Record<string, unknown>) => void;
  readonly #maxItemBytes: number;
  #pending: Buffer = Buffer.alloc(0);
  #offset = 0;
  #rawEnd = -1;
  #item: ProtoMessage | undefined;
  readonly #envelope: ProtobufListEnvelope = { items: true };

  constructor(onItem: (item: Record<string, unknown>) => void, maxItemBytes: number) {
    this.#onItem = onItem;
    this.#maxItemBytes = maxItemBytes;
  }

  push(chunk: Uint8Array): void {
    const bytes = Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    this.#pending = this.#pending.length === 0 ? bytes : Buffer.concat([this.#pending, bytes]);
    this.#drain();
  }

  /**
   * The envelope, once the body has ended; throws if it ended inside a field, or between two
   * before the end of the raw message (its length says more items were to come).
   */
  end(): ProtobufListEnvelope {
    if (
      this.#pending.length > 0 ||
      this.#offset < 4 ||
      this.#rawEnd < 0 ||
      this.#offset < this.#rawEnd
    ) {
      throw new DecodeError("Truncated", "the protobuf list ended inside its envelope or an item");
    }
    return this.#envelope;
  }

  #drain(): void {
    let at = 0;
    const buf = this.#pending;
    if (this.#offset === 0) {
      if (buf.length < 4) return;
      if (!MAGIC.every((b, i) => buf[i] === b)) {
        throw new DecodeError("InvalidProtobuf", "the list does not start with k8s\\0");
      }
      at = 4;
    }
    for (;;) {
      const tag = varint(buf, at);
      if (tag === undefined) break;
      const [key, afterTag] = tag;
      const field = Math.floor(key / 8);
      if (key % 8 !== 2)
        throw new DecodeError("InvalidProtobuf", `field ${field} is not length-delimited`);
      const len = varint(buf, afterTag);
      if (len === undefined) break;
      const [length, start] = len;
      const inRaw = this.#rawEnd >= 0 && this.#offset + at < this.#rawEnd;
      if (!inRaw && field === 2) {
        // The envelope's raw message: its fields follow, decoded one by one.
        this.#rawEnd = this.#offset + start + length;
        at = start;
        continue;
      }
      if (length > this.#maxItemBytes) {
        throw new DecodeError(
          "TooLarge",
          `a list item of ${length} bytes is over the limit of ${this.#maxItemBytes}`,
        );
      }
      if (inRaw && this.#offset + start + length > this.#rawEnd) {
        throw new DecodeError("InvalidProtobuf", "a list item runs past the end of the list");
      }
      if (start + length > buf.length) break;
      this.#field(inRaw, field, buf.subarray(start, start + length));
      at = start + length;
    }
    this.#offset += at;
    this.#pending = buf.subarray(at);
  }

  #field(inRaw: boolean, field: number, bytes: Buffer): void {
    try {
      if (!inRaw) {
        if (field === 1) this.#typeMeta(bytes);
        return;
      }
      if (field === 1) this.#envelope.metadata = decodeMessage(bytes, LIST_META) as ListMeta;
      else if (field === 2) {
        const item = this.#item;
        if (item === undefined) throw new ProtobufError("an item before the list's type meta");
        const kind = this.#envelope.kind!.slice(0, -"List".length);
        this.#onItem({
          kind,
          apiVersion: this.#envelope.apiVersion,
          ...decodeMessage(bytes, item),
        });
      }
    } catch (err) {
      if (!(err instanceof ProtobufError)) throw err;
      throw new DecodeError(
        "InvalidProtobuf",
        `a protobuf list could not be decoded: ${err.message}`,
      );
    }
  }

  #typeMeta(bytes: Buffer): void {
    const meta = decodeMessage(bytes, protoMessage("k8s.io.apimachinery.pkg.runtime.TypeMeta")!);
    const apiVersion = String(meta.apiVersion ?? "");
    const kind = String(meta.kind ?? "");
    this.#envelope.apiVersion = apiVersion;
    this.#envelope.kind = kind;
    // A list's field 2 is its repeated items; another kind's (a Pod's spec) is not.
    const items = kindMessage(apiVersion, kind)?.byNumber[2];
    if (!kind.endsWith("List") || items?.repeated !== true || items.message === undefined) {
      throw new ProtobufError(`${kind} in ${apiVersion} is not a list with a protobuf message`);
    }
    this.#item = items.message;
  }
}

/**
 * Splits a protobuf watch stream into frames as the chunks arrive.
 *
 * Invariant: `#pending` holds the bytes after the last whole frame.
 */
export class FrameSplitter {
  readonly #maxFrameBytes: number;
  /** The unfinished frame's bytes so far (its length prefix first), in arrival order. */
  #parts: Buffer[] = [];
  #partsBytes = 0;

  constructor(maxFrameBytes: number) {
    this.#maxFrameBytes = maxFrameBytes;
  }

  /** Bytes of an unfinished frame held so far. */
  get pendingBytes(): number {
    return this.#partsBytes;
  }

  /**
   * Appends every whole frame (without its length) the stream holds now to `out`. Only a frame
   * that straddles chunks is copied together; the others are views into their chunk.
   */
  push(chunk: Uint8Array, out: Buffer[]): void {
    let buf = Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    if (this.#partsBytes > 0) {
      const head = this.#head(buf);
      if (head === undefined) return;
      const need = 4 + this.#length(head) - this.#partsBytes;
      if (buf.length < need) {
        this.#hold(buf);
        return;
      }
      const frame = Buffer.concat([...this.#parts, buf.subarray(0, need)]);
      out.push(frame.subarray(4));
      this.#parts = [];
      this.#partsBytes = 0;
      buf = buf.subarray(need);
    }
    while (buf.length >= 4) {
      const length = this.#length(buf);
      if (buf.length < 4 + length) break;
      out.push(buf.subarray(4, 4 + length));
      buf = buf.subarray(4 + length);
    }
    if (buf.length > 0) this.#hold(buf);
  }

  /** The held frame's first 4 bytes, completed from `buf` if need be (undefined: not yet). */
  #head(buf: Buffer): Buffer | undefined {
    const first = this.#parts[0]!;
    if (first.length >= 4) return first;
    const head = Buffer.concat([first, buf.subarray(0, 4 - first.length)]);
    if (head.length < 4) {
      this.#hold(buf);
      return undefined;
    }
    return head;
  }

  /**
   * Holds `buf` as the next part of the unfinished frame. Parts are joined only while the first
   * is shorter than a length prefix, so that the prefix is always in the first part.
   */
  #hold(buf: Buffer): void {
    this.#parts.push(buf);
    this.#partsBytes += buf.length;
    if (this.#parts[0]!.length < 4 && this.#parts.length > 1) {
      this.#parts = [Buffer.concat(this.#parts, this.#partsBytes)];
    }
  }

  /** A frame's length from its prefix; TooLarge past the limit, before its bytes arrive. */
  #length(prefix: Buffer): number {
    const length = prefix.readUInt32BE(0);
    if (length > this.#maxFrameBytes) {
      throw new DecodeError(
        "TooLarge",
        `a watch frame of ${length} bytes is over the limit of ${this.#maxFrameBytes}`,
      );
    }
    return length;
  }
}

/** A watch frame's event: its type and object (an ERROR's object is a Status). */
export function decodeWatchFrame(frame: Buffer): { type: string; object: Record<string, unknown> } {
  try {
    const event = decodeMessage(frame, WATCH_EVENT);
    const object = event.object;
    // An empty type is none: Go's decoder gives "" for a type the frame lacks.
    if (
      typeof event.type !== "string" ||
      event.type === "" ||
      typeof object !== "object" ||
      object === null
    ) {
      throw new ProtobufError("a watch frame without a type or an object");
    }
    return { type: event.type, object: object as Record<string, unknown> };
  } catch (err) {
    if (!(err instanceof ProtobufError)) throw err;
    throw new DecodeError("InvalidProtobuf", `a watch frame could not be decoded: ${err.message}`);
  }
}

/** A whole protobuf object body (a get's, a write's, an error's Status). */
export function decodeProtobufBody(bytes: Buffer, what: string): Record<string, unknown> {
  try {
    return decodeObject(bytes);
  } catch (err) {
    if (!(err instanceof ProtobufError)) throw err;
    throw new DecodeError(
      "InvalidProtobuf",
      `the answer to ${what} is not valid protobuf: ${err.message}`,
    );
  }
}
