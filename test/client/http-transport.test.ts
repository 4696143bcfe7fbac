/**
 * The HTTP transport's response bodies on a real socket, received on the main thread and on
 * the stream worker: a large body read slowly arrives whole (the socket is paused and resumed
 * under it), a body left early releases its connection, an abort mid-body rejects with the
 * signal's reason, a reset mid-body and a refused connection are `TransportError`s. And the
 * stream worker keeps the process alive while a stream is open, and only then.
 */
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { once } from "node:events";
import { describe, it } from "node:test";
import { HttpTransport, isConnectionRefused, TransportError } from "kontroller/client";
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

/** Streams received on the main thread, and on the stream worker (started before they open). */
const threads = [
  { thread: "main", prepare: false },
  { thread: "worker", prepare: true },
] as const;

for (const { thread, prepare } of threads) {
  /** A transport whose streams are received on `thread`. */
  const transportFor = async (url: string) => {
    const transport = new HttpTransport({ url, streamThread: thread });
    if (prepare) await transport.prepare();
    assert.equal(transport.streamsOnWorker, thread === "worker");
    return transport;
  };

  describe(`HttpTransport: response bodies (${thread} thread)`, () => {
    it("delivers a large body whole to a reader slower than the socket", async () => {
      await using server = await startFakeServer(async (_req, res) => {
        res.writeHead(200, { "content-type": "application/octet-stream" });
        await writeAll(res);
      });
      await using transport = await transportFor(server.url);
      const res = await transport.request({ method: "GET", path: "/big", stream: true });
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
      await using transport = await transportFor(server.url);
      const big = await transport.request({ method: "GET", path: "/big", stream: true });
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
      await using transport = await transportFor(server.url);
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

    it("fails the reader of a body cut by a reset with a TransportError, after the bytes that came", async () => {
      await using server = await startFakeServer((_req, res, raw) => {
        res.writeHead(200);
        res.write(part(1), () => raw.socket?.destroy());
      });
      await using transport = await transportFor(server.url);
      const res = await transport.request({ method: "GET", path: "/", stream: true });
      let received = 0;
      const err = await (async () => {
        for await (const c of res.body) received += c.length;
      })().catch((e: unknown) => e);
      assert.ok(err instanceof TransportError, String(err));
      assert.equal(err.path, "/");
      assert.equal(received, 64 * 1024);
    });

    it("refuses a request to a port nobody listens on with ECONNREFUSED", async () => {
      const server = await startFakeServer();
      const url = server.url;
      await server.close();
      await using transport = await transportFor(url);
      const err = await transport
        .request({ method: "GET", path: "/w", stream: true })
        .catch((e: unknown) => e);
      assert.ok(isConnectionRefused(err), String(err));
    });
  });
}

describe("HttpTransport: the stream worker", () => {
  it("refuses a streamThread that is neither worker nor main", () => {
    assert.throws(
      () => new HttpTransport({ url: "http://x", streamThread: "both" as "main" }),
      /option streamThread must be "worker" or "main", got "both"/,
    );
  });

  it("receives streams on the main thread unless asked to use a worker", async () => {
    await using transport = new HttpTransport({ url: "http://127.0.0.1:1" });
    await transport.prepare();
    assert.equal(transport.streamsOnWorker, false);
  });

  it("lets a process whose transport started its worker, and has no stream open, exit", async () => {
    const script = `
      import { HttpTransport } from "kontroller/client";
      const transport = new HttpTransport({ url: "http://127.0.0.1:1", streamThread: "worker" });
      await transport.prepare();
      console.log(transport.streamsOnWorker ? "prepared" : "no worker");`;
    const { code, out } = await runChild(script, []);
    assert.equal(code, 0, out);
    assert.equal(out.trim(), "prepared");
  });

  it("keeps the process alive while a stream is open on it, and lets it exit after", async () => {
    let ended: (() => void) | undefined;
    await using server = await startFakeServer((_req, res) => {
      res.writeHead(200);
      res.write("first\n");
      ended = () => res.end("last\n");
    });
    // The child reads one chunk, says so, reads to the end and returns without closing the
    // transport: it must not exit before the end (the open stream holds it), and must exit
    // after (nothing holds it).
    const script = `
      import { HttpTransport } from "kontroller/client";
      const transport = new HttpTransport({ url: process.argv[1], streamThread: "worker" });
      await transport.prepare();
      if (!transport.streamsOnWorker) throw new Error("no stream worker");
      const res = await transport.request({ method: "GET", path: "/", stream: true });
      let text = "";
      for await (const c of res.body) {
        text += Buffer.from(c).toString();
        if (text === "first\\n") console.log("reading");
      }
      console.log(JSON.stringify(text));`;
    const { code, out } = await runChild(script, [server.url], (out) => {
      if (out.includes("reading") && ended !== undefined) {
        ended();
        ended = undefined;
      }
    });
    assert.equal(code, 0, out);
    assert.deepEqual(out.trim().split("\n"), ["reading", JSON.stringify("first\nlast\n")]);
  });
});

/**
 * Runs an ES module `script` in a child Node process (in this package, so that it imports
 * kontroller by name), calling `onOutput` with its output so far as it grows; resolves with its
 * exit code (null if killed after 30 s) and output.
 */
async function runChild(
  script: string,
  args: string[],
  onOutput: (out: string) => void = () => {},
): Promise<{ code: number | null; out: string }> {
  const child = execFile(
    process.execPath,
    ["--conditions=kontroller-source", "--input-type=module", "-e", script, ...args],
    { cwd: new URL("../..", import.meta.url).pathname, timeout: 30_000 },
  );
  let out = "";
  child.stdout!.on("data", (d: Buffer) => {
    out += d.toString();
    onOutput(out);
  });
  child.stderr!.pipe(process.stderr);
  const [code] = (await once(child, "exit")) as [number | null];
  return { code, out };
}
