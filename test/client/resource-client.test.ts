import assert from "node:assert/strict";
import { once } from "node:events";
import { describe, it } from "node:test";
import { createClient, DecodeError, isConnectionRefused, TransportError } from "kontroller/client";
import { ApiError, isGone, isNotFound } from "kontroller/core";
import { type ConfigMap, configMaps, namespaces } from "kontroller/resources";
import { FakeClock } from "kontroller/testing";
import { sendJson, settle, startFakeServer, status } from "./fake-server.ts";

const cm = (name: string, rv = "1"): ConfigMap => ({
  kind: "ConfigMap",
  apiVersion: "v1",
  metadata: { name, namespace: "default", resourceVersion: rv },
  data: { k: name },
});

const noRetry = { maxRetries: 0 };

describe("ResourceClient over HTTP: reads", () => {
  it("gets an object and turns a NotFound Status into an ApiError", async () => {
    await using server = await startFakeServer((req, res) =>
      req.path.endsWith("/a")
        ? sendJson(res, 200, cm("a"))
        : sendJson(res, 404, status(404, "NotFound", 'configmaps "b" not found')),
    );
    await using client = createClient({ url: server.url });
    const cms = client.resource(configMaps, { namespace: "default" });
    assert.deepEqual(await cms.get("a"), cm("a"));
    const err = await cms.get("b").catch((e: unknown) => e);
    assert.ok(isNotFound(err));
    assert.equal((err as ApiError).message, 'configmaps "b" not found');
    assert.equal(server.requests[1]!.path, "/api/v1/namespaces/default/configmaps/b");
  });

  it("builds an ApiError from a non-Status error body, cutting it", async () => {
    await using server = await startFakeServer((_req, res) => {
      res.writeHead(502, { "content-type": "text/html" });
      res.end(`<html>${"bad gateway ".repeat(200)}</html>`);
    });
    await using client = createClient({ url: server.url, retry: noRetry });
    const err = await client
      .resource(namespaces)
      .get("x")
      .catch((e: unknown) => e);
    assert.ok(err instanceof ApiError);
    assert.equal(err.code, 502);
    assert.match(
      err.message,
      /GET \/api\/v1\/namespaces\/x: the server responded with HTTP 502: <html>bad gateway/,
    );
    assert.ok(err.message.length < 400);
  });

  it("lists with query parameters, decoding a body that arrives in small pieces", async () => {
    const items = [cm("a", "3"), cm("b", "4")].map(({ kind: _k, apiVersion: _a, ...rest }) => rest);
    await using server = await startFakeServer(async (_req, res) => {
      const body = JSON.stringify({
        kind: "ConfigMapList",
        apiVersion: "v1",
        metadata: { resourceVersion: "9", continue: "t1" },
        items,
      });
      res.writeHead(200, { "content-type": "application/json" });
      for (let i = 0; i < body.length; i += 7) {
        res.write(body.slice(i, i + 7));
        await new Promise((r) => setImmediate(r));
      }
      res.end();
    });
    await using client = createClient({ url: server.url });
    const page = await client
      .resource(configMaps)
      .list({ labelSelector: "app=x", resourceVersion: "0", limit: 2 });
    assert.deepEqual(page, {
      items: [cm("a", "3"), cm("b", "4")],
      resourceVersion: "9",
      continue: "t1",
    });
    const q = server.requests[0]!.query;
    assert.equal(server.requests[0]!.path, "/api/v1/configmaps");
    assert.deepEqual(
      [q.get("labelSelector"), q.get("resourceVersion"), q.get("limit")],
      ["app=x", "0", "2"],
    );
  });

  it("rejects a list without a resourceVersion, with a truncated body, with a foreign item, or that is no list of this kind", async () => {
    const bodies = [
      JSON.stringify({ metadata: {}, items: [] }),
      '{"metadata":{"resourceVersion":"1"},"items":[{"metadata":',
      JSON.stringify({
        metadata: { resourceVersion: "1" },
        items: [{ ...cm("a"), kind: "Secret" }],
      }),
      JSON.stringify(cm("a", "7")),
      JSON.stringify({
        kind: "Table",
        apiVersion: "meta.k8s.io/v1",
        metadata: { resourceVersion: "7" },
        rows: [],
      }),
      JSON.stringify({ kind: "SecretList", metadata: { resourceVersion: "7" }, items: [] }),
    ];
    let i = 0;
    await using server = await startFakeServer((_req, res) => {
      res.writeHead(200, { "content-type": "application/json" });
      res.end(bodies[i++]);
    });
    await using client = createClient({ url: server.url, retry: noRetry });
    const cms = client.resource(configMaps);
    const reasons = ["MissingResourceVersion", "Truncated", "WrongKind", "NotAList", "NotAList"];
    for (const reason of [...reasons, "WrongKind"]) {
      await assert.rejects(
        cms.list(),
        (e: unknown) => e instanceof DecodeError && e.reason === reason,
      );
    }
    for (const kind of [undefined, "ConfigMapList", "List"]) {
      bodies.push(JSON.stringify({ kind, metadata: { resourceVersion: "8" }, items: null }));
      assert.deepEqual(await cms.list(), { items: [], resourceVersion: "8" }, `kind ${kind}`);
    }
  });

  it("pages with listAll, and falls back to one unpaged list when a continuation expires", async () => {
    await using server = await startFakeServer((req, res) => {
      const cont = req.query.get("continue");
      const rv = req.query.get("resourceVersion");
      const list = (names: string[], next?: string) =>
        sendJson(res, 200, {
          metadata: { resourceVersion: "20", ...(next ? { continue: next } : {}) },
          items: names.map((n) => cm(n)),
        });
      if (cont === null && req.query.get("limit") === "2") return list(["a", "b"], "c1");
      if (cont === "c1") return list(["c", "d"], "c2");
      if (cont === "c2") return sendJson(res, 410, status(410, "Expired", "continue too old"));
      assert.equal(rv, "5");
      return list(["a", "b", "c", "d", "e"]);
    });
    await using client = createClient({ url: server.url });
    const all = await client.resource(configMaps).listAll({ pageSize: 2, resourceVersion: "5" });
    assert.deepEqual(
      all.items.map((c) => c.metadata?.name),
      ["a", "b", "c", "d", "e"],
    );
    assert.equal(server.requests.length, 4);
    assert.equal(server.requests[3]!.query.get("limit"), null);
  });
});

