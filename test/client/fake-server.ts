/**
 * A tiny scripted HTTP server for the client's wire tests: each request goes to the test's
 * handler, after its body has been read; every request is recorded.
 */
import { once } from "node:events";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

/** A request as the server saw it. */
export interface Seen {
  method: string;
  path: string;
  query: URLSearchParams;
  headers: IncomingMessage["headers"];
  body: string;
}

export type Handler = (
  req: Seen,
  res: ServerResponse,
  raw: IncomingMessage,
) => void | Promise<void>;

export interface FakeServer extends AsyncDisposable {
  readonly url: string;
  readonly port: number;
  readonly requests: Seen[];
  /** Replaces the handler. */
  handle(handler: Handler): void;
  /** Resolves when the server has received `n` requests in total. */
  received(n: number): Promise<void>;
  close(): Promise<void>;
}

/** Starts a server on a free port. */
export async function startFakeServer(handler: Handler = notFound): Promise<FakeServer> {
  let current = handler;
  const requests: Seen[] = [];
  const waiters: { n: number; resolve: () => void }[] = [];
  const server = createServer(async (req, res) => {
    const parts: Buffer[] = [];
    for await (const c of req) parts.push(c as Buffer);
    const url = new URL(req.url ?? "/", "http://x");
    const seen: Seen = {
      method: req.method ?? "",
      path: url.pathname,
      query: url.searchParams,
      headers: req.headers,
      body: Buffer.concat(parts).toString(),
    };
    requests.push(seen);
    for (const w of waiters.filter((w) => requests.length >= w.n)) {
      waiters.splice(waiters.indexOf(w), 1);
      w.resolve();
    }
    try {
      await current(seen, res, req);
    } catch (err) {
      res.destroy(err instanceof Error ? err : new Error(String(err)));
    }
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const port = (server.address() as AddressInfo).port;
  const close = async () => {
    server.closeAllConnections();
    if (server.listening) await new Promise<void>((r) => server.close(() => r()));
  };
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    requests,
    handle(h) {
      current = h;
    },
    received(n) {
      if (requests.length >= n) return Promise.resolve();
      return new Promise((resolve) => waiters.push({ n, resolve }));
    },
    close,
    [Symbol.asyncDispose]: close,
  };
}

/** Answers with a JSON body. */
export function sendJson(
  res: ServerResponse,
  code: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  const text = JSON.stringify(body);
  res.writeHead(code, { "content-type": "application/json", ...headers });
  res.end(text);
}

/** A Status body. */
export function status(
  code: number,
  reason: string,
  message: string,
  extra: Record<string, unknown> = {},
) {
  return {
    kind: "Status",
    apiVersion: "v1",
    metadata: {},
    status: "Failure",
    reason,
    message,
    code,
    ...extra,
  };
}

function notFound(_req: Seen, res: ServerResponse): void {
  sendJson(res, 404, status(404, "NotFound", "no handler"));
}

/**
 * Lets pending promise continuations and I/O callbacks run until `done()` holds (at most
 * `turns` event-loop turns). Waits on the event loop, never on the wall clock.
 */
export async function settle(done: () => boolean, turns = 10_000): Promise<void> {
  for (let i = 0; i < turns; i++) {
    if (done()) return;
    await new Promise((r) => setImmediate(r));
  }
  throw new Error("settle: the condition did not hold");
}
