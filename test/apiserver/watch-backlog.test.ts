/**
 * Watches whose initial events or replayed history are far larger than a watcher's buffer
 * (1 000 lines by default), over HTTP: every event arrives, in order, once, then live events.
 */
import assert from "node:assert/strict";
import { connect } from "node:net";
import { after, before, describe, it } from "node:test";
import { startTestServer, type TestServer } from "kontroller/testing";
import { call, configMap, type Loose, seenByCache, watch } from "./helpers.ts";

const cms = "/api/v1/namespaces/default/configmaps";
const COUNT = 5000;
const name = (i: number) => `cm-${String(i).padStart(5, "0")}`;

/** Creates `count` objects with up to 16 requests in flight. */
async function createMany(url: string, count: number, body: (i: number) => unknown) {
  let next = 0;
  await Promise.all(
    Array.from({ length: 16 }, async () => {
      for (let i = next++; i < count; i = next++) {
        const r = await call(url, "POST", cms, body(i));
        assert.equal(r.status, 201, JSON.stringify(r.body));
      }
    }),
  );
}

/** Reads `count` events from a watch. */
async function read(w: { next(): Promise<Loose | undefined> }, count: number): Promise<Loose[]> {
  const out: Loose[] = [];
  while (out.length < count) {
    const e = await w.next();
    if (e === undefined) break;
    out.push(e);
  }
  return out;
}

describe("API server over HTTP: watches with a large backlog", () => {
  let s: TestServer;
  let before0: string;
  before(async () => {
    // History large enough to replay every create, whatever the time the creates take.
    s = await startTestServer({
      controllers: false,
      watchCache: { historyMinCapacity: 8192, historyMaxCapacity: 8192 },
    });
    before0 = (await call(s.url, "GET", `${cms}?limit=1`)).body.metadata.resourceVersion;
    await createMany(s.url, COUNT, (i) => configMap(name(i)));
  });
  after(() => s.close());

  const slowClosed = () => s.server.stats()["/registry/configmaps/"]!.slowWatchersClosed;

  /** Writes `n` live changes and returns their names. */
  async function writeLive(tag: string, n: number): Promise<string[]> {
    const names = Array.from({ length: n }, (_, i) => `${tag}-${i}`);
    for (const n of names) await call(s.url, "POST", cms, configMap(n));
    return names;
  }

  it("streams a list of 5 000 objects, its end bookmark, then live events once and in order", async () => {
    const w = await watch(
      s.url,
      `${cms}?watch=1&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true`,
    );
    const first = await read(w, 1); // the backlog is being written; the client reads slowly
    const live = await writeLive("stream", 20);
    const rest = await read(w, COUNT + live.length);
    w.close();
    const events = [...first, ...rest];
    const initial = events.slice(0, COUNT);
    assert.ok(initial.every((e) => e.type === "ADDED"));
    assert.deepEqual(
      initial.map((e) => e.object.metadata.name),
      Array.from({ length: COUNT }, (_, i) => name(i)),
    );
    const bookmark = events[COUNT];
    assert.equal(bookmark.type, "BOOKMARK");
    assert.equal(bookmark.object.metadata.annotations["k8s.io/initial-events-end"], "true");
    const after = events.slice(COUNT + 1);
    assert.deepEqual(
      after.map((e) => `${e.type} ${e.object.metadata.name}`),
      live.map((n) => `ADDED ${n}`),
    );
    assertAscending([bookmark, ...after]);
    assert.equal(slowClosed(), 0);
  });

  it("sends a legacy watch from resourceVersion 0 every object, then live events", async () => {
    const w = await watch(s.url, `${cms}?watch=1&resourceVersion=0`);
    const first = await read(w, 1);
    const live = await writeLive("legacy", 10);
    const events = [...first, ...(await read(w, COUNT + 20 + live.length - 1))];
    w.close();
    // 5 000 objects plus the 20 of the test before, in key order, then the live ones.
    const initial = events.slice(0, COUNT + 20);
    assert.ok(initial.every((e) => e.type === "ADDED"));
    const names = initial.map((e) => e.object.metadata.name);
    assert.deepEqual(names, [...names].sort());
    assert.equal(new Set(names).size, COUNT + 20);
    assert.deepEqual(
      events.slice(COUNT + 20).map((e) => `${e.type} ${e.object.metadata.name}`),
      live.map((n) => `ADDED ${n}`),
    );
    assert.equal(slowClosed(), 0);
  });

  it("replays more than 1 000 recorded events from an old resourceVersion, in order", async () => {
    const w = await watch(s.url, `${cms}?watch=1&resourceVersion=${before0}`);
    const first = await read(w, 1);
    const live = await writeLive("replay", 10);
    const total = COUNT + 20 + 10 + live.length;
    const events = [...first, ...(await read(w, total - 1))];
    w.close();
    assert.equal(events.length, total);
    assert.ok(events.every((e) => e.type === "ADDED"));
    assertAscending(events);
    assert.deepEqual(
      events.slice(-live.length).map((e) => e.object.metadata.name),
      live,
    );
    assert.equal(slowClosed(), 0);
  });

  it("answers a resume with 410 Expired once the server drops its watch history", async () => {
    const rv = (await call(s.url, "GET", `${cms}?limit=1`)).body.metadata.resourceVersion;
    await writeLive("dropped", 1);
    const latest = (await call(s.url, "GET", `${cms}?limit=1`)).body.metadata.resourceVersion;
    await seenByCache(s.url, cms, latest); // its event is not recorded after the drop
    s.server.dropWatchHistory();
    const w = await watch(s.url, `${cms}?watch=1&resourceVersion=${rv}`);
    const e = await w.next();
    assert.equal(e.type, "ERROR");
    assert.equal(e.object.code, 410);
    await w.ended();
  });
});