describe("ResourceClient over HTTP: retries", () => {
  it("retries a GET after 429, waiting exactly Retry-After on the client's clock", async () => {
    let n = 0;
    await using server = await startFakeServer((_req, res) =>
      n++ === 0
        ? sendJson(res, 429, status(429, "TooManyRequests", "slow"), { "retry-after": "2" })
        : sendJson(res, 200, cm("a")),
    );
    const clock = new FakeClock();
    await using client = createClient({ url: server.url, clock });
    const got = client.resource(configMaps, { namespace: "default" }).get("a");
    await settle(() => clock.pendingTimers === 1);
    assert.equal(clock.nextTimerAt()! - clock.now(), 2000);
    assert.equal(server.requests.length, 1);
    clock.advance(2000);
    assert.deepEqual(await got, cm("a"));
    assert.equal(server.requests.length, 2);
  });

  it("retries a LIST on 5xx with backoff until it succeeds", async () => {
    let n = 0;
    await using server = await startFakeServer((_req, res) =>
      n++ < 2
        ? sendJson(res, 503, status(503, "ServiceUnavailable", "later"))
        : sendJson(res, 200, { metadata: { resourceVersion: "1" }, items: [] }),
    );
    const clock = new FakeClock();
    await using client = createClient({ url: server.url, clock, retry: { initialDelayMs: 100 } });
    const listed = client.resource(configMaps).list();
    for (let i = 0; i < 2; i++) {
      await settle(() => clock.pendingTimers === 1);
      await clock.runNextAsync();
    }
    assert.equal((await listed).resourceVersion, "1");
    assert.equal(server.requests.length, 3);
  });

  it("gives up after maxRetries with the last error", async () => {
    await using server = await startFakeServer((_req, res) =>
      sendJson(res, 500, status(500, "InternalError", "boom")),
    );
    await using client = createClient({
      url: server.url,
      retry: { maxRetries: 2, initialDelayMs: 0 },
    });
    await assert.rejects(
      client.resource(configMaps).list(),
      (e: unknown) => e instanceof ApiError && e.code === 500,
    );
    assert.equal(server.requests.length, 3);
  });

  it("never resends a write that failed with 5xx, but resends one refused with 429", async () => {
    let n = 0;
    await using server = await startFakeServer((req, res) => {
      if (req.path.endsWith("/configmaps"))
        return sendJson(res, 500, status(500, "InternalError", "maybe written"));
      return n++ === 0
        ? sendJson(
            res,
            429,
            status(429, "TooManyRequests", "later", { details: { retryAfterSeconds: 0 } }),
          )
        : sendJson(res, 200, cm("a", "2"));
    });
    await using client = createClient({ url: server.url });
    const cms = client.resource(configMaps, { namespace: "default" });
    await assert.rejects(
      cms.create(cm("a")),
      (e: unknown) => e instanceof ApiError && e.code === 500,
    );
    assert.equal(server.requests.length, 1);
    assert.deepEqual(await cms.update(cm("a")), cm("a", "2"));
    assert.equal(server.requests.length, 3);
  });

  it("reports a refused connection as a TransportError", async () => {
    const server = await startFakeServer();
    const url = server.url;
    await server.close();
    await using client = createClient({ url, retry: noRetry });
    const err = await client
      .resource(configMaps)
      .list()
      .catch((e: unknown) => e);
    assert.ok(err instanceof TransportError, String(err));
    assert.ok(isConnectionRefused(err));
  });
});

