/**
 * kubectl against a test server, for the suites that drive the API server with it: a server
 * started before the suite and closed after it, a scratch directory (kubectl's HOME and cache),
 * and helpers to run kubectl, expect it to fail, and write manifests. kubectl must be on the
 * machine (CI requires it): a machine without it fails here.
 */
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before } from "node:test";
import { promisify } from "node:util";
import { startTestServer, type TestServer, type TestServerOptions } from "kontroller/testing";
import { trustServer } from "./helpers.ts";

const run = promisify(execFile);

export interface KubectlRig {
  /** The server (started by the suite's `before`). */
  readonly server: TestServer;
  /**
   * Over HTTPS, the server's CA and an administrator's client certificate (what the
   * kubeconfig holds), for clients other than kubectl; `call` and `watch` of helpers.ts use
   * them already. Undefined over plain HTTP.
   */
  readonly tls: { ca: string; cert: string; key: string } | undefined;
  /** The scratch directory: kubectl's HOME, its cache under `cache/`. */
  readonly dir: string;
  /** kubectl's environment (HOME and KUBECACHEDIR in the scratch directory). */
  env(): NodeJS.ProcessEnv;
  /** Runs `kubectl --kubeconfig <server's> ...args`; resolves with its stdout. */
  kubectl(...args: string[]): Promise<string>;
  /** Runs kubectl, which must fail; resolves with its stderr. */
  fails(...args: string[]): Promise<string>;
  /** Writes `text` to `name` in the scratch directory; resolves with its path. */
  file(name: string, text: string): Promise<string>;
}

/**
 * Registers `before`/`after` hooks in the calling suite that start a test server (with
 * `options`; over HTTPS unless they say `tls: false`) and a scratch directory named after
 * `prefix`, and close them.
 */
export function kubectlRig(prefix: string, options: TestServerOptions = {}): KubectlRig {
  let server: TestServer | undefined;
  let dir = "";
  let tls: KubectlRig["tls"];
  let forget: (() => Promise<void>) | undefined;
  before(async () => {
    // Over HTTPS, as kubectl meets a cluster: it verifies the server by the kubeconfig's CA and
    // authenticates by its client certificate.
    server = await startTestServer({ tls: {}, ...options });
    const pki = server.backend === "embedded" ? server.server.certificates : undefined;
    if (pki !== undefined) {
      const admin = await pki.ca.issueClientCertificate({
        user: "admin",
        groups: ["system:masters"],
      });
      tls = { ca: pki.ca.certificatePem, cert: admin.certificatePem, key: admin.privateKeyPem };
      forget = trustServer(server.url, tls);
    }
    dir = await mkdtemp(join(tmpdir(), `kontroller-${prefix}-`));
  });
  after(async () => {
    await forget?.();
    await server?.close();
    await rm(dir, { recursive: true, force: true });
  });
  const rig: KubectlRig = {
    get server() {
      assert.ok(server !== undefined, "the rig's server starts in the suite's before hook");
      return server;
    },
    get dir() {
      return dir;
    },
    get tls() {
      return tls;
    },
    env: () => ({ ...process.env, KUBECACHEDIR: join(dir, "cache"), HOME: dir }),
    async kubectl(...args) {
      const { stdout } = await run(
        "kubectl",
        ["--kubeconfig", rig.server.kubeconfigPath, ...args],
        // prometheus-operator's CRDs: several MiB of JSON to read back, and tens of seconds to
        // apply on a loaded machine.
        { env: rig.env(), timeout: 120_000, maxBuffer: 64 * 1024 * 1024 },
      );
      return stdout;
    },
    async fails(...args) {
      try {
        await rig.kubectl(...args);
      } catch (err) {
        return String((err as { stderr?: string }).stderr);
      }
      return assert.fail(`kubectl ${args.join(" ")} succeeded`);
    },
    async file(name, text) {
      const p = join(dir, name);
      await writeFile(p, text);
      return p;
    },
  };
  return rig;
}
