import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { silentLogger } from "../cache/index.ts";
import { createClient, type DiscoveredResource, DiscoveryClient } from "../client/index.ts";
import type { KubeObject } from "../core/index.ts";
import { configMaps } from "../resources/index.ts";
import { startTestServer } from "../testing/index.ts";
import { type MonitorHandler, ResourceMonitors } from "./monitors.ts";

function recorder() {
  const seen: string[] = [];
  const objects: KubeObject[] = [];
  let wake = () => {};
  const handler: MonitorHandler = {
    observed: (r, obj, old) => {
      objects.push(obj);
      seen.push(`${old === undefined ? "add" : "update"} ${r.plural} ${obj.metadata?.name}`);
      wake();
    },
    deleted: (r, obj) => {
      seen.push(`delete ${r.plural} ${obj.metadata?.name}`);
      wake();
    },
    resourceRemoved: (r) => {
      seen.push(`removed ${r.plural}`);
      wake();
    },
  };
  /** Resolves once `line` has been seen. */
  const saw = (line: string) =>
    new Promise<void>((resolve) => {
      const check = () => {
        if (seen.includes(line)) resolve();
      };
      wake = check;
      check();
    });
  return { handler, seen, objects, saw };
}

describe("ResourceMonitors", () => {
  it("watches the resources it is given, cut down to metadata, and stops those it is not", async () => {
    await using s = await startTestServer({ controllers: false });
    await using client = createClient({ url: s.url });
    const cms = client.resource(configMaps, { namespace: "default" });
    await cms.create({ metadata: { name: "a", finalizers: ["x/y"] }, data: { big: "value" } });
    const { preferred } = await new DiscoveryClient({ client }).discover();
    const byPlural = (p: string) => preferred.find((r) => r.plural === p) as DiscoveredResource;
    const r = recorder();
    let synced = 0;
    const monitors = new ResourceMonitors({
      client,
      handler: r.handler,
      logger: silentLogger,
      onSynced: () => synced++,
    });
    const first = await monitors.sync([byPlural("configmaps"), byPlural("secrets")]);
    assert.deepEqual(first.added.sort(), ["/v1/configmaps", "/v1/secrets"]);
    await monitors.waitForSync();
    assert.ok(monitors.hasSynced());
    assert.ok(monitors.watches("", "configmaps") && !monitors.watches("", "pods"));
    await r.saw("add configmaps a");
    const a = r.objects.find((o) => o.metadata?.name === "a")!;
    assert.equal((a as { data?: unknown }).data, undefined, "only metadata is kept");
    assert.deepEqual(a.metadata?.finalizers, ["x/y"]);
    assert.ok(a.metadata?.uid);

    await cms.patch("a", "merge", { metadata: { labels: { l: "1" } } });
    await r.saw("update configmaps a");
    await cms.patch("a", "merge", { metadata: { finalizers: null } });
    await cms.delete("a");
    await r.saw("delete configmaps a");

    const kept = await monitors.sync([byPlural("configmaps")], (res) => res.plural === "secrets");
    assert.deepEqual(kept, { added: [], removed: [] }, "a resource discovery failed on is kept");
    const dropped = await monitors.sync([byPlural("configmaps")]);
    assert.deepEqual(dropped.removed, ["/v1/secrets"]);
    assert.ok(r.seen.includes("removed secrets"));
    assert.deepEqual(
      monitors.resources.map((m) => m.plural),
      ["configmaps"],
    );
    await monitors.sync([byPlural("configmaps"), byPlural("pods")]);
    await monitors.waitForSync();
    assert.ok(synced >= 1);

    await monitors.stop();
    await monitors.stop();
    assert.deepEqual(await monitors.sync([byPlural("leases")]), { added: [], removed: [] });
    assert.deepEqual(monitors.resources, []);
    assert.ok(monitors.hasSynced(), "nothing left to sync");
  });
});
