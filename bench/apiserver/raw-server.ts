/**
 * The raw ceiling: a bare node:http server (node:https with a certificate) that does only what
 * any JSON API server must — parse the request body and serialize a response (a PATCH merges
 * `data` into an object kept in a map) — with none of kontroller's work (no validation, storage,
 * revisions, field managers or watch cache).
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { createServer as createHttpsServer } from "node:https";
import type { AddressInfo } from "node:net";

/** A running raw server. `objects` are what it lists; `watchers` its open watch responses. */
export interface RawServer {
  readonly url: string;
  readonly objects: unknown[];
  /** Sends one event to every open watch, serializing it once per watcher (the naive way). */
  broadcast(object: unknown): number;
  close(): Promise<void>;
}

/** Serves HTTPS with this certificate and key (PEM) when given; plain HTTP otherwise. */
export interface RawTls {
  readonly cert: string;
  readonly key: string;
}

export async function startRawServer(tls?: RawTls): Promise<RawServer> {
  const objects: unknown[] = [];
  const watchers = new Set<ServerResponse>();
  let rv = 1;
  /** What PATCH changes: objects by the last segment of their path. */
  const byName = new Map<string, { metadata: Record<string, unknown>; data?: object }>();
  const handler = (req: IncomingMessage, res: ServerResponse) => {
    if (req.method === "PATCH") {
      // A merge patch of `data`, the least any server must do: parse, merge, serialize.
      const chunks: Buffer[] = [];
      req.on("data", (c: Buffer) => chunks.push(c));
      req.on("end", () => {
        const patch = JSON.parse(Buffer.concat(chunks).toString()) as { data?: object };
        const name = req.url!.slice(req.url!.lastIndexOf("/") + 1);
        const obj = byName.get(name) ?? { metadata: { name } };
        obj.data = { ...obj.data, ...patch.data };
        obj.metadata.resourceVersion = String(++rv);
        byName.set(name, obj);
        const body = JSON.stringify(obj);
        res.writeHead(200, {
          "content-type": "application/json",
          "content-length": Buffer.byteLength(body),
        });
        res.end(body);
      });
      return;
    }
    if (req.method === "POST") {
      const chunks: Buffer[] = [];
      req.on("data", (c: Buffer) => chunks.push(c));
      req.on("end", () => {
        const obj = JSON.parse(Buffer.concat(chunks).toString()) as {
          metadata: Record<string, unknown>;
        };
        obj.metadata.resourceVersion = String(++rv);
        const body = JSON.stringify(obj);
        res.writeHead(201, {
          "content-type": "application/json",
          "content-length": Buffer.byteLength(body),
        });
        res.end(body);
      });
      return;
    }
    if (req.url?.includes("watch=1")) {
      res.writeHead(200, { "content-type": "application/json", "transfer-encoding": "chunked" });
      res.flushHeaders();
      watchers.add(res);
      res.on("close", () => watchers.delete(res));
      return;
    }
    const body = JSON.stringify({
      kind: "ConfigMapList",
      apiVersion: "v1",
      metadata: { resourceVersion: String(rv) },
      items: objects,
    });
    res.writeHead(200, {
      "content-type": "application/json",
      "content-length": Buffer.byteLength(body),
    });
    res.end(body);
  };
  const server: Server =
    tls === undefined ? createServer(handler) : createHttpsServer(tls, handler);
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const { port } = server.address() as AddressInfo;
  return {
    url: `${tls === undefined ? "http" : "https"}://127.0.0.1:${port}`,
    objects,
    broadcast(object) {
      let serializations = 0;
      for (const w of watchers) {
        w.write(`${JSON.stringify({ type: "ADDED", object })}\n`);
        serializations++;
      }
      return serializations;
    },
    async close() {
      for (const w of watchers) w.end();
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}
