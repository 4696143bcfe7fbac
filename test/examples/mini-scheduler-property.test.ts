/**
 * fast-check: random nodes (CPU, memory, pod slots, zone label, cordoned, not ready) and random
 * pods (requests, priority, zone selector) against the test server. Checked against a
 * reference model of fitting, not the scheduler's own filters: no node is ever over-committed
 * (at every change a watch sees), every pod lands only where it may, and every pod that fits
 * somewhere is bound — first from the start, then again after random bound pods are deleted
 * (their room goes to pods that waited, with a backoff too long to matter: the event-driven
 * move does it).
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import { createClient } from "kontroller/client";
import { type Node, type Pod, pods } from "kontroller/resources";
import { startTestServer } from "kontroller/testing";
import {
  createNode,
  createPriorityClasses,
  deadline,
  priorityClassName,
  runScheduler,
  SCHEDULER,
  trackPlacements,
  waitForList,
} from "./mini-scheduler-helpers.ts";

interface NodeSpec {
  cpu: number;
  memoryMi: number;
  slots: number;
  zone: "a" | "b";
  cordoned: boolean;
  ready: boolean;
}

interface PodSpec {
  cpu: number;
  memoryMi: number;
  priority: number;
  zone: "a" | "b" | undefined;
}

const nodeSpec = fc.record({
  cpu: fc.integer({ min: 2, max: 24 }).map((n) => n * 250),
  memoryMi: fc.integer({ min: 2, max: 16 }).map((n) => n * 512),
  slots: fc.integer({ min: 1, max: 10 }),
  zone: fc.constantFrom("a" as const, "b" as const),
  cordoned: fc.integer({ min: 0, max: 6 }).map((n) => n === 0),
  ready: fc.integer({ min: 0, max: 9 }).map((n) => n > 0),
});

const podSpec = fc.record({
  cpu: fc.integer({ min: 0, max: 15 }).map((n) => n * 100),
  memoryMi: fc.integer({ min: 0, max: 16 }).map((n) => n * 128),
  priority: fc.constantFrom(0, 0, 100),
  zone: fc.constantFrom(undefined, undefined, "a" as const, "b" as const),
});

function nodeName(i: number): string {
  return `node-${i}`;
}

function toNode(s: NodeSpec, i: number): Node {
  return {
    metadata: { name: nodeName(i), labels: { zone: s.zone } },
    ...(s.cordoned ? { spec: { unschedulable: true } } : {}),
    status: {
      capacity: { cpu: `${s.cpu}m`, memory: `${s.memoryMi}Mi`, pods: String(s.slots) },
      conditions: [{ type: "Ready", status: s.ready ? "True" : "False" }],
    },
  };
}

function toPod(s: PodSpec, i: number): Pod {
  return {
    metadata: { name: `pod-${String(i).padStart(2, "0")}`, namespace: "default" },
    spec: {
      schedulerName: SCHEDULER,
      priority: s.priority,
      ...(s.priority ? { priorityClassName: priorityClassName(s.priority) } : {}),
      ...(s.zone ? { nodeSelector: { zone: s.zone } } : {}),
      containers: [
        {
          name: "c",
          image: "x",
          resources: { requests: { cpu: `${s.cpu}m`, memory: `${s.memoryMi}Mi` } },
        },
      ],
    },
  };
}

/** The reference model: what each node has left, and whether a pod may go there. */
function model(nodeSpecs: NodeSpec[], podSpecs: PodSpec[], state: readonly Pod[]) {
  const specOf = new Map(podSpecs.map((s, i) => [toPod(s, i).metadata!.name!, s]));
  const used = nodeSpecs.map(() => ({ cpu: 0, memoryMi: 0, pods: 0 }));
  for (const p of state) {
    const node = p.spec?.nodeName;
    if (!node) continue;
    const s = specOf.get(p.metadata!.name!)!;
    const u = used[Number(node.slice("node-".length))]!;
    u.cpu += s.cpu;
    u.memoryMi += s.memoryMi;
    u.pods += 1;
  }
  const eligible = (s: PodSpec, n: NodeSpec) =>
    n.ready && !n.cordoned && (s.zone === undefined || s.zone === n.zone);
  const fitsOn = (s: PodSpec, i: number) => {
    const n = nodeSpecs[i]!;
    const u = used[i]!;
    return (
      eligible(s, n) &&
      u.pods + 1 <= n.slots &&
      (s.cpu === 0 || u.cpu + s.cpu <= n.cpu) &&
      (s.memoryMi === 0 || u.memoryMi + s.memoryMi <= n.memoryMi)
    );
  };
  const overCommitted = nodeSpecs.flatMap((n, i) => {
    const u = used[i]!;
    return u.pods > n.slots || u.cpu > n.cpu || u.memoryMi > n.memoryMi
      ? [`${nodeName(i)} over-committed: ${JSON.stringify(u)} of ${JSON.stringify(n)}`]
      : [];
  });
  const misplaced = state.flatMap((p) => {
    const node = p.spec?.nodeName;
    if (!node) return [];
    const n = nodeSpecs[Number(node.slice("node-".length))]!;
    return eligible(specOf.get(p.metadata!.name!)!, n) ? [] : [`${p.metadata?.name} on ${node}`];
  });
  const stuck = state.filter(
    (p) => !p.spec?.nodeName && nodeSpecs.some((_, i) => fitsOn(specOf.get(p.metadata!.name!)!, i)),
  );
  return { overCommitted, misplaced, stuck };
}

