/**
 * startTestServer's backends: the embedded server by default, a real kube-apiserver by option or
 * by $KONTROLLER_TEST_BACKEND, with the same { url, kubeconfig, close() } either way.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { createClient } from "kontroller/client";
import { InvalidOptionError } from "kontroller/core";
import {
  FakeClock,
  findKubeApiServer,
  KubeApiServerNotFoundError,
  startTestServer,
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
    assert.match(s.url, /^https:/);
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
});
