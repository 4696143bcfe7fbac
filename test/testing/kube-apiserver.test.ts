/**
 * The real kube-apiserver fixture: started from the binaries the environment names, it serves
 * the admin over verified HTTPS, and close() leaves no process and no directory behind. Without
 * a binary, asking for it is an error that names the variables to set.
 */
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { chmod, mkdtemp, readdir, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "node:test";
import { createClient } from "kontroller/client";
import {
  findKubeApiServer,
  KubeApiServerNotFoundError,
  startKubeApiServer,
} from "kontroller/testing";

const found = findKubeApiServer();
const noBinary =
  found === undefined
    ? "no kube-apiserver binary on this machine (set KONTROLLER_KUBE_APISERVER or KUBEBUILDER_ASSETS)"
    : false;

/** A folder of its own for the fixture's temporary directory, so that its removal can be seen. */
async function privateTmp(): Promise<
  AsyncDisposable & { path: string; left(): Promise<string[]> }
> {
  const path = await mkdtemp(join(tmpdir(), "kontroller-fixture-test-"));
  return {
    path,
    left: () => readdir(path),
    [Symbol.asyncDispose]: () => rm(path, { recursive: true, force: true }),
  };
}

function alive(pid: number | undefined): boolean {
  if (pid === undefined) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe("startKubeApiServer", () => {
  it("finds kube-apiserver by $KONTROLLER_KUBE_APISERVER, else in $KUBEBUILDER_ASSETS with its etcd", async () => {
    const assets = await mkdtemp(join(tmpdir(), "kontroller-assets-"));
    try {
      await writeFile(join(assets, "kube-apiserver"), "");
      await writeFile(join(assets, "etcd"), "");
      assert.deepEqual(findKubeApiServer({ KUBEBUILDER_ASSETS: assets }), {
        kubeApiServer: join(assets, "kube-apiserver"),
        etcd: join(assets, "etcd"),
      });
      assert.deepEqual(
        findKubeApiServer({ KUBEBUILDER_ASSETS: assets, KONTROLLER_KUBE_APISERVER: "/x/kas" }),
        { kubeApiServer: "/x/kas", etcd: join(assets, "etcd") },
      );
      assert.equal(findKubeApiServer({ KUBEBUILDER_ASSETS: tmpdir() }), undefined);
    } finally {
      await rm(assets, { recursive: true, force: true });
    }
  });

  it("refuses a binary that is not there, naming the variables, and starts nothing", async () => {
    await using tmp = await privateTmp();
    await assert.rejects(
      startKubeApiServer({ binary: "/nonexistent/kube-apiserver", tmpDir: tmp.path }),
      (err: unknown) =>
        err instanceof KubeApiServerNotFoundError &&
        /KONTROLLER_KUBE_APISERVER/.test(err.message) &&
        /KUBEBUILDER_ASSETS/.test(err.message),
    );
    assert.deepEqual(await tmp.left(), []);
  });

  it("reports a kube-apiserver that exits before it is ready with its last lines, and cleans up", async () => {
    const dir = await mkdtemp(join(tmpdir(), "kontroller-fake-kas-"));
    const fake = join(dir, "kube-apiserver");
    await writeFile(
      fake,
      '#!/bin/sh\necho "E1127 flag provided but not defined: -x" >&2\nexit 1\n',
    );
    await chmod(fake, 0o755);
    await using tmp = await privateTmp();
    try {
      await assert.rejects(
        startKubeApiServer({ binary: fake, tmpDir: tmp.path }),
        (err: unknown) => {
          assert.ok(err instanceof Error);
          assert.match(err.message, /exited \(1\) before it was ready/);
          assert.match(err.message, /flag provided but not defined/);
          return true;
        },
      );
      assert.deepEqual(await tmp.left(), []);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("serves the admin over HTTPS that the client verifies, and close() leaves no process or directory", {
    skip: noBinary,
  }, async () => {
    await using tmp = await privateTmp();
    const kube = await startKubeApiServer({ tmpDir: tmp.path });
    try {
      assert.match(kube.url, /^https:\/\/127\.0\.0\.1:\d+$/);
      const kubeconfig = join(tmp.path, "kubeconfig");
      await writeFile(kubeconfig, kube.kubeconfig);
      const client = createClient({ kubeconfig });
      try {
        const namespaces = await client.resource("Namespace").list();
        assert.ok(namespaces.items.some((ns) => ns.metadata?.name === "default"));
      } finally {
        await client.close();
        await rm(kubeconfig);
      }
      assert.equal(alive(kube.pid), true);
    } finally {
      await kube.close();
    }
    assert.equal(alive(kube.pid), false);
    assert.equal(kube.etcd.running, false);
    assert.equal(existsSync(kube.etcd.dataDir), false);
    assert.deepEqual(await tmp.left(), []);
  });

  it("reports a kube-apiserver that dies while running with its last lines, and still cleans up", {
    skip: noBinary,
  }, async () => {
    await using tmp = await privateTmp();
    const kube = await startKubeApiServer({ tmpDir: tmp.path });
    process.kill(kube.pid!, "SIGKILL");
    await kube.exited;
    assert.equal(kube.running, false);
    await assert.rejects(kube.close(), /kube-apiserver exited on its own \(SIGKILL\)/);
    assert.equal(kube.etcd.running, false);
    assert.deepEqual(await tmp.left(), []);
  });
});
