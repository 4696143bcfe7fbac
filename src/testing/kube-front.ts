/**
 * A plain-HTTP loopback front for a kube-apiserver, as `kubectl proxy` is one: it forwards every
 * request over TLS (verifying the server's certificate) and adds the admin's bearer token where
 * the request carries no `Authorization` of its own. It lets a test reach a real kube-apiserver
 * with nothing but a URL, as it reaches the embedded server; the bytes it answers with are
 * kube-apiserver's, streamed as they come (watches included).
 */
import { once } from "node:events";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import { Agent, request } from "node:https";
import type { Socket } from "node:net";

/** A running front from {@link startKubeFront}. */
export interface KubeFront {
  /** `http://127.0.0.1:PORT`. */
  readonly url: string;
  /** Stops listening and ends every connection, open watches included. Idempotent. */
  close(): Promise<void>;
}

export interface KubeFrontOptions {
  /** kube-apiserver's `https://` URL. */
  target: string;
  /** The serving certificate's CA (PEM). */
  ca: string;
  /** Sent as `Authorization: Bearer TOKEN` where the request has none; undefined: nothing added. */
  token: string | undefined;
}

/** Starts a front on a free loopback port. */
export async function startKubeFront(options: KubeFrontOptions): Promise<KubeFront> {
  const target = new URL(options.target);
  const agent = new Agent({ ca: options.ca, keepAlive: true });
  const sockets = new Set<Socket>();
  const forward = (req: IncomingMessage, res: ServerResponse) => {
    const headers = { ...req.headers, host: target.host };
    delete headers.connection;
    if (headers.authorization === undefined && options.token !== undefined) {
      headers.authorization = `Bearer ${options.token}`;
    }
    const up = request(
      {
        hostname: target.hostname,
        port: target.port,
        method: req.method,
        path: req.url,
        headers,
        agent,
      },
      (upRes) => {
        res.writeHead(upRes.statusCode ?? 502, upRes.headers);
        // A watch's headers go out before its first event, as kube-apiserver sends them.
        res.flushHeaders();
        upRes.pipe(res);
        upRes.once("error", () => res.destroy());
      },
    );
    up.once("error", (err) => {
      if (res.headersSent) {
        res.destroy();
        return;
      }
      res.writeHead(502, { "content-type": "text/plain" });
      res.end(`kube-apiserver front: ${err.message}\n`);
    });
    // A client that goes away ends its request upstream (a watch stops there too).
    res.once("close", () => up.destroy());
    req.pipe(up);
  };
  const server = createServer(forward);
  server.on("connection", (socket) => {
    sockets.add(socket);
    socket.once("close", () => sockets.delete(socket));
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const address = server.address();
  if (address === null || typeof address === "string") {
    server.close();
    throw new Error(`kube-apiserver front: the listener reported no port (${String(address)})`);
  }
  let closing: Promise<void> | undefined;
  return {
    url: `http://127.0.0.1:${address.port}`,
    close() {
      closing ??= new Promise<void>((resolve) => {
        server.close(() => resolve());
        for (const socket of sockets) socket.destroy();
        agent.destroy();
      });
      return closing;
    },
  };
}
