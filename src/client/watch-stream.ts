/**
 * A watch response's events, one batch per network read: JSON lines or protobuf frames, each
 * decoded and checked as it completes. An ERROR event ends the stream with its `ApiError`, a bad
 * line or frame with a `DecodeError` — after every good event before it.
 */
import { ApiError, type KubeObject, type WatchEvent } from "../core/index.ts";
import { DecodeError } from "./decode-error.ts";
import { LineSplitter } from "./line-splitter.ts";
import { decodeWatchFrame, FrameSplitter } from "./protobuf-stream.ts";
import type { TransportResponse } from "./transport.ts";
import { checkEvent, decodeWatchLine, type ExpectedKind } from "./watch-decoder.ts";

/** The response of a watch, and what its events must be. */
export interface WatchStream {
  readonly res: TransportResponse;
  readonly path: string;
  readonly expect: ExpectedKind;
  /** The largest line or frame accepted. */
  readonly maxBytes: number;
}

/** The events of a JSON watch (one event per line). */
export function jsonEvents<T extends KubeObject>(
  s: WatchStream,
): AsyncGenerator<readonly WatchEvent<T>[], void, undefined> {
  const splitter = new LineSplitter(s.maxBytes);
  return batches<T, string>(
    s,
    (chunk, out) => splitter.push(chunk, out),
    (line) => decodeWatchLine<T>(line, s.expect),
    () =>
      splitter.pendingBytes > 0
        ? new DecodeError(
            "Truncated",
            `GET ${s.path}: the watch ended inside a line`,
            splitter.pendingText(),
          )
        : undefined,
  );
}

/** The events of a protobuf watch (one length-prefixed WatchEvent frame per event). */
export function protobufEvents<T extends KubeObject>(
  s: WatchStream,
): AsyncGenerator<readonly WatchEvent<T>[], void, undefined> {
  const splitter = new FrameSplitter(s.maxBytes);
  return batches<T, Buffer>(
    s,
    (chunk, out) => splitter.push(chunk, out),
    (frame) => {
      const { type, object } = decodeWatchFrame(frame);
      return checkEvent<T>(type, object, s.expect, () => JSON.stringify(object));
    },
    () =>
      splitter.pendingBytes > 0
        ? new DecodeError("Truncated", `GET ${s.path}: the watch ended inside a frame`)
        : undefined,
  );
}

async function* batches<T extends KubeObject, U>(
  s: WatchStream,
  split: (chunk: Uint8Array, out: U[]) => void,
  decode: (unit: U) => ReturnType<typeof decodeWatchLine<T>>,
  truncated: () => DecodeError | undefined,
): AsyncGenerator<readonly WatchEvent<T>[], void, undefined> {
  const units: U[] = [];
  try {
    for await (const chunk of s.res.body) {
      split(chunk, units);
      if (units.length === 0) continue;
      const batch: WatchEvent<T>[] = [];
      let failure: unknown;
      for (const unit of units) {
        try {
          const event = decode(unit);
          if (event.type === "ERROR") throw new ApiError(event.object);
          batch.push(event);
        } catch (err) {
          failure = err;
          break;
        }
      }
      units.length = 0;
      if (batch.length > 0) yield batch;
      if (failure !== undefined) throw failure;
    }
  } finally {
    s.res.discard();
  }
  const cut = truncated();
  if (cut !== undefined) throw cut;
}
