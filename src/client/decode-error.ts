/**
 * What the client throws when a response body is not what the API contract promises: a watch
 * line that is not JSON, an event of an unknown type, an object of the wrong kind, a list
 * without a resourceVersion, an answer to a list that is not one, a stream cut in the middle of
 * a line.
 */

/** Why a response could not be decoded. */
export type DecodeErrorReason =
  /** A watch line or list body that is not valid JSON. */
  | "InvalidJSON"
  /** A watch line without a string `type` or without an `object`. */
  | "InvalidEvent"
  /** A watch event whose `type` is none of ADDED, MODIFIED, DELETED, BOOKMARK, ERROR. */
  | "UnknownEventType"
  /** An object whose `kind` or `apiVersion` is not the watched or listed resource's. */
  | "WrongKind"
  /** An object without `metadata.name` or `metadata.resourceVersion`. */
  | "InvalidObject"
  /** A list whose `metadata.resourceVersion` is missing. */
  | "MissingResourceVersion"
  /** An answer to a list that is not a list: no `items` (a single object, a Table, a Status). */
  | "NotAList"
  /** The body ended (or broke off) in the middle of a line or of the list. */
  | "Truncated"
  /** A single watch line or list item larger than the configured limit. */
  | "TooLarge"
  /** A protobuf body, list item or watch frame that is not the message it should be. */
  | "InvalidProtobuf";

/** Offending bytes are cut to this many characters in messages and in {@link DecodeError.sample}. */
export const SAMPLE_LENGTH = 256;

/** Cuts `text` to {@link SAMPLE_LENGTH} characters, saying how much was cut. */
export function sampleOf(text: string): string {
  if (text.length <= SAMPLE_LENGTH) return text;
  return `${text.slice(0, SAMPLE_LENGTH)}… (${text.length - SAMPLE_LENGTH} more characters)`;
}

/**
 * A response body the client could not decode. Nothing of the offending line or item reaches
 * the caller: a watch ends with this error right after the last good event.
 */
export class DecodeError extends Error {
  readonly reason: DecodeErrorReason;
  /** The offending bytes, cut to a sane length. */
  readonly sample: string;

  constructor(reason: DecodeErrorReason, message: string, sample = "", options?: ErrorOptions) {
    const cut = sampleOf(sample);
    super(cut === "" ? message : `${message}: ${cut}`, options);
    this.name = "DecodeError";
    this.reason = reason;
    this.sample = cut;
  }
}

/** True if `err` is a {@link DecodeError}. */
export function isDecodeError(err: unknown): err is DecodeError {
  return err instanceof DecodeError;
}
