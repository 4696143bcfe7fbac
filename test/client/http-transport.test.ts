/**
 * The HTTP transport's response bodies on a real socket: a large body read slowly arrives
 * whole (the socket is paused and resumed under it), a body left early releases its
 * connection, an abort mid-body rejects with the signal's reason.
 */
import assert from "node:assert/strict";
import { once } from "node:events";
import { describe, it } from "node:test";
import { HttpTransport } from "kontroller/client";
import { startFakeServer } from "./fake-server.ts";

/** 8 MiB in 64 KiB writes, each chunk's bytes telling its index. */
const CHUNKS = 128;
const part = (i: number) => Buffer.alloc(64 * 1024, i % 251);
const whole = Buffer.concat(Array.from({ length: CHUNKS }, (_, i) => part(i)));

/** One turn of the event loop. */
const turn = () => new Promise<void>((resolve) => setImmediate(resolve));

/** Writes the 8 MiB, waiting for the socket; stops if the client goes away. */
async function writeAll(res: import("node:http").ServerResponse): Promise<void> {
  res.socket?.on("error", () => {}); // a client that leaves early resets the connection
  for (let i = 0; i < CHUNKS; i++) {
    if (res.destroyed) return;
    if (!res.write(part(i))) await Promise.race([once(res, "drain"), once(res, "close")]);
  }
  res.end();
}

describe("HttpTransport: response bodies", () => {
  it("delivers a large body whole to a reader slower than the socket", async () => {
    await using server = await startFakeServer(async (_req, res) => {
      res.writeHead(200, { "content-type": "application/octet-stream" });
      await writeAll(res);
    });
    await using transport = new HttpTransport({ url: server.url });
    const res = await transport.request({ method: "GET", path: "/big" });
    assert.equal(res.status, 200);
    assert.equal(res.header("content-type"), "application/octet-stream");
    const got: Buffer[] = [];
    for await (const c of res.body) {
      got.push(Buffer.from(c));
      for (let i = 0; i < 4; i++) await turn();
    }
    assert.ok(Buffer.concat(got).equals(whole));
  });

  it("releases the connection of a body left early, so the next request goes through", async () => {
    let closed: Promise<unknown> | undefined;
    await using server = await startFakeServer(async (req, res, raw) => {
      if (req.path === "/small") {
        res.end("ok");
        return;
      }
      closed = new Promise((resolve) => raw.socket!.once("close", resolve));
      res.writeHead(200);
      await writeAll(res);
    });
    await using transport = new HttpTransport({ url: server.url });
    const big = await transport.request({ method: "GET", path: "/big" });
    for await (const _ of big.body) break;
    await closed;
    const small = await transport.request({ method: "GET", path: "/small" });
    const text: Buffer[] = [];
    for await (const c of small.body) text.push(Buffer.from(c));
    assert.equal(Buffer.concat(text).toString(), "ok");
  });

  it("rejects the reader of a body with the signal's reason when it aborts mid-body", async () => {
    await using server = await startFakeServer((_req, res) => {
      res.writeHead(200);
      res.write(part(0)); // and nothing more: the body stays open
    });
    await using transport = new HttpTransport({ url: server.url });
    const ac = new AbortController();
    const reason = new Error("stop reading");
    const res = await transport.request({
      method: "GET",
      path: "/",
      signal: ac.signal,
      stream: true,
    });
    const iterator = res.body[Symbol.asyncIterator]();
    let received = 0;
    while (received < 64 * 1024) received += (await iterator.next()).value!.length;
    assert.equal(received, 64 * 1024);
    const waiting = iterator.next();
    ac.abort(reason);
    await assert.rejects(waiting, (e: unknown) => e === reason);
  });
});
