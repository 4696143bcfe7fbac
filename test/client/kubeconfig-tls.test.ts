/**
 * A kubeconfig's TLS settings on the wire: the cluster's CA, the user's client certificate,
 * as data or as files; an in-cluster config (service-account token and CA files); and
 * `createClient()` with no options, which reads `$KUBECONFIG`.
 */
import assert from "node:assert/strict";
import { once } from "node:events";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { createServer } from "node:https";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "node:test";
import type { TLSSocket } from "node:tls";
import {
  contextNamespace,
  createClient,
  type HttpTransport,
  loadKubeConfig,
  TransportError,
} from "kontroller/client";
import { namespaces } from "kontroller/resources";
import { sendJson, startFakeServer } from "./fake-server.ts";
import { CA_CERT, CLIENT_CERT, CLIENT_KEY, SERVER_CERT, SERVER_KEY } from "./tls-fixtures.ts";

const b64 = (pem: string) => Buffer.from(pem).toString("base64");

/**
 * An HTTPS server with a certificate of the test CA; it requires a client certificate signed
 * by that CA unless `clientCerts` is false.
 */
async function startTlsServer(clientCerts = true) {
  const clients: string[] = [];
  const authorization: (string | undefined)[] = [];
  const server = createServer(
    {
      key: SERVER_KEY,
      cert: SERVER_CERT,
      ca: CA_CERT,
      requestCert: clientCerts,
      rejectUnauthorized: clientCerts,
    },
    (req, res) => {
      if (clientCerts) {
        clients.push(String((req.socket as TLSSocket).getPeerCertificate().subject?.CN));
      }
      authorization.push(req.headers.authorization);
      sendJson(res, 200, { metadata: { name: "x", resourceVersion: "1" } });
    },
  );
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const url = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    clients,
    authorization,
    async [Symbol.asyncDispose]() {
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}

async function tempDir(): Promise<AsyncDisposable & { path: string }> {
  const path = await mkdtemp(join(tmpdir(), "kontroller-kubeconfig-tls-"));
  return { path, [Symbol.asyncDispose]: () => rm(path, { recursive: true, force: true }) };
}

function kubeconfig(server: string, cluster: string, user: string): string {
  return `apiVersion: v1
kind: Config
current-context: test
clusters:
- name: c
  cluster:
    server: ${server}
${cluster}
contexts:
- name: test
  context: { cluster: c, user: u }
users:
- name: u
  user:
${user}
`;
}

describe("createClient with a kubeconfig: TLS", () => {
  it("trusts the cluster's CA and presents the user's client certificate (data or files)", async () => {
    await using server = await startTlsServer();
    await using dir = await tempDir();
    await writeFile(join(dir.path, "client.crt"), CLIENT_CERT);
    await writeFile(join(dir.path, "client.key"), CLIENT_KEY);
    const variants = [
      `    client-certificate-data: ${b64(CLIENT_CERT)}\n    client-key-data: ${b64(CLIENT_KEY)}`,
      `    client-certificate: ${join(dir.path, "client.crt")}\n    client-key: ${join(dir.path, "client.key")}`,
    ];
    for (const [i, user] of variants.entries()) {
      const file = join(dir.path, `config-${i}`);
      await writeFile(
        file,
        kubeconfig(server.url, `    certificate-authority-data: ${b64(CA_CERT)}`, user),
      );
      await using client = createClient({ kubeconfig: file });
      assert.equal((await client.resource(namespaces).get("x")).metadata?.name, "x");
    }
    assert.deepEqual(server.clients, ["kontroller-test-user", "kontroller-test-user"]);
  });

  it("streams through the stream worker with the same CA and client certificate", async () => {
    await using server = await startTlsServer();
    await using dir = await tempDir();
    const file = join(dir.path, "config");
    await writeFile(
      file,
      kubeconfig(
        server.url,
        `    certificate-authority-data: ${b64(CA_CERT)}`,
        `    client-certificate-data: ${b64(CLIENT_CERT)}\n    client-key-data: ${b64(CLIENT_KEY)}`,
      ),
    );
    // A loaded kubeconfig, so that the client's transport is the HttpTransport itself.
    await using client = createClient({
      kubeconfig: await loadKubeConfig(file),
      streamThread: "worker",
    });
    await client.prepare();
    assert.equal((client.transport as HttpTransport).streamsOnWorker, true);
    const res = await client.transport.request({
      method: "GET",
      path: "/api/v1/namespaces/x",
      stream: true,
    });
    let text = "";
    for await (const c of res.body) text += Buffer.from(c).toString();
    assert.equal(JSON.parse(text).metadata.name, "x");
    assert.deepEqual(server.clients, ["kontroller-test-user"]);
  });

  it("fails with a TransportError without the CA, or without the client certificate", async () => {
    await using server = await startTlsServer();
    await using dir = await tempDir();
    const cert = `    client-certificate-data: ${b64(CLIENT_CERT)}\n    client-key-data: ${b64(CLIENT_KEY)}`;
    const cases = [
      kubeconfig(server.url, "    # no CA", cert),
      kubeconfig(server.url, `    certificate-authority-data: ${b64(CA_CERT)}`, "    token: t"),
    ];
    for (const [i, text] of cases.entries()) {
      const file = join(dir.path, `config-${i}`);
      await writeFile(file, text);
      await using client = createClient({ kubeconfig: file, retry: { maxRetries: 0 } });
      const err = await client
        .resource(namespaces)
        .get("x")
        .catch((e: unknown) => e);
      assert.ok(err instanceof TransportError, `case ${i}: ${String(err)}`);
    }
    assert.deepEqual(server.clients, []);
  });
});

describe("createClient with an in-cluster config", () => {
  it("trusts the service account's CA file and sends its token", async () => {
    await using server = await startTlsServer(false);
    await using dir = await tempDir();
    const sa = join(dir.path, "var/run/secrets/kubernetes.io/serviceaccount");
    await mkdir(sa, { recursive: true });
    await writeFile(join(sa, "token"), "sa-token");
    await writeFile(join(sa, "ca.crt"), CA_CERT);
    await writeFile(join(sa, "namespace"), "team-a");
    const { KubeConfig } = await import("@kubernetes/client-node");
    const kc = new KubeConfig();
    const saved = [process.env.KUBERNETES_SERVICE_HOST, process.env.KUBERNETES_SERVICE_PORT];
    process.env.KUBERNETES_SERVICE_HOST = "127.0.0.1";
    process.env.KUBERNETES_SERVICE_PORT = new URL(server.url).port;
    try {
      kc.loadFromCluster(dir.path);
    } finally {
      for (const [i, name] of ["KUBERNETES_SERVICE_HOST", "KUBERNETES_SERVICE_PORT"].entries()) {
        if (saved[i] === undefined) delete process.env[name];
        else process.env[name] = saved[i];
      }
    }
    assert.equal(contextNamespace(kc), "team-a");
    await using client = createClient({ kubeconfig: kc });
    await client.resource(namespaces).get("x");
    await client.resource(namespaces).get("x");
    assert.deepEqual(server.authorization, ["Bearer sa-token", "Bearer sa-token"]);
  });
});

describe("createClient with no options", () => {
  it("reads the kubeconfig named by $KUBECONFIG", async () => {
    await using server = await startFakeServer((_req, res) =>
      sendJson(res, 200, { metadata: { name: "x", resourceVersion: "1" } }),
    );
    await using dir = await tempDir();
    const file = join(dir.path, "config");
    await writeFile(
      file,
      kubeconfig(server.url, "    insecure-skip-tls-verify: true", "    token: from-env"),
    );
    const saved = process.env.KUBECONFIG;
    process.env.KUBECONFIG = file;
    try {
      await using client = createClient();
      await client.resource(namespaces).get("x");
    } finally {
      if (saved === undefined) delete process.env.KUBECONFIG;
      else process.env.KUBECONFIG = saved;
    }
    assert.equal(server.requests[0]!.headers.authorization, "Bearer from-env");
  });
});
