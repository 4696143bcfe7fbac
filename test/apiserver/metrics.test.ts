/**
 * `/metrics`: kube-apiserver's main series in Prometheus' text format — requests by verb, scope
 * and code, their latency, watches in flight, watch events sent and objects stored — with kube's
 * names and labels. Runs on both backends (kube refreshes its object counts on a timer, so that
 * count is checked on the embedded server only).
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { embeddedOnly, startTestServer, type TestServer } from "kontroller/testing";
import { call, configMap, watch } from "./helpers.ts";

let s: TestServer;
before(async () => {
  s = await startTestServer({ controllers: false });
});
after(() => s.close());

/** One sample of the exposition: its labels and value. */
interface Sample {
  labels: Record<string, string>;
  value: number;
}

/** The samples of `name` in the server's /metrics answer. */
async function samples(name: string): Promise<Sample[]> {
  const res = await fetch(`${s.url}/metrics`);
  assert.equal(res.status, 200);
  assert.match(res.headers.get("content-type") ?? "", /^text\/plain/);
  const out: Sample[] = [];
  for (const line of (await res.text()).split("\n")) {
    const m = /^([a-z_]+)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (m === null || m[1] !== name) continue;
    const labels: Record<string, string> = {};
    for (const l of (m[2] ?? "").matchAll(/([a-z_]+)="((?:[^"\\]|\\.)*)"/g)) labels[l[1]!] = l[2]!;
    out.push({ labels, value: Number(m[3]) });
  }
  return out;
}

/** The value of the sample of `name` whose labels include `want` (0 if there is none). */
async function sampleValue(name: string, want: Record<string, string>): Promise<number> {
  const found = (await samples(name)).filter((x) =>
    Object.entries(want).every(([k, v]) => x.labels[k] === v),
  );
  return found.reduce((sum, x) => sum + x.value, 0);
}

const NS = "/api/v1/namespaces/default/configmaps";
const configmaps = { group: "", version: "v1", resource: "configmaps", component: "apiserver" };

describe("/metrics", () => {
  it("counts requests by kube's verb, scope and code, and times them", async () => {
    const posted = { ...configmaps, verb: "POST", scope: "resource", code: "201", dry_run: "" };
    const listed = { ...configmaps, verb: "LIST", scope: "namespace", code: "200" };
    const missing = { ...configmaps, verb: "GET", scope: "resource", code: "404" };
    const before = await Promise.all(
      [posted, listed, missing].map((l) => sampleValue("apiserver_request_total", l)),
    );
    assert.equal((await call(s.url, "POST", NS, configMap("metrics-a"))).status, 201);
    assert.equal((await call(s.url, "GET", NS)).status, 200);
    assert.equal((await call(s.url, "GET", `${NS}/metrics-missing`)).status, 404);
    const now = await Promise.all(
      [posted, listed, missing].map((l) => sampleValue("apiserver_request_total", l)),
    );
    assert.deepEqual(
      now.map((n, i) => n - before[i]!),
      [1, 1, 1],
    );
    const { code: _, ...timed } = posted;
    assert.ok((await sampleValue("apiserver_request_duration_seconds_count", timed)) >= 1);
    const bucket = (await samples("apiserver_request_duration_seconds_bucket")).find(
      (x) => x.labels.resource === "configmaps" && x.labels.le === "60",
    );
    assert.ok(bucket !== undefined, "kube's buckets, up to 60 s");
  });

  it("shows a watch as long-running while it lasts, and counts the events it sent", async () => {
    const watching = { ...configmaps, verb: "WATCH", scope: "namespace" };
    const events = { group: "", version: "v1", resource: "configmaps" };
    const sentBefore = await sampleValue("apiserver_watch_events_total", events);
    // kube-apiserver watches some configmaps itself: count from what is there.
    const inFlight = await sampleValue("apiserver_longrunning_requests", watching);
    const list = await call(s.url, "GET", NS);
    const stream = await watch(
      s.url,
      `${NS}?watch=1&resourceVersion=${list.body.metadata.resourceVersion}`,
    );
    assert.equal(await sampleValue("apiserver_longrunning_requests", watching), inFlight + 1);
    assert.equal((await call(s.url, "POST", NS, configMap("metrics-watched"))).status, 201);
    const event = await stream.next();
    assert.equal(event.type, "ADDED");
    assert.ok((await sampleValue("apiserver_watch_events_total", events)) >= sentBefore + 1);
    stream.close();
    assert.equal((await call(s.url, "POST", NS, configMap("metrics-after"))).status, 201);
  });

  it("counts the objects stored per resource", {
    skip: embeddedOnly("kube-apiserver refreshes apiserver_storage_objects on a timer"),
  }, async () => {
    const count = () => sampleValue("apiserver_storage_objects", { resource: "configmaps" });
    const before = await count();
    assert.equal((await call(s.url, "POST", NS, configMap("metrics-counted"))).status, 201);
    assert.equal(await count(), before + 1);
    assert.equal(
      (await sampleValue("apiserver_storage_objects", { resource: "namespaces" })) >= 4,
      true,
    );
  });
});