describe("example: mini-scheduler (property)", () => {
  it("never over-commits a node and binds every pod that fits somewhere", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(nodeSpec, { minLength: 1, maxLength: 6 }),
        fc.array(podSpec, { minLength: 1, maxLength: 25 }),
        fc.array(fc.nat(), { maxLength: 5 }),
        async (nodeSpecs, podSpecs, toDelete) => {
          await using server = await startTestServer({ controllers: false });
          await using client = createClient({ url: server.url });
          const podClient = client.resource(pods, { namespace: "default" });
          await Promise.all(nodeSpecs.map((s, i) => createNode(client, toNode(s, i))));
          await createPriorityClasses(server, client, [100]);
          const log = await trackPlacements(
            client,
            new Map(nodeSpecs.map((s, i) => [nodeName(i), s.cpu])),
          );
          await Promise.all(podSpecs.map((s, i) => podClient.create(toPod(s, i))));
          const running = runScheduler(client, { initialBackoffMs: 60_000, maxBackoffMs: 60_000 });
          try {
            const settled = (ps: Pod[]) =>
              ps.length === podSpecs.length && model(nodeSpecs, podSpecs, ps).stuck.length === 0;
            let state = await waitForList(podClient, settled, { signal: deadline() });
            let m = model(nodeSpecs, podSpecs, state);
            assert.deepEqual([...m.overCommitted, ...m.misplaced], []);

            // Free some room: delete bound pods; the waiting pods that now fit must be bound.
            const bound = state.filter((p) => p.spec?.nodeName);
            const victims = new Set(
              toDelete.flatMap((k) => (bound.length ? [bound[k % bound.length]!] : [])),
            );
            // At once, as the kubelet would confirm: kube-apiserver deletes a bound pod
            // gracefully and waits for its kubelet, and none runs here.
            for (const v of victims) {
              await podClient.delete(v.metadata!.name!, { gracePeriodSeconds: 0 });
            }
            const left = podSpecs.length - victims.size;
            state = await waitForList(
              podClient,
              (ps) => ps.length === left && model(nodeSpecs, podSpecs, ps).stuck.length === 0,
              { signal: deadline() },
            );
            m = model(nodeSpecs, podSpecs, state);
            assert.deepEqual([...m.overCommitted, ...m.misplaced], []);
            await running.scheduler.whenIdle(deadline());
            assert.deepEqual(log.violations, []);
            assert.equal(running.scheduler.stats.bindFailures, 0);
          } finally {
            log.stop();
            await running.stop();
          }
        },
      ),
      { numRuns: 40 },
    );
  });
});
