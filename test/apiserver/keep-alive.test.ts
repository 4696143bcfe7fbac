/**
 * Many requests over one keep-alive connection: a watch that ended leaves nothing attached to
 * the connection it was served on.
 */
import assert from "node:assert/strict";
import { once } from "node:events";
import { connect } from "node:net";
import { describe, it } from "node:test";
import { startTestServer } from "kontroller/testing";
import { call, configMap, seenByCache } from "./helpers.ts";

const cms = "/api/v1/namespaces/default/configmaps";

describe("API server over one keep-alive connection", () => {
  it("serves 15 watches one after another without piling listeners on the socket", async () => {
    const warnings: Error[] = [];
    const onWarning = (w: Error) => warnings.push(w);
    process.on("warning", onWarning);
    try {
      await using s = await startTestServer({ controllers: false });
      const created = await call(s.url, "POST", cms, configMap("a"));
      const rv = created.body.metadata.resourceVersion;
      const b = await call(s.url, "POST", cms, configMap("b"));
      // "b"'s event must be in the cache before the drop, or it could land in the history after
      // it and keep the watch open.
      await seenByCache(s.url, cms, b.body.metadata.resourceVersion);
      // Every watch from `rv` now gets one ERROR (410) event and ends: a watch that ends at once.
      s.server.dropWatchHistory();
      const { hostname: host, port } = new URL(s.url);
      const socket = connect({ host, port: Number(port) });
      await once(socket, "connect");
      let text = "";
      socket.on("data", (d: Buffer) => (text += d.toString()));
      for (let i = 0; i < 15; i++) {
        text = "";
        socket.write(
          `GET ${cms}?watch=1&resourceVersion=${rv} HTTP/1.1\r\nHost: ${host}:${port}\r\n\r\n`,
        );
        while (!text.endsWith("\r\n0\r\n\r\n")) await once(socket, "data");
        assert.match(text, /^HTTP\/1\.1 200/);
        assert.match(text, /"type":"ERROR".*"code":410/);
      }
      socket.end();
      await new Promise((r) => setImmediate(r));
      assert.deepEqual(
        warnings.map((w) => w.name),
        [],
        warnings.map((w) => w.message).join("\n"),
      );
    } finally {
      process.off("warning", onWarning);
    }
  });
});
