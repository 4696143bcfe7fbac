/** The informer benchmark's floor: its HTTP framing, and its watch against the embedded server. */
import assert from "node:assert/strict";
import { once } from "node:events";
import net from "node:net";
import { describe, it } from "node:test";
import { createClient } from "kontroller/client";
import { type ConfigMap, configMaps } from "kontroller/resources";
import { startTestServer } from "kontroller/testing";
import { ChunkedBody, floorPeer, LineSplitter } from "../bench/informer/floor.ts";

const HEAD =
  "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n";

/** `text` as a chunked body in chunks of `size` bytes (splitting characters and lines anywhere). */
function chunked(text: string, size: number): Buffer {
  const bytes = Buffer.from(text);
  const parts: Buffer[] = [Buffer.from(HEAD)];
  for (let at = 0; at < bytes.length; at += size) {
    const data = bytes.subarray(at, at + size);
    parts.push(Buffer.from(`${data.length.toString(16)}\r\n`), data, Buffer.from("\r\n"));
  }
  return Buffer.concat(parts);
}

describe("informer benchmark floor", () => {
  const text = '{"type":"ADDED","object":{"n":"ä€𝄞"}}\n{"type":"ADDED","object":{"n":"b"}}\n';

  it("undoes chunked framing and splits lines across every split of the bytes", () => {
    const wire = chunked(text, 7);
    for (let cut = 0; cut <= wire.length; cut++) {
      const body = new ChunkedBody();
      const lines = new LineSplitter();
      const got = [
        ...lines.push(body.push(wire.subarray(0, cut))),
        ...lines.push(body.push(wire.subarray(cut))),
      ];
      assert.deepEqual(got, text.split("\n").slice(0, 2), `split at byte ${cut}`);
    }
  });

  it("reads a body delivered one byte at a time", () => {
    const wire = chunked(text, 5);
    const body = new ChunkedBody();
    let got = "";
    for (let i = 0; i < wire.length; i++) got += body.push(wire.subarray(i, i + 1));
    assert.equal(got, text);
  });

  it("refuses a response other than 200", () => {
    const body = new ChunkedBody();
    assert.throws(
      () => body.push(Buffer.from("HTTP/1.1 410 Gone\r\nContent-Length: 0\r\n\r\n")),
      /the floor's watch got HTTP\/1\.1 410 Gone/,
    );
  });

  it("syncs with a streaming list, then hands over what the watch brings", async () => {
    await using server = await startTestServer();
    await using client = createClient({ url: server.url });
    const cms = client.resource(configMaps, { namespace: "default" });
    for (const name of ["a", "b", "c"]) await cms.create({ metadata: { name }, data: { v: name } });
    const seen: string[] = [];
    let sawD: () => void = () => {};
    const d = new Promise<void>((resolve) => {
      sawD = resolve;
    });
    const floor = floorPeer(server.url, "default", (obj: ConfigMap) => {
      seen.push(obj.metadata!.name!);
      if (obj.metadata?.name === "d") sawD();
    });
    await floor.start();
    assert.deepEqual([...seen].sort(), ["a", "b", "c"], "synced with the list");
    await cms.create({ metadata: { name: "d" } });
    await d;
    await floor.stop();
    assert.deepEqual(seen.slice(3), ["d"]);
  });

  it("rejects its start when the watch ends before the initial-events-end bookmark", async () => {
    const server = net.createServer((socket) => {
      socket.once("data", () =>
        socket.end(chunked('{"type":"ADDED","object":{"metadata":{"name":"a"}}}\n', 64)),
      );
    });
    server.listen(0, "127.0.0.1");
    await once(server, "listening");
    const { port } = server.address() as net.AddressInfo;
    const seen: string[] = [];
    const floor = floorPeer(`http://127.0.0.1:${port}`, "default", (obj) => {
      seen.push(obj.metadata!.name!);
    });
    await assert.rejects(floor.start(), /the floor's watch closed before it synced/);
    assert.deepEqual(seen, ["a"]);
    server.close();
  });

  it("rejects its start when the server cannot be reached", async () => {
    const floor = floorPeer("http://127.0.0.1:1", "default", () => {});
    await assert.rejects(floor.start(), /ECONNREFUSED/);
  });
});
