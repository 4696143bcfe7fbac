/**
 * The work-queue workloads, written once against the smallest queue interface so that kontroller
 * and the naive baselines run exactly the same code. Keys are built — and hashed once, by a
 * throwaway `Set` — before the clock starts, so both sides measure queue work, not string building
 * (informer keys arrive already built).
 */
import { heapUsedAfterGc, type Measured, nowMs, percentile } from "../harness.ts";

/** What every workload needs from a queue. */
export interface BenchQueue<T> {
  add(item: T): void;
  get(): Promise<T | undefined>;
  done(item: T): void;
  shutDown(): void;
}

/** `ns-<i % 1000>/obj-<i>` for i in [0, n), hashed. */
export function makeKeys(n: number): string[] {
  const keys = new Array<string>(n);
  for (let i = 0; i < n; i++) keys[i] = `ns-${i % 1000}/obj-${i}`;
  new Set(keys);
  return keys;
}

/** Yields to the event loop, as a producer that waits for I/O does. */
export function yieldToEventLoop(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/** A worker: get, done, until the queue is shut down and empty. Returns how many it processed. */
export async function worker<T>(q: BenchQueue<T>): Promise<number> {
  let n = 0;
  for (;;) {
    const item = await q.get();
    if (item === undefined) return n;
    q.done(item);
    n++;
  }
}

/** W1: one producer adds distinct keys in bursts of 1 000; one consumer gets and dones. */
export async function fifoDistinct(q: BenchQueue<string>, n: number): Promise<Measured> {
  const keys = makeKeys(n);
  heapUsedAfterGc();
  const start = nowMs();
  const consumer = worker(q);
  for (let i = 0; i < n; i += 1000) {
    const end = Math.min(n, i + 1000);
    for (let j = i; j < end; j++) q.add(keys[j]!);
    await yieldToEventLoop();
  }
  q.shutDown();
  const processed = await consumer;
  const ms = nowMs() - start;
  if (processed !== n) throw new Error(`W1: processed ${processed} of ${n}`);
  return { items_per_s: { value: n / (ms / 1000), unit: "items/s" } };
}

/**
 * W2: `adds` adds of keys drawn at random from `distinct` hot keys, in bursts of 10 000 (a burst
 * re-adds many keys still queued), while 4 workers get and done.
 */
export async function dedupeHot(
  q: BenchQueue<string>,
  adds: number,
  distinct: number,
): Promise<Measured> {
  const keys = makeKeys(distinct);
  const picks = Uint32Array.from({ length: adds }, () => Math.floor(Math.random() * distinct));
  heapUsedAfterGc();
  const start = nowMs();
  const workers = [worker(q), worker(q), worker(q), worker(q)];
  for (let i = 0; i < adds; i += 10_000) {
    const end = Math.min(adds, i + 10_000);
    for (let j = i; j < end; j++) q.add(keys[picks[j]!]!);
    await yieldToEventLoop();
  }
  const addMs = nowMs() - start;
  q.shutDown();
  const processed = (await Promise.all(workers)).reduce((a, b) => a + b, 0);
  return {
    adds_per_s: { value: adds / (addMs / 1000), unit: "adds/s" },
    processed: { value: processed, unit: "items" },
  };
}

/** W3: pre-fill with distinct keys (adds/s, bytes per item), then 4 workers drain (items/s). */
export async function workers4(q: BenchQueue<string>, n: number): Promise<Measured> {
  const keys = makeKeys(n);
  const before = heapUsedAfterGc();
  let start = nowMs();
  for (let i = 0; i < n; i++) q.add(keys[i]!);
  const fillMs = nowMs() - start;
  const bytesPerItem = (heapUsedAfterGc() - before) / n;
  start = nowMs();
  q.shutDown();
  const drained = (await Promise.all([worker(q), worker(q), worker(q), worker(q)])).reduce(
    (a, b) => a + b,
    0,
  );
  const drainMs = nowMs() - start;
  if (drained !== n) throw new Error(`W3: drained ${drained} of ${n}`);
  return {
    adds_per_s: { value: n / (fillMs / 1000), unit: "adds/s" },
    drain_items_per_s: { value: n / (drainMs / 1000), unit: "items/s" },
    bytes_per_item: { value: bytesPerItem, unit: "bytes" },
  };
}

/** What W4 needs: a rate-limiting queue. */
export interface BenchRateLimitingQueue<T> extends BenchQueue<T> {
  addRateLimited(item: T): void;
  forget(item: T): void;
}

/** W4: bursts of `addRateLimited` of distinct keys (zero delay); one consumer gets, forgets, dones. */
export async function rateLimited(q: BenchRateLimitingQueue<string>, n: number): Promise<Measured> {
  const keys = makeKeys(n);
  heapUsedAfterGc();
  const start = nowMs();
  const consumer = (async () => {
    let processed = 0;
    for (let item = await q.get(); item !== undefined; item = await q.get()) {
      q.forget(item);
      q.done(item);
      processed++;
    }
    return processed;
  })();
  for (let i = 0; i < n; i += 1000) {
    const end = Math.min(n, i + 1000);
    for (let j = i; j < end; j++) q.addRateLimited(keys[j]!);
    await yieldToEventLoop();
  }
  q.shutDown();
  const processed = await consumer;
  const ms = nowMs() - start;
  if (processed !== n) throw new Error(`W4: processed ${processed} of ${n}`);
  return { items_per_s: { value: n / (ms / 1000), unit: "items/s" } };
}

/** What W5 needs: a delaying queue on the real clock. */
export interface BenchDelayingQueue<T> extends BenchQueue<T> {
  addAfter(item: T, delayMs: number): void;
}

/**
 * W5: `addAfter` of distinct keys with delays uniform in [0, maxDelayMs], in bursts of 1 000 (a
 * producer that yields to the event loop between bursts, so timers run while it adds); one
 * consumer. Lateness is hand-out time minus due time, for the items due after the last `addAfter`
 * returned.
 */
export async function delaying(
  q: BenchDelayingQueue<string>,
  n: number,
  maxDelayMs: number,
): Promise<Measured> {
  const keys = makeKeys(n);
  const indexOf = new Map(keys.map((k, i) => [k, i]));
  const delays = Float64Array.from({ length: n }, () => Math.random() * maxDelayMs);
  // Preallocated, so that the measurement itself allocates nothing per item.
  const due = new Float64Array(n);
  const lateness = new Float64Array(n);
  let late = 0;
  heapUsedAfterGc();
  let addsEnd = Number.POSITIVE_INFINITY;
  const consumer = (async () => {
    let processed = 0;
    for (let item = await q.get(); item !== undefined; item = await q.get()) {
      const at = due[indexOf.get(item)!]!;
      if (at > addsEnd) lateness[late++] = nowMs() - at;
      q.done(item);
      if (++processed === n) break;
    }
    return processed;
  })();
  const start = nowMs();
  for (let i = 0; i < n; i += 1000) {
    const end = Math.min(n, i + 1000);
    for (let j = i; j < end; j++) {
      due[j] = nowMs() + delays[j]!;
      q.addAfter(keys[j]!, delays[j]!);
    }
    if (end < n) await yieldToEventLoop();
  }
  addsEnd = nowMs();
  const processed = await consumer;
  const ms = nowMs() - start;
  q.shutDown();
  if (processed !== n) throw new Error(`W5: processed ${processed} of ${n}`);
  const measured = [...lateness.subarray(0, late)];
  return {
    items_per_s: { value: n / (ms / 1000), unit: "items/s" },
    lateness_p50_ms: { value: percentile(measured, 50), unit: "ms" },
    lateness_p99_ms: { value: percentile(measured, 99), unit: "ms" },
  };
}

/**
 * Two lanes: `slow` keys queued, 4 workers start (each item takes one event-loop turn, as a
 * reconcile doing I/O), then `fast` keys arrive in bursts of 100; the wait of a fast key is from
 * its `add` to its hand-out. `isFast` marks the fast keys for a
 * two-lane strategy; FIFO ignores it.
 */
export async function twoLane(
  makeQueue: (isFast: (key: string) => boolean) => BenchQueue<string>,
  slow: number,
  fast: number,
): Promise<Measured> {
  const slowKeys = makeKeys(slow);
  const fastKeys = Array.from({ length: fast }, (_, i) => `urgent/obj-${i}`);
  const fastSet = new Set(fastKeys);
  const q = makeQueue((key) => fastSet.has(key));
  for (const k of slowKeys) q.add(k);
  const addedAt = new Map<string, number>();
  const waits: number[] = [];
  const work = async () => {
    for (let item = await q.get(); item !== undefined; item = await q.get()) {
      const at = addedAt.get(item);
      if (at !== undefined) waits.push(nowMs() - at);
      await yieldToEventLoop(); // the reconcile's I/O
      q.done(item);
    }
  };
  const workers = [work(), work(), work(), work()];
  for (let i = 0; i < fast; i += 100) {
    await yieldToEventLoop();
    for (const k of fastKeys.slice(i, i + 100)) {
      addedAt.set(k, nowMs());
      q.add(k);
    }
  }
  q.shutDown();
  await Promise.all(workers);
  if (waits.length !== fast) throw new Error(`two-lane: ${waits.length} of ${fast} fast keys`);
  return { fast_wait_p99_ms: { value: percentile(waits, 99), unit: "ms" } };
}