describe("API server over HTTP: a watch whose client stops reading", () => {
  it("is closed as too slow once live events overflow its buffer behind the backlog", async () => {
    await using s = await startTestServer({
      controllers: false,
      watchCache: { watcherBufferSize: 3 },
    });
    // A backlog (16 MB) larger than what the sockets can hold while the client does not read.
    const data = { k: "x".repeat(512 * 1024) };
    await createMany(s.url, 32, (i) => configMap(name(i), { data }));
    const { hostname: host, port } = new URL(s.url);
    const socket = connect({ host, port: Number(port) });
    socket.write(`GET ${cms}?watch=1&resourceVersion=0 HTTP/1.1\r\nHost: ${host}:${port}\r\n\r\n`);
    let text = "";
    socket.setEncoding("latin1").on("data", (d: string) => {
      text += d;
    });
    /** Resolves once what the socket received satisfies `done`. */
    const received = (done: () => boolean) =>
      new Promise<void>((resolve) => {
        const check = () => (done() ? resolve() : socket.once("data", check));
        check();
      });
    // The headers and the first objects: the watch has started and its backlog is being sent.
    await received(() => text.includes('"name":"cm-00000"'));
    socket.pause();
    for (let i = 0; i < 4; i++) await call(s.url, "POST", cms, configMap(`live-${i}`));
    // A consistent list: the cache has seen the writes (and closed the watcher) when it returns.
    await call(s.url, "GET", `${cms}?labelSelector=none%3Dnone`);
    assert.equal(s.server.stats()["/registry/configmaps/"]!.slowWatchersClosed, 1);
    // Read on: what was written arrives, then the response ends without a live event.
    socket.resume();
    await received(() => text.endsWith("\r\n0\r\n\r\n"));
    const ended = new Promise<void>((resolve) => socket.once("end", resolve));
    socket.end();
    await ended;
    assert.ok(!text.includes('"name":"live-'), "no live event after a backlog cut short");
  });
});

function assertAscending(events: Loose[]) {
  const rvs = events.map((e) => Number(e.object.metadata.resourceVersion));
  for (let i = 1; i < rvs.length; i++) {
    assert.ok(rvs[i]! > rvs[i - 1]!, `resourceVersions ascend: ${rvs[i - 1]} then ${rvs[i]}`);
  }
}
