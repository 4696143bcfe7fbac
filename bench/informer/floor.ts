/**
 * The floor: the least any informer must do to hand out the objects of a watch, measured in the
 * same run as the informers so that a bar no implementation could meet on this machine shows as
 * such. It opens one raw TCP connection for a streaming list (`sendInitialEvents`, then the watch
 * goes on), undoes the chunked framing, decodes UTF-8, splits lines, `JSON.parse`s each event's
 * object (only the object, as kontroller's decoder does), files it in a `Map` by name and calls
 * the handler. It checks nothing, keeps no history, never reconnects, and does not buffer for
 * its handler: not an informer, a lower bound on one's cost.
 */
import net from "node:net";
import { StringDecoder } from "node:string_decoder";
import type { ConfigMap } from "kontroller/resources";
import type { Peer } from "./peers.ts";

const OBJECT_FIELD = '"object":';
const BOOKMARK_PREFIX = '{"type":"BOOKMARK"';
const DELETED_PREFIX = '{"type":"DELETED"';
const INITIAL_EVENTS_END = "k8s.io/initial-events-end";

/** The floor for the ConfigMaps of `namespace` on the server at `url`; synced at the end bookmark. */
export const floorPeer: Peer = (url, namespace, handler) => {
  let socket: net.Socket | undefined;
  return {
    start() {
      const { hostname, port, host } = new URL(url);
      const path =
        `/api/v1/namespaces/${namespace}/configmaps?watch=true&sendInitialEvents=true` +
        "&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true";
      return new Promise<void>((resolve, reject) => {
        const cache = new Map<string, ConfigMap>();
        const body = new ChunkedBody();
        const lines = new LineSplitter();
        const s = net.connect(Number(port), hostname, () => {
          s.write(`GET ${path} HTTP/1.1\r\nHost: ${host}\r\nAccept: application/json\r\n\r\n`);
        });
        socket = s;
        const fail = (err: Error) => {
          s.destroy();
          reject(err);
        };
        s.on("error", fail);
        // After the sync this rejects nothing: the watch just ends (the floor never reconnects).
        s.on("close", () => reject(new Error("the floor's watch closed before it synced")));
        s.on("data", (bytes: Buffer) => {
          try {
            for (const line of lines.push(body.push(bytes))) {
              const object = JSON.parse(
                line.slice(line.indexOf(OBJECT_FIELD) + OBJECT_FIELD.length, -1),
              );
              if (line.startsWith(BOOKMARK_PREFIX)) {
                if (object.metadata.annotations?.[INITIAL_EVENTS_END] === "true") resolve();
              } else if (line.startsWith(DELETED_PREFIX)) {
                cache.delete(object.metadata.name);
              } else {
                cache.set(object.metadata.name, object);
                handler(object);
              }
            }
          } catch (err) {
            fail(err instanceof Error ? err : new Error(String(err)));
          }
        });
      });
    },
    async stop() {
      socket?.destroy();
    },
  };
};

/**
 * Undoes HTTP/1.1 chunked framing as the bytes arrive, across any split: `push` returns the
 * body's text so far (UTF-8, a character split between reads completed by the next). The
 * response head is skipped; a status other than 200 throws.
 */
export class ChunkedBody {
  #head: Buffer | undefined = Buffer.alloc(0);
  /** Framing bytes (a chunk-size line) split between reads. */
  #framing: Buffer = Buffer.alloc(0);
  /** Bytes of the current chunk's data still to come. */
  #left = 0;
  readonly #utf8 = new StringDecoder("utf8");

  push(bytes: Buffer): string {
    let b = bytes;
    if (this.#head !== undefined) {
      const head = Buffer.concat([this.#head, b]);
      const end = head.indexOf("\r\n\r\n");
      if (end < 0) {
        this.#head = head;
        return "";
      }
      const status = head.toString("latin1", 0, head.indexOf("\r\n"));
      if (!status.startsWith("HTTP/1.1 200")) throw new Error(`the floor's watch got ${status}`);
      this.#head = undefined;
      b = head.subarray(end + 4);
    }
    if (this.#framing.length > 0) {
      b = Buffer.concat([this.#framing, b]);
      this.#framing = Buffer.alloc(0);
    }
    let text = "";
    let at = 0;
    while (at < b.length) {
      if (this.#left > 0) {
        const n = Math.min(this.#left, b.length - at);
        text += this.#utf8.write(b.subarray(at, at + n));
        at += n;
        this.#left -= n;
        continue;
      }
      // Framing: a chunk-size line, or the empty line (CRLF) that ends a chunk's data.
      const eol = b.indexOf(10, at);
      if (eol < 0) {
        this.#framing = b.subarray(at);
        break;
      }
      const size = b.toString("latin1", at, eol).trim();
      at = eol + 1;
      if (size !== "") this.#left = Number.parseInt(size, 16);
    }
    return text;
  }
}

/** Splits text into lines across pushes (a line split between pushes is completed by the next). */
export class LineSplitter {
  #carry = "";

  push(text: string): string[] {
    const all = this.#carry + text;
    const out: string[] = [];
    let from = 0;
    for (let nl = all.indexOf("\n"); nl >= 0; nl = all.indexOf("\n", from)) {
      out.push(all.slice(from, nl));
      from = nl + 1;
    }
    this.#carry = all.slice(from);
    return out;
  }
}
