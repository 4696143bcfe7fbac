import assert from "node:assert/strict";
import { once } from "node:events";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { describe, it } from "node:test";
import { type StreamRequest, StreamWorkerClient } from "./stream-worker-client.ts";
import { TransportError } from "./transport.ts";

const config = { keepAliveTimeoutMs: 1000, connect: {} };

/** A server whose `/stream` sends `first`, then `rest` when told, then ends. */
async function streamServer() {
  let release: () => void = () => {};
  const released = new Promise<void>((r) => {
    release = r;
  });
  const server: Server = createServer((req, res) => {
    res.writeHead(200, { "x-test": ["a", "b"] });
    res.write("first\n");
    if (req.url === "/open") return; // stays open
    void released.then(() => res.end("rest\n"));
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    origin,
    release,
    async [Symbol.asyncDispose]() {
      server.closeAllConnections();
      server.close();
      await once(server, "close");
    },
  };
}

function request(origin: string, path = "/stream", signal?: AbortSignal): StreamRequest {
  return {
    origin,
    method: "GET",
    path,
    headers: {},
    body: null,
    headersTimeoutMs: 5000,
    signal,
    fail: (e) => (signal?.aborted ? signal.reason : e),
  };
}

async function readAll(body: AsyncIterable<Uint8Array>): Promise<string> {
  let text = "";
  for await (const c of body) text += Buffer.from(c).toString();
  return text;
}

describe("StreamWorkerClient", () => {
  it("leaves requests to the caller while its worker starts, then takes them", async () => {
    await using server = await streamServer();
    const streams = new StreamWorkerClient(config);
    try {
      assert.equal(streams.request(request(server.origin)), undefined, "not started yet");
      assert.equal(streams.state, "starting");
      assert.equal(streams.request(request(server.origin)), undefined, "still starting");
      assert.equal(await streams.whenStarted(), "ready");
      const res = await streams.request(request(server.origin))!;
      assert.equal(res.status, 200);
      assert.equal(res.header("x-test"), "a, b");
      const reading = readAll(res.body);
      server.release();
      assert.equal(await reading, "first\nrest\n");
    } finally {
      await streams.close();
    }
  });

  it("rejects with the signal's reason when aborted, before or after the head", async () => {
    await using server = await streamServer();
    const streams = new StreamWorkerClient(config);
    try {
      streams.request(request(server.origin));
      await streams.whenStarted();
      const early = new AbortController();
      const pending = streams.request(request(server.origin, "/open", early.signal))!;
      early.abort(new Error("early"));
      await assert.rejects(pending, /early/);
      const late = new AbortController();
      const res = await streams.request(request(server.origin, "/open", late.signal))!;
      const reading = readAll(res.body);
      late.abort(new Error("late"));
      await assert.rejects(reading, /late/);
    } finally {
      await streams.close();
    }
  });

  it("fails open streams with ERR_CLOSED on destroy, and takes nothing after", async () => {
    await using server = await streamServer();
    const streams = new StreamWorkerClient(config);
    streams.request(request(server.origin));
    await streams.whenStarted();
    const res = await streams.request(request(server.origin, "/open"))!;
    const failed = assert.rejects(
      readAll(res.body),
      (e) => e instanceof TransportError && e.code === "ERR_CLOSED" && e.path === "/open",
    );
    await streams.destroy();
    await failed;
    assert.equal(streams.request(request(server.origin)), undefined);
  });

  it("lets open streams end on close, and takes nothing after", async () => {
    await using server = await streamServer();
    const streams = new StreamWorkerClient(config);
    streams.request(request(server.origin));
    await streams.whenStarted();
    const res = await streams.request(request(server.origin))!;
    const reading = readAll(res.body);
    const closing = streams.close();
    assert.equal(streams.request(request(server.origin)), undefined);
    server.release();
    assert.equal(await reading, "first\nrest\n");
    await closing;
  });

  it("stays off when its worker cannot load: every stream is the caller's", async () => {
    const streams = new StreamWorkerClient(
      config,
      new URL("./stream-worker-broken.test-helper.ts", import.meta.url),
    );
    try {
      assert.equal(streams.request(request("http://127.0.0.1:1")), undefined);
      assert.equal(await streams.whenStarted(), "unavailable");
      assert.equal(streams.request(request("http://127.0.0.1:1")), undefined);
      assert.equal(streams.state, "unavailable", "not started again");
    } finally {
      await streams.close();
    }
  });

  it("fails the streams of a worker that crashes with ERR_STREAM_WORKER", async () => {
    const streams = new StreamWorkerClient(
      config,
      new URL("./stream-worker-crash.test-helper.ts", import.meta.url),
    );
    try {
      streams.request(request("http://127.0.0.1:1"));
      assert.equal(await streams.whenStarted(), "ready");
      // The crash may overtake the head: the request fails then, its body otherwise.
      const got: string[] = [];
      const err = await (async () => {
        const res = await streams.request(request("http://127.0.0.1:1"))!;
        for await (const c of res.body) got.push(Buffer.from(c).toString());
      })().catch((e: unknown) => e);
      assert.ok(
        err instanceof TransportError &&
          err.code === "ERR_STREAM_WORKER" &&
          /the worker crashed/.test(err.message),
        String(err),
      );
      // Bytes the worker posted just before it crashed may or may not arrive first.
      assert.ok(["", "partial"].includes(got.join("")), got.join(""));
      assert.equal(streams.state, "none", "the next stream starts a new worker");
    } finally {
      await streams.close();
    }
  });
});
