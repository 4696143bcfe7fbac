/**
 * The health-monitor example under its own ServiceAccount, on a server that enforces RBAC, with
 * the rules of examples/health-monitor/rbac.yaml: they let it probe monitors of every namespace
 * into their status; without any one verb of them it is refused with the 403 production would
 * give; and they are exactly the rules the RequestRecorder writes for what it did.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { Client } from "kontroller/client";
import { customResourceDefinitions, isEstablished, namespaces } from "kontroller/resources";
import { embeddedOnly, waitFor } from "kontroller/testing";
import { healthMonitorController } from "../../examples/health-monitor/controller.ts";
import { HealthMonitor } from "../../examples/health-monitor/health-monitor.ts";
import { startProbeTarget } from "../../examples/health-monitor/probe-target.ts";
import {
  assertForbiddenFor,
  assertRecordedRbac,
  grantsOf,
  type Manifest,
  readManifests,
  stepsUntilForbidden,
  type UnderServiceAccount,
  underServiceAccount,
  without,
} from "./rbac-manifest.ts";

const MANIFEST = new URL("../../examples/health-monitor/rbac.yaml", import.meta.url).pathname;

/** The example under the manifest's ServiceAccount, its CRD installed by the administrator. */
function underManifests(
  manifests: readonly Manifest[],
  body: (ctx: UnderServiceAccount) => Promise<void>,
): Promise<void> {
  return underServiceAccount(
    {
      manifests,
      install: async (admin) => {
        await admin.resource(customResourceDefinitions).create(HealthMonitor.crd());
        await waitFor(
          admin.resource(customResourceDefinitions),
          "healthmonitors.example.com",
          (crd) => crd !== undefined && isEstablished(crd),
        );
        await admin.resource(namespaces).create({ metadata: { name: "shop" } });
      },
      controller: (manager) => healthMonitorController(manager),
    },
    body,
  );
}

/**
 * The example's job: a monitor in each of two namespaces is probed, the result written to its
 * status. The interval is an hour, so no re-check comes while the test runs.
 */
function probeTwo(admin: Client, target: string): ((signal: AbortSignal) => Promise<unknown>)[] {
  return ["default", "shop"].map((namespace) => async (signal: AbortSignal) => {
    const monitors = admin.resource(HealthMonitor).inNamespace(namespace);
    await monitors.create(
      HealthMonitor.object({
        metadata: { name: "web", namespace },
        spec: { url: `${target}/healthy`, intervalSeconds: 3600, active: false },
      }),
    );
    await waitFor(monitors, "web", (m) => m?.status?.healthy === true, { signal });
  });
}

describe("example: health-monitor under its RBAC manifest", {
  timeout: 60_000,
  skip: embeddedOnly("the recorder reads the embedded server's audit events"),
}, () => {
  it("probes monitors of every namespace as its ServiceAccount, and the recorder writes exactly the manifest's rules", async () => {
    const manifests = await readManifests(MANIFEST);
    await using target = await startProbeTarget();
    await underManifests(manifests, async ({ admin, recorder, subject, username }) => {
      const refused = await stepsUntilForbidden(recorder, username, probeTwo(admin, target.url));
      assert.equal(refused, undefined, `refused: ${refused?.responseStatus?.message}`);
      const web = await admin.resource(HealthMonitor).inNamespace("shop").get("web");
      assert.equal(web.status?.statusCode, 200);
      // Nothing was refused, and the recorder's ClusterRole and binding are the manifest's.
      assertRecordedRbac(recorder, subject, manifests);
    });
  });

  it("meets kube's 403 Forbidden without any one verb of the manifest's rules", async (t) => {
    const manifests = await readManifests(MANIFEST);
    const grants = grantsOf(manifests);
    assert.deepEqual(
      grants.map((g) => `${g.verb} ${g.group}/${g.resource}`),
      ["watch example.com/healthmonitors", "patch example.com/healthmonitors/status"],
    );
    await using target = await startProbeTarget();
    // Each verb in turn, each on a server of its own.
    for (const grant of grants) {
      await t.test(`without ${grant.verb} on ${grant.group}/${grant.resource}`, async () => {
        await underManifests(without(manifests, grant), async ({ admin, recorder, username }) => {
          const refused = await stepsUntilForbidden(
            recorder,
            username,
            probeTwo(admin, target.url),
          );
          assert.ok(refused, "the controller did its job without the rule");
          assertForbiddenFor(refused, grant);
        });
      });
    }
  });
});
