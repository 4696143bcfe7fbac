import assert from "node:assert/strict";
import { once } from "node:events";
import {
  createServer,
  type Http2Server,
  type ServerHttp2Session,
  type ServerHttp2Stream,
} from "node:http2";
import { createServer as createTcpServer } from "node:net";
import { describe, it } from "node:test";
import { GrpcUnaryClient } from "./etcd-grpc.ts";

type Handler = (stream: ServerHttp2Stream, message: Buffer, path: string) => void;

/** An HTTP/2 server answering gRPC calls with `handler`; the URL and a closer. */
async function fakeServer(handler: Handler) {
  const server: Http2Server = createServer();
  const sessions = new Set<ServerHttp2Session>();
  server.on("session", (session) => {
    sessions.add(session);
    session.on("close", () => sessions.delete(session));
  });
  server.on("stream", (stream, headers) => {
    const chunks: Buffer[] = [];
    stream.on("data", (c: Buffer) => chunks.push(c));
    stream.on("end", () => {
      const body = Buffer.concat(chunks);
      handler(stream, body.subarray(5, 5 + body.readUInt32BE(1)), String(headers[":path"]));
    });
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}`,
    sessions,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

function reply(stream: ServerHttp2Stream, message: Buffer, status = 0, detail = ""): void {
  stream.respond({ ":status": 200, "content-type": "application/grpc" }, { waitForTrailers: true });
  stream.on("wantTrailers", () =>
    stream.sendTrailers({
      "grpc-status": String(status),
      "grpc-message": encodeURIComponent(detail),
    }),
  );
  const frame = Buffer.alloc(5 + message.length);
  frame.writeUInt32BE(message.length, 1);
  message.copy(frame, 5);
  stream.end(frame);
}

async function closedPort(): Promise<number> {
  const s = createTcpServer().listen(0, "127.0.0.1");
  await once(s, "listening");
  const { port } = s.address() as { port: number };
  await new Promise<void>((resolve) => s.close(() => resolve()));
  return port;
}

describe("GrpcUnaryClient", () => {
  it("sends one framed message to the method's path and reads the reply's", async () => {
    const f = await fakeServer((stream, message, path) =>
      reply(stream, Buffer.from(`${path}:${message.toString()}`)),
    );
    const client = new GrpcUnaryClient([f.url], 5000);
    try {
      const r = await client.call("/etcdserverpb.KV/Range", Buffer.from("hello"));
      assert.equal(r.buf.subarray(r.pos, r.end).toString(), "/etcdserverpb.KV/Range:hello");
      const big = Buffer.alloc(3 << 20, 7); // bigger than any default HTTP/2 window
      const echoed = await client.call("/x", big);
      assert.equal(echoed.end - echoed.pos, "/x:".length + big.length);
    } finally {
      client.close();
      await f.close();
    }
  });

  it("fails with grpc's code, name and message, in trailers or in a trailers-only reply", async () => {
    const f = await fakeServer((stream, message) => {
      if (message.toString() === "trailers-only") {
        stream.respond(
          {
            ":status": 200,
            "content-type": "application/grpc",
            "grpc-status": "14",
            "grpc-message": "etcdserver%3A no leader",
          },
          { endStream: true },
        );
        return;
      }
      reply(stream, Buffer.alloc(0), 11, "etcdserver: mvcc: required revision has been compacted");
    });
    const client = new GrpcUnaryClient([f.url], 5000);
    try {
      await assert.rejects(client.call("/m", Buffer.from("x")), {
        message: "11 OUT_OF_RANGE: etcdserver: mvcc: required revision has been compacted",
      });
      await assert.rejects(client.call("/m", Buffer.from("trailers-only")), {
        message: "14 UNAVAILABLE: etcdserver: no leader",
      });
    } finally {
      client.close();
      await f.close();
    }
  });

  it("gives up on a call etcd does not answer within the timeout", async () => {
    const f = await fakeServer(() => {}); // never answers
    const client = new GrpcUnaryClient([f.url], 50);
    try {
      await assert.rejects(client.call("/m", Buffer.from("x")), {
        message: "4 DEADLINE_EXCEEDED: etcd did not answer within 50 ms",
      });
    } finally {
      client.close();
      await f.close();
    }
  });

  it("is UNAVAILABLE while nothing listens, moves on to the next endpoint, and reconnects after the server drops it", async () => {
    const f = await fakeServer((stream) => reply(stream, Buffer.from("ok")));
    const client = new GrpcUnaryClient([`http://127.0.0.1:${await closedPort()}`, f.url], 5000);
    try {
      await assert.rejects(
        client.call("/m", Buffer.from("x")),
        /^Error: 14 UNAVAILABLE: .*ECONNREFUSED/,
      );
      const r = await client.call("/m", Buffer.from("x"));
      assert.equal(r.buf.subarray(r.pos, r.end).toString(), "ok");
      // The server ends every session; the next call opens a new one.
      for (const session of f.sessions) session.destroy();
      const again = await client
        .call("/m", Buffer.from("x"))
        .catch(() => client.call("/m", Buffer.from("x")));
      assert.equal(again.buf.subarray(again.pos, again.end).toString(), "ok");
      client.close();
      await assert.rejects(client.call("/m", Buffer.from("x")), /closed/);
    } finally {
      client.close();
      await f.close();
    }
  });
});
