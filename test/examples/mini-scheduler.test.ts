/**
 * The mini scheduler end to end, with kubectl against the test server: pods land on nodes
 * with room (and never on cordoned, not-ready or unselected ones); a pod too big for every node
 * stays Pending with a FailedScheduling event and the PodScheduled=False condition, and is
 * scheduled as soon as a bigger node is added (well before its backoff would end); higher
 * priority pods go first.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { createClient } from "kontroller/client";
import { type Event, events, pods } from "kontroller/resources";
import { startTestServer, waitFor } from "kontroller/testing";
import { stringify } from "yaml";
import {
  cpuByNode,
  createNode,
  createPriorityClasses,
  deadline,
  kubectl,
  liftNotReadyTaints,
  nodeObject,
  podObject,
  runScheduler,
  waitForList,
} from "./mini-scheduler-helpers.ts";

/** Several objects as one YAML stream (kubectl asks /openapi/v2 to validate a `kind: List`). */
const list = (...objects: unknown[]) => objects.map((o) => stringify(o)).join("---\n");

describe("example: mini-scheduler", () => {
  it("places pods on nodes with room, as kubectl get pods -o wide shows", async () => {
    await using server = await startTestServer({ controllers: false });
    await using client = createClient({ url: server.url });
    const kc = server.kubeconfigPath;
    await kubectl(
      kc,
      ["create", "-f", "-"],
      list(
        nodeObject("node-a", "2", "4Gi", { labels: { disk: "ssd" } }),
        nodeObject("node-b", "2", "4Gi"),
        nodeObject("node-cordoned", "64", "64Gi", { unschedulable: true }),
        nodeObject("node-down", "64", "64Gi", { ready: false }),
      ),
    );
    await liftNotReadyTaints(client);
    const running = runScheduler(client);
    try {
      const podsYaml = [
        ...Array.from({ length: 6 }, (_, i) => podObject(`web-${i}`, "500m", "512Mi")),
        podObject("db", "500m", "1Gi", { nodeSelector: { disk: "ssd" } }),
      ];
      await kubectl(kc, ["apply", "-f", "-"], list(...podsYaml));
      const placed = await waitForList(
        client.resource(pods, { namespace: "default" }),
        (ps) => ps.length === 7 && ps.every((p) => p.spec?.nodeName),
      );
      const byNode = cpuByNode(placed);
      assert.deepEqual(
        [...byNode.keys()].sort(),
        ["node-a", "node-b"],
        "nothing on the cordoned or not-ready node",
      );
      for (const used of byNode.values()) assert.ok(used <= 2000, `over-committed: ${used}m`);
      assert.equal(placed.find((p) => p.metadata?.name === "db")?.spec?.nodeName, "node-a");

      const wide = await kubectl(kc, ["get", "pods", "-o", "wide"]);
      assert.match(wide, /^NAME\s+READY\s+STATUS\s+RESTARTS\s+AGE\s+IP\s+NODE\s/);
      for (const p of placed) {
        assert.match(
          wide,
          new RegExp(
            `\\n${p.metadata?.name}\\s+0/1\\s+Pending\\s+0\\s+\\S+\\s+<none>\\s+${p.spec?.nodeName}\\s`,
          ),
        );
      }
      const scheduled = await waitForList(
        client.resource(events, { namespace: "default" }),
        (es) => es.length >= 7,
        { fieldSelector: "reason=Scheduled" },
      );
      assert.ok(
        scheduled.some((e: Event) => e.message === "Successfully assigned default/db to node-a"),
      );
      const nodesTable = await kubectl(kc, ["get", "nodes"]);
      assert.match(nodesTable, /\nnode-cordoned\s+Ready,SchedulingDisabled\s/);
    } finally {
      await running.stop();
    }
  });

  it("keeps a pod too big for every node Pending with FailedScheduling, then places it on a bigger node at once", async () => {
    await using server = await startTestServer({ controllers: false });
    await using client = createClient({ url: server.url });
    const kc = server.kubeconfigPath;
    await kubectl(
      kc,
      ["create", "-f", "-"],
      list(nodeObject("small-1", "1"), nodeObject("small-2", "2")),
    );
    await liftNotReadyTaints(client);
    // A minute of backoff: only the event-driven move can place the pod within the test.
    const running = runScheduler(client, { initialBackoffMs: 60_000, maxBackoffMs: 60_000 });
    try {
      await kubectl(kc, ["apply", "-f", "-"], JSON.stringify(podObject("big", "3", "1Gi")));
      const failed = await waitForList(
        client.resource(events, { namespace: "default" }),
        (es) => es.length > 0,
        { fieldSelector: "involvedObject.name=big,reason=FailedScheduling" },
      );
      assert.equal(failed[0]?.type, "Warning");
      assert.equal(failed[0]?.message, "0/2 nodes are available: 2 Insufficient cpu.");
      const pending = await waitFor(
        client.resource(pods, { namespace: "default" }),
        "big",
        (p) =>
          Boolean(
            p?.status?.conditions?.some((c) => c.type === "PodScheduled" && c.status === "False"),
          ),
        { signal: deadline() },
      );
      assert.equal(pending?.spec?.nodeName, undefined);
      const condition = pending?.status?.conditions?.find((c) => c.type === "PodScheduled");
      assert.deepEqual(
        { reason: condition?.reason, message: condition?.message },
        { reason: "Unschedulable", message: "0/2 nodes are available: 2 Insufficient cpu." },
      );
      assert.match(await kubectl(kc, ["get", "pod", "big"]), /\nbig\s+0\/1\s+Pending\s/);
      const describe = await kubectl(kc, ["describe", "pod", "big"]);
      assert.match(describe, /FailedScheduling/);

      await kubectl(kc, ["create", "-f", "-"], JSON.stringify(nodeObject("large", "4")));
      await liftNotReadyTaints(client);
      const bound = await waitFor(
        client.resource(pods, { namespace: "default" }),
        "big",
        (p) => Boolean(p?.spec?.nodeName),
        { signal: deadline() },
      );
      assert.equal(bound?.spec?.nodeName, "large");
      assert.match(
        await kubectl(kc, ["get", "pod", "big", "-o", "wide"]),
        /\sPending\s.*\slarge\s/,
      );
    } finally {
      await running.stop();
    }
    // The same happens when room is made by deleting a pod (and by uncordoning a node).
    await using server2 = await startTestServer({ controllers: false });
    await using client2 = createClient({ url: server2.url });
    await createNode(client2, nodeObject("only", "2"));
    const ps = client2.resource(pods, { namespace: "default" });
    const running2 = runScheduler(client2, { initialBackoffMs: 60_000, maxBackoffMs: 60_000 });
    try {
      await ps.create(podObject("first", "1500m"));
      await waitFor(ps, "first", (p) => Boolean(p?.spec?.nodeName), { signal: deadline() });
      await ps.create(podObject("second", "1500m"));
      await waitForList(client2.resource(events, { namespace: "default" }), (es) => es.length > 0, {
        fieldSelector: "involvedObject.name=second,reason=FailedScheduling",
      });
      // At once, as the kubelet would confirm: kube-apiserver deletes a bound pod gracefully and
      // waits for its kubelet, and none runs here.
      await ps.delete("first", { gracePeriodSeconds: 0 });
      const second = await waitFor(ps, "second", (p) => Boolean(p?.spec?.nodeName), {
        signal: deadline(),
      });
      assert.equal(second?.spec?.nodeName, "only");
    } finally {
      await running2.stop();
    }
  });

  it("schedules higher-priority pods first, and in arrival order within a priority", async () => {
    await using server = await startTestServer({ controllers: false });
    await using client = createClient({ url: server.url });
    const kc = server.kubeconfigPath;
    // Room for three 1-CPU pods; five wait, created before the scheduler starts.
    await kubectl(kc, ["create", "-f", "-"], JSON.stringify(nodeObject("one", "3")));
    await liftNotReadyTaints(client);
    await createPriorityClasses(server, client, [10, 1000]);
    await kubectl(
      kc,
      ["create", "-f", "-"],
      list(
        podObject("a-low", "1", "64Mi", { priority: 0 }),
        podObject("b-low", "1", "64Mi", { priority: 0 }),
        podObject("c-mid", "1", "64Mi", { priority: 10 }),
        podObject("d-high", "1", "64Mi", { priority: 1000 }),
        podObject("e-high", "1", "64Mi", { priority: 1000 }),
      ),
    );
    const running = runScheduler(client, { initialBackoffMs: 60_000, maxBackoffMs: 60_000 });
    try {
      await running.scheduler.whenIdle();
      const all = (await client.resource(pods, { namespace: "default" }).list()).items;
      const bound = all
        .filter((p) => p.spec?.nodeName)
        .map((p) => p.metadata?.name)
        .sort();
      assert.deepEqual(bound, ["c-mid", "d-high", "e-high"]);
      const table = await kubectl(kc, ["get", "pods", "-o", "wide"]);
      assert.match(table, /\na-low\s+0\/1\s+Pending\s+0\s+\S+\s+<none>\s+<none>\s/);
      // Within a priority the first to arrive goes first: free one slot, and a-low gets it.
      // At once, as the kubelet would confirm (see above).
      await client
        .resource(pods, { namespace: "default" })
        .delete("c-mid", { gracePeriodSeconds: 0 });
      const a = await waitFor(
        client.resource(pods, { namespace: "default" }),
        "a-low",
        (p) => Boolean(p?.spec?.nodeName),
        { signal: deadline() },
      );
      assert.equal(a?.spec?.nodeName, "one");
      await running.scheduler.whenIdle();
      const b = await client.resource(pods, { namespace: "default" }).get("b-low");
      assert.equal(b.spec?.nodeName, undefined);
    } finally {
      await running.stop();
    }
  });
});