describe("ResourceClient over HTTP: writes", () => {
  it("sends create, update, updateStatus and patch to the right paths with the right bodies", async () => {
    await using server = await startFakeServer((req, res) =>
      sendJson(res, 200, JSON.parse(req.body || "{}")),
    );
    await using client = createClient({ url: server.url });
    const cms = client.resource(configMaps);
    await cms.create(
      { ...cm("a"), metadata: { name: "a", namespace: "ns1" } },
      { fieldManager: "me", dryRun: true },
    );
    await cms.inNamespace("ns2").update(cm("b"));
    await cms.inNamespace("ns2").updateStatus(cm("b"));
    await cms.inNamespace("ns2").patch("b", "merge", { data: { x: "1" } });
    await cms.inNamespace("ns2").patch("b", "apply", cm("b"), { fieldManager: "me", force: true });
    const seen = server.requests.map((r) => [
      r.method,
      r.path + (r.query.size ? `?${r.query}` : ""),
      r.headers["content-type"],
    ]);
    assert.deepEqual(seen, [
      ["POST", "/api/v1/namespaces/ns1/configmaps?dryRun=All&fieldManager=me", "application/json"],
      ["PUT", "/api/v1/namespaces/ns2/configmaps/b", "application/json"],
      ["PUT", "/api/v1/namespaces/ns2/configmaps/b/status", "application/json"],
      ["PATCH", "/api/v1/namespaces/ns2/configmaps/b", "application/merge-patch+json"],
      [
        "PATCH",
        "/api/v1/namespaces/ns2/configmaps/b?fieldManager=me&force=true",
        "application/apply-patch+yaml",
      ],
    ]);
    assert.deepEqual(JSON.parse(server.requests[3]!.body), { data: { x: "1" } });
  });

  it("deletes with propagation and preconditions, returning the server's Status", async () => {
    const ok = { kind: "Status", apiVersion: "v1", metadata: {}, status: "Success", code: 200 };
    await using server = await startFakeServer((_req, res) => sendJson(res, 200, ok));
    await using client = createClient({ url: server.url });
    const cms = client.resource("ConfigMap", { namespace: "default" });
    assert.deepEqual(
      await cms.delete("a", { propagationPolicy: "Foreground", preconditions: { uid: "u1" } }),
      ok,
    );
    await cms.deleteCollection({ labelSelector: "app=x" });
    assert.deepEqual(JSON.parse(server.requests[0]!.body), {
      kind: "DeleteOptions",
      apiVersion: "v1",
      propagationPolicy: "Foreground",
      preconditions: { uid: "u1" },
    });
    assert.equal(server.requests[1]!.method, "DELETE");
    assert.equal(server.requests[1]!.query.get("labelSelector"), "app=x");
  });

  it("refuses calls that need a namespace it does not have, and unknown kinds", async () => {
    await using client = createClient({ url: "http://127.0.0.1:1" });
    assert.throws(() => client.resource(configMaps).get("a"), /namespaced/);
    assert.throws(
      () => client.resource(configMaps).create({ metadata: { name: "a" } }),
      /metadata.namespace/,
    );
    assert.throws(() => client.resource("Widget" as "Pod"), /unknown built-in kind "Widget"/);
    assert.throws(
      () => createClient({ url: "http://x", transport: client.transport }),
      /at most one/,
    );
  });
});

