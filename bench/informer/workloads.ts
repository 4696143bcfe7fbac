/**
 * One round of each informer workload, for any peer: initial sync (time; heap per cached
 * object, as the heap in use once synced less the heap in use before the informer existed), steady writes (latency from a write's response to the handler), saturation (events
 * per second through a backlog).
 */
import { createClient } from "kontroller/client";
import { configMaps } from "kontroller/resources";
import { heapUsedAfterGc, type Measured, nowMs, percentile } from "../harness.ts";
import type { Peer, PeerInformer } from "./peers.ts";
import type { BenchServer } from "./server-control.ts";

const seqOf = (obj: { data?: Record<string, string> }) => Number(obj.data?.seq ?? -1);

/** `data.seq` values only grow across rounds, so a round never mistakes an old write for its own. */
let nextSeq = 1;
function reserveSeqs(count: number): number {
  const first = nextSeq;
  nextSeq += count;
  return first;
}

/** Syncs `count` objects; reports the time to synced and the heap the cache holds per object. */
export async function syncRound(
  peer: Peer,
  url: string,
  namespace: string,
  count: number,
): Promise<Measured> {
  // Let the previous round's sockets and timers wind down, so that its memory is released.
  await new Promise((r) => setTimeout(r, 200));
  const before = heapUsedAfterGc();
  let seen = 0;
  const informer: PeerInformer = peer(url, namespace, () => void seen++);
  const started = nowMs();
  await informer.start();
  const ms = nowMs() - started;
  const withCache = heapUsedAfterGc();
  await informer.stop();
  if (seen < count) throw new Error(`synced with ${seen} of ${count} objects`);
  return {
    sync_ms: { value: ms, unit: "ms" },
    heap_bytes_per_object: { value: Math.max(0, withCache - before) / count, unit: "B" },
  };
}

/** The ceiling: `JSON.parse` of the list's bytes, fetched beforehand. */
export async function jsonParseRound(url: string, namespace: string): Promise<Measured> {
  const res = await fetch(`${url}/api/v1/namespaces/${namespace}/configmaps`);
  const bytes = Buffer.from(await res.arrayBuffer());
  const started = nowMs();
  const list = JSON.parse(bytes.toString("utf8")) as { items: unknown[] };
  const ms = nowMs() - started;
  if (list.items.length === 0) throw new Error("the list is empty");
  return { sync_ms: { value: ms, unit: "ms" } };
}

/**
 * Writes at `perSecond` for `durationMs` (patching `data.seq` of the namespace's `objects`
 * ConfigMaps, straight to the server) while the informer watches; reports p50 and p99 of the
 * time from each write's response to the handler's call for it (0 when the handler was first).
 */
export async function steadyRound(
  peer: Peer,
  url: string,
  namespace: string,
  objects: number,
  perSecond: number,
  durationMs: number,
): Promise<Measured> {
  const handled = new Map<number, number>();
  const total = Math.round((perSecond * durationMs) / 1000);
  const firstSeq = reserveSeqs(total);
  const informer = peer(url, namespace, (obj) => {
    const seq = seqOf(obj);
    if (seq >= firstSeq) handled.set(seq, nowMs());
  });
  await informer.start();
  const writerClient = createClient({ url });
  const writer = writerClient.resource(configMaps, { namespace });
  const responded = new Map<number, number>();
  let failed = 0;
  const started = nowMs();
  const writes: Promise<unknown>[] = [];
  for (let i = 0; i < total; i++) {
    const due = started + (i * 1000) / perSecond;
    const wait = due - nowMs();
    if (wait > 1) await new Promise((r) => setTimeout(r, wait));
    const seq = firstSeq + i;
    writes.push(
      writer.patch(`cm-${i % objects}`, "merge", { data: { seq: String(seq) } }).then(
        () => responded.set(seq, nowMs()),
        () => failed++,
      ),
    );
  }
  await Promise.all(writes);
  await writerClient.close();
  // A write that failed (a reset keep-alive connection) has no response time: it is left out.
  const seen = () => [...responded.keys()].every((seq) => handled.has(seq));
  const deadline = nowMs() + 10_000;
  while (!seen() && nowMs() < deadline) await new Promise((r) => setTimeout(r, 5));
  await informer.stop();
  if (!seen())
    throw new Error(
      `${peer.name}: the handler missed writes (${handled.size} seen, ${responded.size} answered)`,
    );
  if (failed > total / 100) throw new Error(`${failed} of ${total} writes failed`);
  const latencies = [...responded].map(([seq, at]) => Math.max(0, handled.get(seq)! - at));
  return {
    p50_ms: { value: percentile(latencies, 50), unit: "ms" },
    p99_ms: { value: percentile(latencies, 99), unit: "ms" },
  };
}

