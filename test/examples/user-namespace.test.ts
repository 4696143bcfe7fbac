/**
 * The user-namespace example, end to end with kubectl against the test server: a User gets
 * its Namespace (owned, labelled), its external state and a Ready status; a new display name
 * relabels it; deleting the User removes the external state and the finalizer, and then the
 * control plane that `startTestServer()` runs removes the Namespace: the garbage collector
 * deletes it through its owner reference, the namespace controller finalizes it.
 */
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "node:test";
import { createClient } from "kontroller/client";
import { Manager } from "kontroller/controller";
import { namespaces } from "kontroller/resources";
import { startTestServer, waitFor } from "kontroller/testing";
import {
  CLEANUP_FINALIZER,
  DISPLAY_NAME_LABEL,
  USER_LABEL,
  userNamespaceController,
} from "../../examples/user-namespace/controller.ts";
import { User } from "../../examples/user-namespace/user.ts";

/** A logger that hands every line's fields and message to `onLine`. */
function logTo(onLine: (fields: Record<string, unknown>, message: string) => void) {
  const line = (fields: Record<string, unknown>, message: string) => onLine(fields, message);
  return { error: line, warn: line, info: line, debug() {} };
}

function kubectl(kubeconfig: string, args: string[], input?: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = execFile(
      "kubectl",
      ["--kubeconfig", kubeconfig, ...args],
      (err, stdout, stderr) => {
        if (err) reject(new Error(`kubectl ${args.join(" ")}: ${stderr || err.message}`));
        else resolve(stdout);
      },
    );
    if (input !== undefined) child.stdin?.end(input);
  });
}

describe("example: user-namespace", { timeout: 30_000 }, () => {
  it("creates, relabels and cleans up with kubectl", async (t) => {
    await using server = await startTestServer();
    const dataDir = await mkdtemp(join(tmpdir(), "kontroller-users-"));
    await using client = createClient({ url: server.url });
    const kc = server.kubeconfigPath;
    await kubectl(kc, ["apply", "-f", "-"], JSON.stringify(User.crd()));
    await waitFor(client.resource(User), "nobody", (u) => u === undefined); // the new resource is served

    // The first reconcile after the User is gone: how it ended.
    const afterDelete = Promise.withResolvers<string>();
    const logger = logTo((fields, message) => {
      if (fields.reason === "delete of User ann") afterDelete.resolve(message);
    });
    const manager = new Manager({ client, logger });
    manager.add(userNamespaceController(manager, { dataDir }));
    const stop = new AbortController();
    const running = manager.start(stop.signal);
    try {
      await kubectl(
        kc,
        ["apply", "-f", "-"],
        JSON.stringify(
          User.object({ metadata: { name: "ann" }, spec: { displayName: "Ann Example" } }),
        ),
      );
      const ns = await waitFor(client.resource(namespaces), "user-ann", (n) => n !== undefined);
      assert.equal(ns?.metadata?.labels?.[USER_LABEL], "ann");
      assert.equal(ns?.metadata?.labels?.[DISPLAY_NAME_LABEL], "ann-example");
      const owner = ns?.metadata?.ownerReferences?.[0];
      assert.deepEqual(
        {
          kind: owner?.kind,
          name: owner?.name,
          controller: owner?.controller,
          blockOwnerDeletion: owner?.blockOwnerDeletion,
        },
        { kind: "User", name: "ann", controller: true, blockOwnerDeletion: true },
      );
      const ready = await waitFor(
        client.resource(User),
        "ann",
        (u) => u?.status?.conditions?.[0]?.status === "True",
      );
      assert.equal(ready?.status?.namespace, "user-ann");
      assert.equal(ready?.status?.observedGeneration, 1);
      assert.deepEqual(ready?.metadata.finalizers, [CLEANUP_FINALIZER]);
      assert.equal(
        JSON.parse(await readFile(join(dataDir, "ann", "profile.json"), "utf8")).displayName,
        "Ann Example",
      );
      const table = await kubectl(kc, ["get", "users"]);
      assert.match(table, /ann\s+Ann Example\s+user-ann\s+True/);

      await kubectl(kc, [
        "patch",
        "user",
        "ann",
        "--type=merge",
        "-p",
        '{"spec":{"displayName":"Ann Other"}}',
      ]);
      await waitFor(
        client.resource(namespaces),
        "user-ann",
        (n) => n?.metadata?.labels?.[DISPLAY_NAME_LABEL] === "ann-other",
      );
      await waitFor(client.resource(User), "ann", (u) => u?.status?.observedGeneration === 2);

      await kubectl(kc, ["delete", "user", "ann", "--wait=false"]);
      await waitFor(client.resource(User), "ann", (u) => u === undefined);
      assert.equal(existsSync(join(dataDir, "ann")), false, "the external state is gone");
      assert.equal(await afterDelete.promise, "reconciled", "a User that is gone is no error");
      // Nothing in the example deletes namespaces: only the garbage collector can (the User,
      // its controller owner, is gone), and only the namespace controller can finish it.
      await waitFor(client.resource(namespaces), "user-ann", (n) => n === undefined, {
        signal: t.signal, // the test's timeout ends the wait
      });
      await assert.rejects(kubectl(kc, ["get", "namespace", "user-ann"]), /NotFound|not found/);
    } finally {
      stop.abort();
      await running;
      await rm(dataDir, { recursive: true, force: true });
    }
  });
});
