import assert from "node:assert/strict";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "node:test";
import { createClient, loadKubeConfig } from "kontroller/client";
import { InvalidOptionError } from "kontroller/core";
import { namespaces } from "kontroller/resources";
import { sendJson, startFakeServer } from "./fake-server.ts";

async function tempDir(): Promise<AsyncDisposable & { path: string }> {
  const path = await mkdtemp(join(tmpdir(), "kontroller-kubeconfig-"));
  return { path, [Symbol.asyncDispose]: () => rm(path, { recursive: true, force: true }) };
}

function kubeconfig(server: string, user: string): string {
  return `apiVersion: v1
kind: Config
current-context: test
clusters:
- name: c
  cluster:
    server: ${server}
    # client-node refuses to send credentials over plain HTTP unless told to.
    insecure-skip-tls-verify: true
contexts:
- name: test
  context: { cluster: c, user: u, namespace: team-a }
- name: other
  context: { cluster: c, user: u }
users:
- name: u
  user:
${user}
`;
}

describe("createClient with a kubeconfig", () => {
  it("sends the kubeconfig's bearer token to its server, from a file path", async () => {
    await using server = await startFakeServer((_req, res) =>
      sendJson(res, 200, { metadata: { name: "x", resourceVersion: "1" } }),
    );
    await using dir = await tempDir();
    const file = join(dir.path, "config");
    await writeFile(file, kubeconfig(server.url, "    token: sekrit"));
    await using client = createClient({ kubeconfig: file });
    await client.resource(namespaces).get("x");
    await client.resource(namespaces).get("x");
    assert.equal(server.requests[0]!.headers.authorization, "Bearer sekrit");
    assert.equal(server.requests[1]!.headers.authorization, "Bearer sekrit");
  });

  it("asks an exec plugin for credentials", async () => {
    await using server = await startFakeServer((_req, res) =>
      sendJson(res, 200, { metadata: { name: "x", resourceVersion: "1" } }),
    );
    await using dir = await tempDir();
    const plugin = join(dir.path, "plugin.mjs");
    await writeFile(
      plugin,
      `console.log(JSON.stringify({ apiVersion: "client.authentication.k8s.io/v1", kind: "ExecCredential", status: { token: "from-exec" } }));`,
    );
    const file = join(dir.path, "config");
    await writeFile(
      file,
      kubeconfig(
        server.url,
        `    exec:\n      apiVersion: client.authentication.k8s.io/v1\n      command: ${process.execPath}\n      args: ["${plugin}"]\n      interactiveMode: Never`,
      ),
    );
    const kc = await loadKubeConfig(file, "other");
    assert.equal(kc.getCurrentContext(), "other");
    await using client = createClient({ kubeconfig: kc });
    await client.resource(namespaces).get("x");
    assert.equal(server.requests[0]!.headers.authorization, "Bearer from-exec");
  });

  it("fails the first call when the kubeconfig file does not exist", async () => {
    await using client = createClient({ kubeconfig: "/nonexistent/kubeconfig" });
    await assert.rejects(client.resource(namespaces).get("x"), /ENOENT|no such file/);
  });
});

describe("createClient with a URL and a token", () => {
  it("sends the token as a bearer token with every request, and nothing without one", async () => {
    await using server = await startFakeServer((_req, res) =>
      sendJson(res, 200, { metadata: { name: "x", resourceVersion: "1" } }),
    );
    await using withToken = createClient({ url: server.url, token: "t0k" });
    await withToken.resource(namespaces).get("x");
    await withToken.resource(namespaces).get("x");
    await using without = createClient({ url: server.url });
    await without.resource(namespaces).get("x");
    assert.deepEqual(
      server.requests.map((r) => r.headers.authorization),
      ["Bearer t0k", "Bearer t0k", undefined],
    );
  });

  it("refuses a token without a URL, saying where it belongs", () => {
    assert.throws(
      () => createClient({ token: "t0k", kubeconfig: "/nonexistent" }),
      (err: Error) => err instanceof InvalidOptionError && /token goes with url/.test(err.message),
    );
  });
});