/**
 * Holds the informer's watch back (through the server's fault proxy) while `events` updates
 * happen, then lets them through at once: events per second from the release to the last
 * handler call.
 */
export async function saturationRound(
  peer: Peer,
  server: BenchServer,
  namespace: string,
  objects: number,
  events: number,
): Promise<Measured> {
  const firstSeq = reserveSeqs(events);
  let count = 0;
  let done: () => void = () => {};
  const finished = new Promise<void>((r) => {
    done = r;
  });
  const informer = peer(server.proxyUrl, namespace, (obj) => {
    if (seqOf(obj) >= firstSeq && ++count === events) done();
  });
  await informer.start();
  await server.call({ type: "stall" });
  await server.call({ type: "burst", namespace, count: events, objects, firstSeq });
  if (count > 0) throw new Error(`${count} events passed the stalled watch`);
  const started = nowMs();
  await server.call({ type: "resume" });
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<void>((_, reject) => {
    timer = setTimeout(
      () => reject(new Error(`${peer.name}: ${count} of ${events} events after 120 s`)),
      120_000,
    );
  });
  try {
    await Promise.race([finished, timedOut]);
  } finally {
    clearTimeout(timer);
  }
  const ms = nowMs() - started;
  await informer.stop();
  return { events_per_s: { value: events / (ms / 1000), unit: "events/s" } };
}

/**
 * The saturation ceiling: the same burst as {@link saturationRound}, read whole by a bare watch
 * through the proxy, then `JSON.parse` of each of its lines — events per second of parsing alone.
 */
export async function saturationParseRound(
  server: BenchServer,
  namespace: string,
  objects: number,
  events: number,
): Promise<Measured> {
  const firstSeq = reserveSeqs(events);
  const collection = `/api/v1/namespaces/${namespace}/configmaps`;
  const listed = (await (await fetch(`${server.url}${collection}?limit=1`)).json()) as {
    metadata: { resourceVersion: string };
  };
  const stop = new AbortController();
  const res = await fetch(
    `${server.proxyUrl}${collection}?watch=true&resourceVersion=${listed.metadata.resourceVersion}`,
    { signal: stop.signal },
  );
  await server.call({ type: "stall" });
  await server.call({ type: "burst", namespace, count: events, objects, firstSeq });
  await server.call({ type: "resume" });
  const chunks: Buffer[] = [];
  let lines = 0;
  const reader = res.body!.getReader();
  while (lines < events) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`the watch ended after ${lines} of ${events} events`);
    const chunk = Buffer.from(value);
    chunks.push(chunk);
    for (let i = chunk.indexOf(10); i >= 0; i = chunk.indexOf(10, i + 1)) lines++;
  }
  stop.abort();
  const text = Buffer.concat(chunks).toString("utf8").split("\n").slice(0, events);
  const started = nowMs();
  let seen = 0;
  for (const line of text) if (seqOf(JSON.parse(line).object) >= firstSeq) seen++;
  const ms = nowMs() - started;
  if (seen !== events) throw new Error(`parsed ${seen} of ${events} events of the burst`);
  return { events_per_s: { value: events / (ms / 1000), unit: "events/s" } };
}
