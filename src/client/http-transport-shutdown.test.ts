/**
 * Shutting an HttpTransport down, on either thread its streams may use: `close()` is graceful
 * (requests in flight, bodies included, finish; new ones are refused), `destroy(reason)` is
 * abrupt (requests in flight fail with the reason). Both are idempotent.
 */
import assert from "node:assert/strict";
import { once } from "node:events";
import { createServer, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { describe, it } from "node:test";
import { createClient } from "./client.ts";
import { HttpTransport } from "./http-transport.ts";
import { TransportError, type TransportResponse } from "./transport.ts";

/**
 * A server that answers `/head` with its head and the first line of the body at once, and
 * `/late` with nothing; `finish()` sends both their ends. `arrived(n)` resolves once n requests
 * are in.
 */
async function heldServer() {
  const held: { path: string; res: ServerResponse }[] = [];
  const waiters: { n: number; resolve: () => void }[] = [];
  const server = createServer((req, res) => {
    res.on("error", () => {}); // a destroyed transport resets the connection
    if (req.url === "/head") {
      res.writeHead(200, { "content-type": "text/plain" });
      res.write("first\n");
    }
    held.push({ path: req.url ?? "", res });
    for (const w of waiters.filter((w) => held.length >= w.n)) {
      waiters.splice(waiters.indexOf(w), 1);
      w.resolve();
    }
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    arrived: (n: number) =>
      held.length >= n
        ? Promise.resolve()
        : new Promise<void>((resolve) => waiters.push({ n, resolve })),
    finish() {
      for (const { path, res } of held.splice(0)) {
        if (res.destroyed) continue;
        if (path === "/late") res.writeHead(200, { "content-type": "text/plain" });
        res.end(path === "/late" ? "late\n" : "rest\n");
      }
    },
    async [Symbol.asyncDispose]() {
      server.closeAllConnections();
      server.close();
      await once(server, "close");
    },
  };
}

async function text(res: TransportResponse): Promise<string> {
  let out = "";
  for await (const c of res.body) out += Buffer.from(c).toString();
  return out;
}

const refusedAfter = (how: "closed" | "destroyed") => (e: unknown) =>
  e instanceof TransportError &&
  e.code === "ERR_CLOSED" &&
  e.path === "/after" &&
  e.message.includes(`the transport is ${how}`);

const closedWith = (path: string) => (e: unknown) =>
  e instanceof TransportError && e.code === "ERR_CLOSED" && e.path === path;

for (const thread of ["main", "worker"] as const) {
  /**
   * A transport whose streams are received on `thread`, with two requests in flight: a stream
   * whose body has begun (`reading` its text), and a request waiting for its head (`waiting`).
   */
  const inFlight = async (server: Awaited<ReturnType<typeof heldServer>>) => {
    const transport = new HttpTransport({ url: server.url, streamThread: thread });
    await transport.prepare();
    const streaming = await transport.request({ method: "GET", path: "/head", stream: true });
    const reading = text(streaming);
    const waiting = transport.request({ method: "GET", path: "/late" });
    await server.arrived(2);
    return { transport, reading, waiting };
  };

  describe(`HttpTransport: shutdown (${thread} thread)`, () => {
    it("close() lets requests in flight finish, bodies included, and refuses new ones", async () => {
      await using server = await heldServer();
      const { transport, reading, waiting } = await inFlight(server);
      let closed = false;
      const closing = transport.close().then(() => {
        closed = true;
      });
      await assert.rejects(
        transport.request({ method: "GET", path: "/after" }),
        refusedAfter("closed"),
      );
      assert.equal(closed, false, "close() waits for the requests in flight");
      server.finish();
      assert.equal(await reading, "first\nrest\n");
      assert.equal(await text(await waiting), "late\n");
      await closing;
      await transport.close(); // idempotent
      await assert.rejects(
        transport.request({ method: "GET", path: "/after" }),
        refusedAfter("closed"),
      );
    });

    it("destroy(reason) fails requests in flight with the reason, before or after their head", async () => {
      await using server = await heldServer();
      const { transport, reading, waiting } = await inFlight(server);
      const reason = new Error("shutting down now");
      const failed = [reading, waiting].map((p) => assert.rejects(p, (e) => e === reason));
      await transport.destroy(reason);
      await Promise.all(failed);
      await assert.rejects(
        transport.request({ method: "GET", path: "/after" }),
        refusedAfter("destroyed"),
      );
      await transport.destroy(new Error("again")); // idempotent: the first reason stands
      await transport.close();
    });

    it("destroy() with no reason fails requests in flight with ERR_CLOSED", async () => {
      await using server = await heldServer();
      const { transport, reading, waiting } = await inFlight(server);
      const failed = [
        assert.rejects(reading, closedWith("/head")),
        assert.rejects(waiting, closedWith("/late")),
      ];
      await transport.destroy();
      await Promise.all(failed);
    });

    it("destroy() during a graceful close ends the wait", async () => {
      await using server = await heldServer();
      const { transport, reading, waiting } = await inFlight(server);
      const closing = transport.close();
      const reason = new Error("took too long");
      const failed = [reading, waiting].map((p) => assert.rejects(p, (e) => e === reason));
      await transport.destroy(reason);
      await closing;
      await Promise.all(failed);
    });
  });
}

describe("Client: shutdown", () => {
  it("close() and destroy(reason) reach its transport", async () => {
    await using server = await heldServer();
    const graceful = createClient({ url: server.url });
    const inFlight = graceful.transport.request({ method: "GET", path: "/late" });
    await server.arrived(1);
    const closing = graceful.close();
    server.finish();
    assert.equal(await text(await inFlight), "late\n");
    await closing;

    const abrupt = createClient({ url: server.url });
    const pending = abrupt.transport.request({ method: "GET", path: "/late" });
    await server.arrived(1);
    const reason = new Error("bye");
    const failed = assert.rejects(pending, (e) => e === reason);
    await abrupt.destroy(reason);
    await failed;
    await assert.rejects(
      abrupt.transport.request({ method: "GET", path: "/after" }),
      refusedAfter("destroyed"),
    );
  });
});
