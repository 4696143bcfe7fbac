/**
 * The compatibility suite's wire: one request sent to one backend, its reply read whole (a watch
 * until the server ends it at `timeoutSeconds`). Only the status, the Content-Type and the body
 * are kept; every other header differs between servers for reasons no client relies on.
 */
import { decodeObject, encodeObject } from "kontroller/resources";
import { Agent, request } from "undici";

/** Kubernetes protobuf's media type. */
export const PROTOBUF = "application/vnd.kubernetes.protobuf";

/** A request of a scenario step, as sent. */
export interface CompatRequest {
  readonly method: string;
  readonly path: string;
  /**
   * A JSON value (sent as JSON); a string (sent as is, for malformed bodies and YAML); bytes (a
   * protobuf body, sent as they are).
   */
  readonly body?: unknown;
  /** @default "application/json" where there is a body */
  readonly contentType?: string;
  /** @default "application/json" */
  readonly accept?: string;
  /** A watch: the body is a stream of events, read until the server closes it. */
  readonly watch?: boolean;
}

/** A reply, as received. */
export interface CompatReply {
  readonly status: number;
  /** The Content-Type header, or "" where there is none. */
  readonly contentType: string;
  /**
   * Parsed JSON; a watch's events as an array; text that is not JSON as a string; a protobuf
   * body decoded to its JSON.
   */
  readonly body: unknown;
  /**
   * Of a protobuf body: whether the codec, encoding what it decoded, writes the very bytes the
   * server sent.
   */
  readonly protobufReencoded?: boolean;
}

/** One server the suite talks to. */
export interface Backend {
  /** "kube-apiserver" or "embedded" (a self-test runs two embedded servers). */
  readonly name: string;
  send(req: CompatRequest): Promise<CompatReply>;
  close(): Promise<void>;
}

/** The user agent of every request: servers derive the default field manager from it. */
const USER_AGENT = "kontroller-compat/1.0";

/** How long one request may take; a watch ends after one second on a working server. */
const REQUEST_TIMEOUT_MS = 20_000;

/** A backend at `url`; `token` and `ca` for the HTTPS kube-apiserver. */
export function httpBackend(
  name: string,
  url: string,
  auth: { token?: string; ca?: string } = {},
  close: () => Promise<void> = async () => {},
): Backend {
  const dispatcher = new Agent({
    ...(auth.ca === undefined ? {} : { connect: { ca: auth.ca } }),
    headersTimeout: REQUEST_TIMEOUT_MS,
    bodyTimeout: REQUEST_TIMEOUT_MS,
  });
  return {
    name,
    async send(req) {
      const headers: Record<string, string> = {
        accept: req.accept ?? "application/json",
        "user-agent": USER_AGENT,
      };
      if (auth.token !== undefined) headers.authorization = `Bearer ${auth.token}`;
      let body: string | Uint8Array | undefined;
      if (req.body !== undefined) {
        body =
          typeof req.body === "string" || req.body instanceof Uint8Array
            ? req.body
            : JSON.stringify(req.body);
        headers["content-type"] = req.contentType ?? "application/json";
      }
      const res = await request(url + req.path, {
        method: req.method as "GET",
        headers,
        body,
        dispatcher,
      });
      const bytes = Buffer.from(await res.body.arrayBuffer());
      const contentType = String(res.headers["content-type"] ?? "");
      if (contentType === PROTOBUF && !req.watch) {
        return { status: res.statusCode, contentType, ...decodeProtobuf(bytes) };
      }
      const text = bytes.toString("utf8");
      return {
        status: res.statusCode,
        contentType,
        body: req.watch && res.statusCode === 200 ? watchEvents(text) : parse(text),
      };
    },
    async close() {
      await dispatcher.close();
      await close();
    },
  };
}

function decodeProtobuf(bytes: Buffer): { body: unknown; protobufReencoded: boolean } {
  try {
    const body = decodeObject(bytes);
    return { body, protobufReencoded: Buffer.from(encodeObject(body)).equals(bytes) };
  } catch (err) {
    return { body: `undecodable protobuf: ${String(err)}`, protobufReencoded: false };
  }
}

function parse(text: string): unknown {
  if (text === "") return "";
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** A watch stream's lines, each one JSON event. */
function watchEvents(text: string): unknown[] {
  return text
    .split("\n")
    .filter((line) => line.trim() !== "")
    .map(parse);
}
