/**
 * A TCP proxy to inject network faults between one API server and etcd: `cut()` drops every
 * connection and refuses new ones (the server is cut off while etcd runs on for others),
 * `restore()` lets connections through again.
 */
import { once } from "node:events";
import { connect, createServer, type Server, type Socket } from "node:net";

export interface TcpProxy extends AsyncDisposable {
  /** `http://127.0.0.1:PORT`, to give as the etcd endpoint. */
  readonly url: string;
  /** Drops every connection and refuses new ones until {@link restore}. */
  cut(): void;
  restore(): void;
  close(): Promise<void>;
}

/** Starts a proxy to `target` (`http://host:port`) on a free loopback port. */
export async function startTcpProxy(target: string): Promise<TcpProxy> {
  const { hostname, port } = new URL(target);
  const sockets = new Set<Socket>();
  let open = true;
  const track = (s: Socket) => {
    sockets.add(s);
    s.once("close", () => sockets.delete(s));
  };
  const server: Server = createServer((client) => {
    track(client);
    if (!open) {
      client.destroy();
      return;
    }
    const upstream = connect(Number(port), hostname);
    track(upstream);
    client.pipe(upstream).pipe(client);
    const drop = () => {
      client.destroy();
      upstream.destroy();
    };
    client.on("error", drop);
    upstream.on("error", drop);
    client.on("close", drop);
    upstream.on("close", drop);
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const { port: own } = server.address() as { port: number };
  const close = async () => {
    for (const s of sockets) s.destroy();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  };
  return {
    url: `http://127.0.0.1:${own}`,
    cut() {
      open = false;
      for (const s of sockets) s.destroy();
    },
    restore() {
      open = true;
    },
    close,
    [Symbol.asyncDispose]: close,
  };
}