describe("ResourceClient over HTTP: watch", () => {
  const line = (type: string, object: unknown) => `${JSON.stringify({ type, object })}\n`;

  it("streams typed events split anywhere, with the watch query parameters", async () => {
    const text = [
      line("ADDED", cm("a", "2")),
      line("MODIFIED", cm("a", "3")),
      line("BOOKMARK", { kind: "ConfigMap", apiVersion: "v1", metadata: { resourceVersion: "4" } }),
      line("DELETED", cm("a", "5")),
    ].join("");
    await using server = await startFakeServer(async (_req, res) => {
      res.writeHead(200, { "content-type": "application/json" });
      for (let i = 0; i < text.length; i += 13) {
        res.write(text.slice(i, i + 13));
        await new Promise((r) => setImmediate(r));
      }
      res.end();
    });
    await using client = createClient({ url: server.url });
    const events = [];
    for await (const e of client
      .resource(configMaps)
      .watch({ resourceVersion: "1", allowWatchBookmarks: true, timeoutSeconds: 300 })) {
      events.push([e.type, e.object.metadata?.resourceVersion]);
    }
    assert.deepEqual(events, [
      ["ADDED", "2"],
      ["MODIFIED", "3"],
      ["BOOKMARK", "4"],
      ["DELETED", "5"],
    ]);
    const q = server.requests[0]!.query;
    assert.deepEqual(
      [
        q.get("watch"),
        q.get("resourceVersion"),
        q.get("allowWatchBookmarks"),
        q.get("timeoutSeconds"),
      ],
      ["true", "1", "true", "300"],
    );
  });

  it("yields the good events before a bad line, then throws a DecodeError with the line", async () => {
    await using server = await startFakeServer((_req, res) => {
      res.writeHead(200);
      res.end(
        `${line("ADDED", cm("a"))}${line("ADDED", cm("b"))}{"type":"ADDED","object":{nope\n${line("ADDED", cm("c"))}`,
      );
    });
    await using client = createClient({ url: server.url });
    const names: string[] = [];
    const err = await (async () => {
      for await (const e of client.resource(configMaps).watch()) {
        if (e.type !== "BOOKMARK") names.push(e.object.metadata!.name!);
      }
    })().catch((e: unknown) => e);
    assert.deepEqual(names, ["a", "b"]);
    assert.ok(err instanceof DecodeError && err.reason === "InvalidJSON");
    assert.match(err.sample, /\{nope/);
  });

  it("throws the server's 410 from an ERROR event, and Truncated for a cut line", async () => {
    let n = 0;
    await using server = await startFakeServer((_req, res) => {
      res.writeHead(200);
      if (n++ === 0)
        res.end(line("ERROR", status(410, "Expired", "too old resource version: 1 (5)")));
      else res.end(`${line("ADDED", cm("a"))}{"type":"ADD`);
    });
    await using client = createClient({ url: server.url });
    const cms = client.resource(configMaps);
    await assert.rejects(
      async () => {
        for await (const _ of cms.watch({ resourceVersion: "1" })) {
        }
      },
      (e: unknown) => isGone(e) && (e as ApiError).message.includes("too old"),
    );
    let seen = 0;
    await assert.rejects(
      async () => {
        for await (const _ of cms.watch()) seen++;
      },
      (e: unknown) =>
        e instanceof DecodeError && e.reason === "Truncated" && e.sample === '{"type":"ADD',
    );
    assert.equal(seen, 1);
  });

  it("closes the connection when the consumer breaks out or aborts", async () => {
    const closed: Promise<unknown>[] = [];
    await using server = await startFakeServer((_req, res, raw) => {
      closed.push(once(raw.socket!, "close"));
      res.writeHead(200);
      res.write(line("ADDED", cm("a")));
    });
    await using client = createClient({ url: server.url });
    for await (const _ of client.resource(configMaps).watch()) break;
    await closed[0];
    const ac = new AbortController();
    const reason = new Error("stop");
    const it = client.resource(configMaps).watch({ signal: ac.signal });
    assert.equal((await it.next()).done, false);
    const next = it.next();
    ac.abort(reason);
    await assert.rejects(next, (e: unknown) => e === reason);
    await closed[1];
  });

  it("reports a connection reset mid-stream as a TransportError", async () => {
    await using server = await startFakeServer((_req, res) => {
      res.writeHead(200);
      res.write(line("ADDED", cm("a")));
      setImmediate(() => res.socket?.destroy());
    });
    await using client = createClient({ url: server.url });
    let seen = 0;
    await assert.rejects(async () => {
      for await (const _ of client.resource(configMaps).watch()) seen++;
    }, TransportError);
    assert.equal(seen, 1);
  });
});
