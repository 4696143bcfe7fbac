/** Small HTTP helpers for the black-box API server suites (fetch, JSON, watch lines). */

import assert from "node:assert/strict";
import { Agent, fetch as tlsFetch } from "undici";

/** The TLS credentials of the HTTPS test servers {@link call} and {@link watch} reach, by origin. */
const trusted = new Map<string, Agent>();

/**
 * Lets {@link call} and {@link watch} reach the HTTPS server at `url`: verified by `ca`, as the
 * user of the client certificate `cert`/`key`. Returns what forgets it again.
 */
export function trustServer(
  url: string,
  tls: { ca: string; cert: string; key: string },
): () => Promise<void> {
  const origin = new URL(url).origin;
  const agent = new Agent({ connect: tls });
  trusted.set(origin, agent);
  return async () => {
    trusted.delete(origin);
    await agent.close();
  };
}

/** `fetch`, through the credentials {@link trustServer} gave for an HTTPS base. */
function fetchFrom(base: string, url: string, init: RequestInit): Promise<Response> {
  const agent = base.startsWith("https:") ? trusted.get(new URL(base).origin) : undefined;
  if (agent === undefined) return fetch(url, init);
  // undici's Response is the same class as the global one in all a test reads of it.
  return tlsFetch(url, { ...(init as object), dispatcher: agent }) as unknown as Promise<Response>;
}

export interface Reply<T = Record<string, unknown>> {
  status: number;
  headers: Headers;
  body: T;
}

/** Any JSON-ish reply body, read loosely by tests. */
// biome-ignore lint/suspicious/noExplicitAny: tests read replies loosely
export type Loose = any;

/** Sends a request; a JSON body is sent as `application/json` unless told otherwise. */
export async function call(
  base: string,
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<Reply<Loose>> {
  const init: RequestInit = { method, headers: { ...headers } };
  if (body !== undefined) {
    init.body =
      typeof body === "string" || body instanceof Uint8Array
        ? (body as string)
        : JSON.stringify(body);
    (init.headers as Record<string, string>)["content-type"] ??= "application/json";
  }
  const res = await fetchFrom(base, base + path, init);
  const text = await res.text();
  let parsed: unknown = text;
  try {
    parsed = JSON.parse(text);
  } catch {
    // plain text (healthz)
  }
  return { status: res.status, headers: res.headers, body: parsed };
}

/** A configmap body. */
export function configMap(
  name: string,
  extra: Record<string, unknown> = {},
  labels?: Record<string, string>,
) {
  return {
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: { name, ...(labels ? { labels } : {}) },
    data: { k: "v" },
    ...extra,
  };
}

/** An open watch stream: `next()` resolves with the next event, `close()` aborts it. */
export interface WatchStream {
  status: number;
  next(): Promise<Loose | undefined>;
  /** Resolves when the server ends the stream. */
  ended(): Promise<void>;
  close(): void;
}

/** Opens a watch and reads it line by line. */
export async function watch(
  base: string,
  path: string,
  headers: Record<string, string> = {},
): Promise<WatchStream> {
  const ac = new AbortController();
  const res = await fetchFrom(base, base + path, { signal: ac.signal, headers });
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  let buf = "";
  const queue: Loose[] = [];
  let done = false;
  let waiting: (() => void) | undefined;
  let endedResolve: () => void = () => {};
  const endedP = new Promise<void>((r) => {
    endedResolve = r;
  });
  (async () => {
    try {
      for (;;) {
        const { value, done: d } = await reader.read();
        if (d) break;
        buf += decoder.decode(value, { stream: true });
        let nl = buf.indexOf("\n");
        while (nl >= 0) {
          const line = buf.slice(0, nl);
          buf = buf.slice(nl + 1);
          if (line.trim() !== "") queue.push(JSON.parse(line));
          nl = buf.indexOf("\n");
        }
        waiting?.();
      }
    } catch {
      // aborted
    } finally {
      done = true;
      waiting?.();
      endedResolve();
    }
  })();
  return {
    status: res.status,
    async next() {
      while (queue.length === 0 && !done) await new Promise<void>((r) => (waiting = r));
      return queue.shift();
    },
    ended: () => endedP,
    close: () => ac.abort(),
  };
}

const CRDS = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions";

/** Watches the CRD `name` until `done` holds for it; resolves with that state. */
export async function crdUntil(
  url: string,
  name: string,
  done: (o: Loose) => boolean,
): Promise<Loose> {
  const w = await watch(url, `${CRDS}?watch=1&fieldSelector=metadata.name%3D${name}`);
  try {
    for (;;) {
      const e = await w.next();
      assert.ok(e !== undefined, `the watch on ${name} ended`);
      if (done(e.object)) return e.object;
    }
  } finally {
    w.close();
  }
}

/** The condition of `type` in an object's status, if any. */
export const cond = (o: Loose, type: string) =>
  o.status?.conditions?.find((c: { type: string }) => c.type === type);

/**
 * Waits until the server's watch cache of `collection` has seen resourceVersion `rv` (a list
 * at it with NotOlderThan waits for the cache): on etcd the cache hears of a write through
 * etcd's watch, a moment after the write has returned.
 */
export async function seenByCache(url: string, collection: string, rv: string): Promise<void> {
  const r = await call(
    url,
    "GET",
    `${collection}?resourceVersion=${rv}&resourceVersionMatch=NotOlderThan&limit=1`,
  );
  assert.equal(r.status, 200, JSON.stringify(r.body));
}
