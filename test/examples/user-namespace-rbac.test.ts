/**
 * The user-namespace example under its own ServiceAccount, on a server that enforces RBAC, with
 * the rules of examples/user-namespace/rbac.yaml: they let it do its whole job; without any one
 * verb of them it is refused with the 403 production would give; and they are exactly the rules
 * the RequestRecorder writes for what it did.
 */
import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "node:test";
import type { Client } from "kontroller/client";
import { customResourceDefinitions, namespaces } from "kontroller/resources";
import { embeddedOnly, waitFor } from "kontroller/testing";
import {
  CLEANUP_FINALIZER,
  DISPLAY_NAME_LABEL,
  USER_LABEL,
  userNamespaceController,
} from "../../examples/user-namespace/controller.ts";
import { User } from "../../examples/user-namespace/user.ts";
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

const MANIFEST = new URL("../../examples/user-namespace/rbac.yaml", import.meta.url).pathname;

/**
 * The example under the manifest's ServiceAccount, its User CRD installed by the administrator
 * and its external state in a folder of its own.
 */
async function underManifests(
  manifests: readonly Manifest[],
  body: (ctx: UnderServiceAccount) => Promise<void>,
): Promise<void> {
  const dataDir = await mkdtemp(join(tmpdir(), "kontroller-users-"));
  try {
    await underServiceAccount(
      {
        manifests,
        install: async (admin) => {
          await admin.resource(customResourceDefinitions).create(User.crd());
          await waitFor(admin.resource(User), "nobody", (u) => u === undefined); // served
        },
        controller: (manager) => userNamespaceController(manager, { dataDir }),
        // The first finalizer patch meets a conflict, as it may whenever the User changes
        // meanwhile: the controller reads the User again (`get`), every run, not only by chance.
        faults: [
          {
            status: 409,
            count: 1,
            match: (r) =>
              r.method === "PATCH" && /^\/apis\/example\.com\/v1\/users\/[^/]+$/.test(r.path),
          },
        ],
      },
      body,
    );
  } finally {
    await rm(dataDir, { recursive: true, force: true });
  }
}

/**
 * The example's whole job, step by step, each step waiting until the controller has done its
 * part: a User gets its Namespace and a Ready status; a new display name relabels the Namespace
 * (an update of it); deleting the User runs the finalizer and lets it go.
 */
function userLifecycle(admin: Client): ((signal: AbortSignal) => Promise<unknown>)[] {
  return [
    async (signal) => {
      await admin
        .resource(User)
        .create(User.object({ metadata: { name: "ann" }, spec: { displayName: "Ann Example" } }));
      await waitFor(
        admin.resource(User),
        "ann",
        (u) => u?.status?.conditions?.[0]?.status === "True",
        {
          signal,
        },
      );
    },
    async (signal) => {
      await admin.resource(User).patch("ann", "merge", { spec: { displayName: "Ann Other" } });
      await waitFor(
        admin.resource(namespaces),
        "user-ann",
        (n) => n?.metadata?.labels?.[DISPLAY_NAME_LABEL] === "ann-other",
        { signal },
      );
      await waitFor(admin.resource(User), "ann", (u) => u?.status?.observedGeneration === 2, {
        signal,
      });
    },
    async (signal) => {
      await admin.resource(User).delete("ann");
      await waitFor(admin.resource(User), "ann", (u) => u === undefined, { signal });
    },
  ];
}

describe("example: user-namespace under its RBAC manifest", {
  timeout: 60_000,
  skip: embeddedOnly("the recorder reads the embedded server's audit events"),
}, () => {
  it("does its whole job as its ServiceAccount, and the recorder writes exactly the manifest's rules", async () => {
    const manifests = await readManifests(MANIFEST);
    await underManifests(manifests, async ({ admin, recorder, subject, username }) => {
      const refused = await stepsUntilForbidden(
        recorder,
        username,
        userLifecycle(admin).slice(0, 1),
      );
      assert.equal(refused, undefined, `refused: ${refused?.responseStatus?.message}`);
      const ns = await admin.resource(namespaces).get("user-ann");
      assert.equal(ns.metadata?.labels?.[USER_LABEL], "ann");
      assert.equal(ns.metadata?.ownerReferences?.[0]?.name, "ann");
      const user = await admin.resource(User).get("ann");
      assert.deepEqual(user.metadata.finalizers, [CLEANUP_FINALIZER]);
      assert.equal(user.status?.namespace, "user-ann");

      const rest = await stepsUntilForbidden(recorder, username, userLifecycle(admin).slice(1));
      assert.equal(rest, undefined, `refused: ${rest?.responseStatus?.message}`);

      // Nothing was refused, and the recorder's ClusterRole and binding are the manifest's.
      assertRecordedRbac(recorder, subject, manifests);
    });
  });

  it("meets kube's 403 Forbidden without any one verb of the manifest's rules", async (t) => {
    const manifests = await readManifests(MANIFEST);
    const grants = grantsOf(manifests);
    assert.deepEqual(
      grants.map((g) => `${g.verb} ${g.group}/${g.resource}`),
      [
        "create /namespaces",
        "get /namespaces",
        "update /namespaces",
        "watch /namespaces",
        "get example.com/users",
        "patch example.com/users",
        "watch example.com/users",
        "patch example.com/users/status",
      ],
    );
    // Each verb in turn, each on a server of its own (about a second each).
    for (const grant of grants) {
      await t.test(`without ${grant.verb} on ${grant.group}/${grant.resource}`, async () => {
        await underManifests(without(manifests, grant), async ({ admin, recorder, username }) => {
          const refused = await stepsUntilForbidden(recorder, username, userLifecycle(admin));
          assert.ok(refused, "the controller did its job without the rule");
          assertForbiddenFor(refused, grant);
        });
      });
    }
  });
});
