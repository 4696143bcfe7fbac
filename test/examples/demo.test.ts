/**
 * `kontroller demo` as a user runs it, driven with kubectl: it prints where the server is and
 * the kubectl line to try; its example controllers bring the demo's Users and HealthMonitors to
 * their state; a User created, renamed and deleted with kubectl gets its Namespace (owned,
 * labelled), a Ready status at its generation, external state under the demo's data folder,
 * and on delete loses all of them; a progress line reports reconciles, errors and queue depth
 * per lane; Ctrl-C (SIGINT) stops it cleanly with exit code 0.
 */
import assert from "node:assert/strict";
import { execFile, spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import { createClient } from "kontroller/client";
import { namespaces } from "kontroller/resources";
import { waitFor } from "kontroller/testing";
import { HealthMonitor } from "../../examples/health-monitor/health-monitor.ts";
import {
  CLEANUP_FINALIZER,
  DISPLAY_NAME_LABEL,
  USER_LABEL,
} from "../../examples/user-namespace/controller.ts";
import { User } from "../../examples/user-namespace/user.ts";

const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..");

function kubectl(kubeconfig: string, args: string[], input?: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = execFile(
      "kubectl",
      ["--kubeconfig", kubeconfig, ...args],
      (err, stdout, stderr) =>
        err
          ? reject(new Error(`kubectl ${args.join(" ")}: ${stderr || err.message}`))
          : resolve(stdout),
    );
    if (input !== undefined) child.stdin?.end(input);
  });
}

/** `user-namespace: 3 reconciles, 0 errors; queue fast 0 slow 0 waiting 0 | health-monitor: …` */
const PROGRESS =
  /user-namespace: (\d+) reconciles, (\d+) errors; queue fast (\d+) slow (\d+) waiting (\d+) \| health-monitor: (\d+) reconciles, (\d+) errors; queue fast (\d+) slow (\d+) waiting (\d+)/;

describe("kontroller demo", { timeout: 60_000 }, () => {
  it("runs the example controllers, answers kubectl, shows progress, and stops on Ctrl-C with exit 0", async (t) => {
    const dir = await mkdtemp(join(tmpdir(), "kontroller-demo-test-"));
    const kubeconfig = join(dir, "kubeconfig");
    const dataDir = join(dir, "users");
    const demo = spawn(
      join(root, "node_modules", ".bin", "node"),
      [
        "--conditions=kontroller-source",
        join(root, "src", "cli", "kontroller.ts"),
        "demo",
        "--kubeconfig-out",
        kubeconfig,
        "--data-dir",
        dataDir,
      ],
      { stdio: ["ignore", "pipe", "pipe"] },
    );
    let out = "";
    let err = "";
    demo.stderr.on("data", (d: Buffer) => {
      err += d;
    });
    const exited = new Promise<number | null>((resolve) =>
      demo.on("exit", (code) => resolve(code)),
    );
    /** Resolves with the first stdout match of `re` from now on (or already printed). */
    const printed = (re: RegExp, test: (m: RegExpExecArray) => boolean = () => true) =>
      new Promise<RegExpExecArray>((resolve, reject) => {
        const check = () => {
          for (const line of out.split("\n")) {
            const m = re.exec(line);
            if (m && test(m)) {
              demo.stdout.off("data", check);
              resolve(m);
              return;
            }
          }
        };
        demo.stdout.on("data", check);
        check();
        void exited.then((code) => reject(new Error(`demo exited ${code}: ${err}`)));
      });
    demo.stdout.on("data", (d: Buffer) => {
      out += d;
    });
    const url = (await printed(/listening on (http:\/\/\S+)/))[1]!;
    await printed(/Ctrl-C stops the demo\./);
    try {
      assert.match(out, new RegExp(`try: kubectl --kubeconfig ${kubeconfig} get users`));
      await using client = createClient({ url });
      await waitFor(
        client.resource(User),
        "ann",
        (u) => u?.status?.conditions?.[0]?.status === "True",
      );
      await waitFor(
        client.resource(HealthMonitor).inNamespace("default"),
        "legacy",
        (m) => m?.status?.healthy === false,
      );
      await waitFor(
        client.resource(HealthMonitor).inNamespace("default"),
        "checkout",
        (m) => m?.status?.healthy === true,
      );
      const users = await kubectl(kubeconfig, ["get", "users"]);
      assert.match(users, /ann\s+Ann Example\s+user-ann\s+True/);

      // A User of our own, with kubectl: created…
      await kubectl(
        kubeconfig,
        ["apply", "-f", "-"],
        JSON.stringify(User.object({ metadata: { name: "dora" }, spec: { displayName: "Dora" } })),
      );
      const ready = (generation: number) => (u: User | undefined) =>
        u?.status?.observedGeneration === generation &&
        u.status.conditions?.find((c) => c.type === "Ready")?.status === "True";
      await waitFor(client.resource(User), "dora", ready(1), { signal: t.signal });
      const user = JSON.parse(await kubectl(kubeconfig, ["get", "user", "dora", "-o", "json"]));
      assert.equal(user.status.namespace, "user-dora");
      assert.deepEqual(user.metadata.finalizers, [CLEANUP_FINALIZER]);
      const ns = JSON.parse(
        await kubectl(kubeconfig, ["get", "namespace", "user-dora", "-o", "json"]),
      );
      assert.equal(ns.metadata.labels[USER_LABEL], "dora");
      assert.equal(ns.metadata.labels[DISPLAY_NAME_LABEL], "dora");
      assert.deepEqual(
        ns.metadata.ownerReferences.map((r: Record<string, unknown>) => [
          r.kind,
          r.name,
          r.uid,
          r.controller,
        ]),
        [["User", "dora", user.metadata.uid, true]],
      );
      const profile = join(dataDir, "dora", "profile.json");
      assert.equal(JSON.parse(await readFile(profile, "utf8")).displayName, "Dora");

      // …renamed…
      await kubectl(kubeconfig, [
        "patch",
        "user",
        "dora",
        "--type=merge",
        "-p",
        '{"spec":{"displayName":"Dora Explorer"}}',
      ]);
      await waitFor(client.resource(User), "dora", ready(2), { signal: t.signal });
      await waitFor(
        client.resource(namespaces),
        "user-dora",
        (n) => n?.metadata?.labels?.[DISPLAY_NAME_LABEL] === "dora-explorer",
        { signal: t.signal },
      );

      // …and deleted: the finalizer cleans up, the control plane takes the Namespace.
      await kubectl(kubeconfig, ["delete", "user", "dora"]);
      await assert.rejects(kubectl(kubeconfig, ["get", "user", "dora"]), /NotFound|not found/);
      assert.equal(existsSync(join(dataDir, "dora")), false, "the external state is gone");
      await waitFor(client.resource(namespaces), "user-dora", (n) => n === undefined, {
        signal: t.signal,
      });

      // A progress line (every 2 s) that has seen the reconciles above.
      const progress = await printed(PROGRESS, (m) => Number(m[1]) > 0 && Number(m[6]) > 0);
      assert.equal(progress[2], "0", `no user-namespace errors: ${err}`);
    } finally {
      demo.kill("SIGINT");
      assert.equal(await exited, 0, err);
      await rm(dir, { recursive: true, force: true });
    }
    assert.match(out, /demo stopped/);
  });
});
