import type { ServerResponse } from "node:http";
import { BinaryWriter, WireType } from "@bufbuild/protobuf/wire";
import { errors } from "../../core/index.ts";
import {
  compactMessage,
  decodeMessage,
  encodeEnvelope,
  encodeMessage,
  encodeObject,
  hasProtobufMagic,
  kindMessage,
  ProtobufError,
  type ProtoMessage,
  protoMessage,
  readEnvelope,
} from "../../resources/index.ts";

/*
 * Kubernetes protobuf on the server's wire (`application/vnd.kubernetes.protobuf`): request
 * bodies of built-in kinds decoded into the JSON objects the server holds, and — for a response
 * whose client negotiated protobuf — objects, lists, Statuses and watch events encoded as kube
 * encodes them. Custom resources stay JSON, as in kube.
 */

export const PROTOBUF = "application/vnd.kubernetes.protobuf";
export const PROTOBUF_WATCH = "application/vnd.kubernetes.protobuf;stream=watch";

/**
 * The responses whose client negotiated protobuf. Set once the request's Accept header is
 * negotiated; everything written after it — the object, the list, a watch's frames, an error's
 * Status — goes out in protobuf. Weak: a response is forgotten with its request.
 */
const protobufResponses = new WeakSet<ServerResponse>();

/** From now on `res` answers in protobuf. */
export function answerInProtobuf(res: ServerResponse): void {
  protobufResponses.add(res);
}

/** True once `res` answers in protobuf. */
export function answersInProtobuf(res: ServerResponse): boolean {
  return protobufResponses.has(res);
}

/** The kind an endpoint takes, which a body's envelope may leave out. */
export interface ProtobufTarget {
  readonly apiVersion: string;
  readonly kind: string;
}

/** The first 30 bytes of a body in hex, as kube quotes a body it cannot read. */
function quoted(body: Buffer): string {
  if (body.length === 0) return "<empty>";
  return `${body.subarray(0, 30).toString("hex")}${body.length > 30 ? " ..." : ""}`;
}

/**
 * A protobuf request body as the JSON object a JSON body would have been, in kube's words where
 * it is not one (400): an envelope that cannot be read is "unrecognized", quoting the body's
 * first bytes; a message that cannot be decoded "cannot be handled as" the endpoint's kind. An
 * envelope without apiVersion or kind is the endpoint's; a kind the table lacks is returned with
 * only its type, for the caller's type check to refuse. A field number the message lacks is
 * skipped, as kube's decoder skips it (with any fieldValidation).
 */
export function decodeProtobufBody(body: Buffer, target: ProtobufTarget): Record<string, unknown> {
  let envelope: ReturnType<typeof readEnvelope>;
  try {
    if (!hasProtobufMagic(body)) {
      throw new ProtobufError(
        body.length === 0
          ? "empty data"
          : "provided data does not appear to be a protobuf message, expected prefix [107 56 115 0]",
      );
    }
    if (body.length === 4) throw new ProtobufError("empty body");
    envelope = readEnvelope(body);
  } catch (err) {
    if (!(err instanceof ProtobufError)) throw err;
    throw errors.badRequest(
      `the object provided is unrecognized (must be of type ${target.kind}): ${err.message} (${quoted(body)})`,
    );
  }
  const apiVersion = envelope.apiVersion || target.apiVersion;
  const kind = envelope.kind || target.kind;
  const message = kindMessage(apiVersion, kind);
  if (message === undefined) return { apiVersion, kind };
  try {
    // Without the zeros decoding writes as Go's JSON does: the body a JSON client sends.
    return { apiVersion, kind, ...compactMessage(decodeMessage(envelope.raw, message), message) };
  } catch (err) {
    if (!(err instanceof ProtobufError)) throw err;
    const version = apiVersion.slice(apiVersion.indexOf("/") + 1);
    throw errors.badRequest(
      `${kind} in version ${JSON.stringify(version)} cannot be handled as a ${target.kind}: ${err.message}`,
    );
  }
}

/** An object in its envelope; a JSON text is parsed first. */
export function protobufBody(body: unknown): Uint8Array {
  const object =
    typeof body === "string" || Buffer.isBuffer(body) ? JSON.parse(String(body)) : body;
  return encodeObject(object as Record<string, unknown>);
}

const LIST_META = protoMessage("k8s.io.apimachinery.pkg.apis.meta.v1.ListMeta")!;

/**
 * Each stored object's message bytes (without envelope), kept as long as the object is: a
 * stored object is never mutated (see watchcache/cache-event.ts), so its bytes never change,
 * and a list encodes each object once whatever the number of lists that send it.
 */
const messageBytes = new WeakMap<object, Uint8Array>();

/** A list item: tag 2, its length, its message (memoized per stored object). */
function itemField(item: object, message: ProtoMessage): Uint8Array[] {
  let bytes = messageBytes.get(item);
  if (bytes === undefined) {
    bytes = encodeMessage(item as Record<string, unknown>, message);
    messageBytes.set(item, bytes);
  }
  return [new BinaryWriter().tag(2, WireType.LengthDelimited).uint32(bytes.length).finish(), bytes];
}

/**
 * A list of stored built-in objects in its envelope (kind `…List`): the list metadata, then
 * each item's message, the items' own apiVersion and kind left out as kube's typed lists leave
 * them.
 */
export function protobufList(
  apiVersion: string,
  listKind: string,
  metadata: Record<string, unknown>,
  items: readonly object[],
): Uint8Array {
  const message = kindMessage(apiVersion, listKind)?.byNumber[2]?.message;
  if (message === undefined)
    throw new Error(`${listKind} in ${apiVersion} has no protobuf message`);
  const meta = encodeMessage(metadata, LIST_META);
  const head = new BinaryWriter().tag(1, WireType.LengthDelimited).uint32(meta.length).finish();
  return encodeEnvelope(apiVersion, listKind, [
    head,
    meta,
    ...items.flatMap((i) => itemField(i, message)),
  ]);
}

const FRAME_HEADER = 4;

const WATCH_EVENT = protoMessage("k8s.io.apimachinery.pkg.apis.meta.v1.WatchEvent")!;

/**
 * One watch event as kube's protobuf watch stream writes it: a 4-byte big-endian length, then a
 * bare `WatchEvent` message (no envelope of its own) whose `object` holds the event's object in
 * its envelope.
 */
function protobufWatchFrame(type: string, object: Record<string, unknown>): Buffer {
  const event = encodeMessage({ type, object: encodeObject(object) }, WATCH_EVENT);
  const frame = Buffer.allocUnsafe(FRAME_HEADER + event.length);
  frame.writeUInt32BE(event.length, 0);
  frame.set(event, FRAME_HEADER);
  return frame;
}

/**
 * The frame of each watch line the watch cache memoizes (an object's ADDED line, shared by every
 * watcher and streaming list): its protobuf frame is built once too.
 */
const frames = new WeakMap<Buffer, Buffer>();

/** A JSON watch line (`{"type":…,"object":…}\n`) as its protobuf frame. */
export function protobufFrameOfLine(line: Buffer): Buffer {
  let frame = frames.get(line);
  if (frame === undefined) {
    const { type, object } = JSON.parse(line.toString("utf8")) as {
      type: string;
      object: Record<string, unknown>;
    };
    frame = protobufWatchFrame(type, object);
    frames.set(line, frame);
  }
  return frame;
}
