/**
 * startTestServer's backends: the embedded server by default, a real kube-apiserver by option or
 * by $KONTROLLER_TEST_BACKEND, with the same { url, kubeconfig, close() } either way.
 */
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { once } from "node:events";
import { readdirSync, readFileSync } from "node:fs";
import { mkdtemp, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "node:test";
import { createClient } from "kontroller/client";
import { InvalidOptionError } from "kontroller/core";
import {
  embeddedOnly,
  FakeClock,
  findKubeApiServer,
  KubeApiServerNotFoundError,
  startTestServer,
  testBackend,
} from "kontroller/testing";

const noBinary =
  findKubeApiServer() === undefined
    ? "no kube-apiserver binary on this machine (set KONTROLLER_KUBE_APISERVER or KUBEBUILDER_ASSETS)"
    : false;

/** Runs fn with the environment changed, then puts it back. */
async function withEnv<T>(
  env: Record<string, string | undefined>,
  fn: () => Promise<T>,
): Promise<T> {
  const saved = Object.fromEntries(Object.keys(env).map((k) => [k, process.env[k]]));
  const set = (values: Record<string, string | undefined>) => {
    for (const [k, v] of Object.entries(values)) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  };
  set(env);
  try {
    return await fn();
  } finally {
    set(saved);
  }
}

describe("startTestServer backends", () => {
  it("runs the embedded server unless told otherwise", async () => {
    await withEnv({ KONTROLLER_TEST_BACKEND: undefined }, async () => {
      await using s = await startTestServer({ controllers: false });
      assert.equal(s.backend, "embedded");
      assert.match(s.url, /^http:\/\/127\.0\.0\.1:\d+$/);
      assert.equal(typeof s.server.cutWatches, "function");
    });
  });

  it("embeddedOnly gives a skip reason naming the behaviour only where the run's backend is kube-apiserver", async () => {
    await withEnv({ KONTROLLER_TEST_BACKEND: undefined }, async () => {
      assert.equal(testBackend(), "embedded");
      assert.equal(embeddedOnly("virtual time"), false);
    });
    await withEnv({ KONTROLLER_TEST_BACKEND: "kube-apiserver" }, async () => {
      assert.equal(testBackend(), "kube-apiserver");
      assert.equal(embeddedOnly("virtual time"), "embedded server only: virtual time");
    });
  });

  it("refuses a backend it does not know, from the option or the environment", async () => {
    await assert.rejects(
      // @ts-expect-error: a backend that does not exist
      startTestServer({ backend: "kind" }),
      (err: unknown) =>
        err instanceof InvalidOptionError && /"embedded" or "kube-apiserver"/.test(err.message),
    );
    await withEnv({ KONTROLLER_TEST_BACKEND: "kind" }, () =>
      assert.rejects(
        startTestServer(),
        (err: unknown) =>
          err instanceof InvalidOptionError && /KONTROLLER_TEST_BACKEND/.test(err.message),
      ),
    );
  });

  it("refuses the embedded server's own options on kube-apiserver, naming the option", async () => {
    await assert.rejects(
      startTestServer({ backend: "kube-apiserver", clock: new FakeClock() }),
      (err: unknown) =>
        err instanceof InvalidOptionError &&
        err.option === "clock" &&
        /embedded backend/.test(err.message),
    );
  });

  it("asked for kube-apiserver where there is none, fails naming the variables — never the embedded server instead", async () => {
    await withEnv(
      { KONTROLLER_KUBE_APISERVER: undefined, KUBEBUILDER_ASSETS: "/nonexistent" },
      () =>
        assert.rejects(
          startTestServer({ backend: "kube-apiserver" }),
          (err: unknown) =>
            err instanceof KubeApiServerNotFoundError &&
            /KONTROLLER_KUBE_APISERVER/.test(err.message),
        ),
    );
  });

  it("runs kube-apiserver with kontroller's garbage collector beside it, behind the same kubeconfig", {
    skip: noBinary,
  }, async () => {
    await using s = await startTestServer({ backend: "kube-apiserver" });
    assert.equal(s.backend, "kube-apiserver");
    assert.match(s.url, /^http:\/\/127\.0\.0\.1:\d+$/);
    assert.match(s.kubeconfig, /server: https:\/\/127\.0\.0\.1:\d+/);
    assert.throws(() => s.server, /embedded backend only/);
    const client = createClient({ kubeconfig: s.kubeconfigPath });
    try {
      const configMaps = client.resource("ConfigMap").inNamespace("default");
      const owner = await configMaps.create({
        metadata: { name: "owner", namespace: "default" },
      });
      await configMaps.create({
        metadata: {
          name: "dependent",
          namespace: "default",
          ownerReferences: [
            { apiVersion: "v1", kind: "ConfigMap", name: "owner", uid: owner.metadata!.uid! },
          ],
        },
      });
      const watch = configMaps.watch({
        fieldSelector: "metadata.name=dependent",
        resourceVersion: owner.metadata!.resourceVersion!,
      });
      await configMaps.delete("owner");
      for await (const event of watch) {
        if (event.type === "DELETED") break;
      }
    } finally {
      await client.close();
    }
  });

  it("serves a bare URL that needs no credentials, as kubectl proxy does, and keeps a test's own token required", {
    skip: noBinary,
  }, async () => {
    {
      await using s = await startTestServer({ backend: "kube-apiserver", controllers: false });
      const res = await fetch(`${s.url}/api/v1/namespaces/default`);
      assert.equal(res.status, 200);
      assert.equal(((await res.json()) as { kind: string }).kind, "Namespace");
    }
    await using s = await startTestServer({
      backend: "kube-apiserver",
      controllers: false,
      token: "t0ken",
    });
    assert.equal((await fetch(`${s.url}/api/v1/namespaces`)).status, 401);
    const withToken = await fetch(`${s.url}/api/v1/namespaces`, {
      headers: { authorization: "Bearer t0ken" },
    });
    assert.equal(withToken.status, 200);
  });

  it("lends the next test the same kube-apiserver with etcd as it started: made objects gone, changed and deleted ones back", {
    skip: noBinary,
  }, async () => {
    const get = (url: string, path: string) => fetch(`${url}${path}`);
    let first: string;
    {
      await using s = await startTestServer({ backend: "kube-apiserver", controllers: false });
      first = s.kubeconfig;
      const client = createClient({ url: s.url });
      try {
        await client.resource("Namespace").create({ metadata: { name: "scratch" } });
        await client
          .resource("ConfigMap")
          .inNamespace("scratch")
          .create({ metadata: { name: "made" } });
        const namespaces = client.resource("Namespace");
        const system = await namespaces.get("kube-public");
        await namespaces.update({
          ...system,
          metadata: { ...system.metadata, labels: { touched: "yes" } },
        });
        const view = "/apis/rbac.authorization.k8s.io/v1/clusterroles/view";
        assert.equal((await fetch(`${s.url}${view}`, { method: "DELETE" })).status, 200);
      } finally {
        await client.close();
      }
    }
    await using s = await startTestServer({ backend: "kube-apiserver", controllers: false });
    assert.equal(s.kubeconfig, first, "the same server, lent again");
    assert.equal((await get(s.url, "/api/v1/namespaces/scratch")).status, 404);
    assert.equal((await get(s.url, "/api/v1/namespaces/scratch/configmaps/made")).status, 404);
    const kubePublic = (await (await get(s.url, "/api/v1/namespaces/kube-public")).json()) as {
      metadata: { labels?: Record<string, string> };
    };
    assert.equal(kubePublic.metadata.labels?.touched, undefined);
    const view = await get(s.url, "/apis/rbac.authorization.k8s.io/v1/clusterroles/view");
    assert.equal(view.status, 200);
  });

  it("with reuse: false, close() stops kube-apiserver and etcd and removes their files", {
    skip: noBinary,
  }, async () => {
    const tmp = await mkdtemp(join(tmpdir(), "kontroller-reuse-"));
    try {
      await withEnv({ TMPDIR: tmp }, async () => {
        const s = await startTestServer({ backend: "kube-apiserver", reuse: false });
        assert.notDeepEqual(await readdir(tmp), []);
        assert.notDeepEqual(processesUnder(tmp), []);
        await s.close();
      });
      assert.deepEqual(await readdir(tmp), []);
      assert.deepEqual(processesUnder(tmp), []);
    } finally {
      await rm(tmp, { recursive: true, force: true });
    }
  });

  it("a test process that ends with pooled servers leaves no process and no directory behind", {
    skip: noBinary,
  }, async () => {
    const tmp = await mkdtemp(join(tmpdir(), "kontroller-pool-exit-"));
    try {
      const script = [
        'import { startTestServer } from "kontroller/testing";',
        'const a = await startTestServer({ backend: "kube-apiserver" });',
        'const b = await startTestServer({ backend: "kube-apiserver" });',
        "await a.close();",
        "await b.close();",
        "console.log(JSON.stringify({ url: a.url }));",
      ].join("\n");
      const child = spawn(
        process.execPath,
        ["--conditions=kontroller-source", "--input-type=module", "-e", script],
        { env: { ...process.env, TMPDIR: tmp }, stdio: ["ignore", "pipe", "inherit"] },
      );
      let out = "";
      child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
        out += chunk;
      });
      const [code] = await once(child, "exit");
      assert.equal(code, 0);
      assert.match(out, /"url":"http:/, "both servers ran and were given back before the exit");
      assert.deepEqual(processesUnder(tmp), []);
      assert.deepEqual(await readdir(tmp), []);
    } finally {
      await rm(tmp, { recursive: true, force: true });
    }
  });
});

/** The pids of the processes whose command line names a path under dir. */
function processesUnder(dir: string): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const cmdline = readFileSync(`/proc/${entry}/cmdline`, "utf8");
      if (cmdline.includes(dir)) pids.push(Number(entry));
    } catch {
      // gone meanwhile
    }
  }
  return pids;
}
