/**
 * `kontroller serve` over HTTPS, its default: kubectl and kontroller/client verify the server
 * by the CA in the kubeconfig it writes, and authenticate as the administrator by the client
 * certificate there (or by the token, which kubectl sends over HTTPS only).
 */
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { promisify } from "node:util";
import { CertificateAuthority, kubeconfigFor } from "kontroller/apiserver";
import { createClient } from "kontroller/client";
import { namespaces } from "kontroller/resources";
import { parse } from "yaml";
import { type Served, serve } from "./serve-rig.ts";

const run = promisify(execFile);

describe("kontroller serve over HTTPS", () => {
  let dir = "";
  const env = () => ({ ...process.env, HOME: dir, KUBECACHEDIR: join(dir, "cache") });
  /** Runs kubectl with `kubeconfig`; resolves with stdout, or with stderr if it fails. */
  const kubectl = async (kubeconfig: string, ...args: string[]) => {
    try {
      const { stdout } = await run("kubectl", ["--kubeconfig", kubeconfig, ...args], {
        env: env(),
        timeout: 60_000,
      });
      return { ok: true, out: stdout };
    } catch (err) {
      return { ok: false, out: String((err as { stderr?: string }).stderr) };
    }
  };
  let served: Served | undefined;
  let url = "";
  const kubeconfig = () => join(dir, "kubeconfig");
  const certDir = () => join(dir, "pki");
  const start = async () => {
    served = serve(
      ["--port", "0", "--token", "t0k", "--kubeconfig-out", kubeconfig()].concat([
        "--cert-dir",
        certDir(),
        "--controllers",
        "none",
      ]),
    );
    url = await served.listening;
  };
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), "kontroller-serve-https-"));
    await start();
  });
  after(async () => {
    await served?.stop();
    await rm(dir, { recursive: true, force: true });
  });

  it("writes a kubeconfig with the CA and the admin's certificate; kubectl uses it", async () => {
    assert.match(url, /^https:\/\/127\.0\.0\.1:\d+$/);
    const config = parse(await readFile(kubeconfig(), "utf8"));
    const cluster = config.clusters[0].cluster;
    assert.equal(cluster.server, url);
    assert.equal(cluster["insecure-skip-tls-verify"], undefined);
    assert.equal(
      Buffer.from(cluster["certificate-authority-data"], "base64").toString(),
      await readFile(join(certDir(), "ca.crt"), "utf8"),
    );
    assert.ok(config.users[0].user["client-certificate-data"]);
    assert.match(served!.stderr(), /wrote a new CA to .*ca\.crt/);
    const created = await kubectl(kubeconfig(), "create", "namespace", "over-tls");
    assert.ok(created.ok, created.out);
    const listed = await kubectl(kubeconfig(), "get", "ns", "-o", "name");
    assert.ok(listed.out.includes("namespace/over-tls"), listed.out);
    const whoami = await kubectl(kubeconfig(), "auth", "whoami", "-o", "json");
    const user = JSON.parse(whoami.out).status.userInfo;
    assert.equal(user.username, "admin");
    assert.deepEqual(user.groups, ["system:masters", "system:authenticated"]);
    assert.match(user.extra["authentication.kubernetes.io/credential-id"][0], /^X509SHA256=/);
  });

  it("takes the token from kubectl over HTTPS, and refuses a certificate of another CA", async () => {
    const ca = await readFile(join(certDir(), "ca.crt"), "utf8");
    const tokenOnly = join(dir, "token-only");
    await writeFile(tokenOnly, kubeconfigFor(url, { token: "t0k", certificateAuthority: ca }));
    const whoami = await kubectl(tokenOnly, "auth", "whoami", "-o", "json");
    assert.ok(whoami.ok, whoami.out);
    assert.equal(JSON.parse(whoami.out).status.userInfo.uid, "kontroller-admin");
    const other = await CertificateAuthority.create();
    const foreign = join(dir, "foreign");
    const clientCertificate = await other.issueClientCertificate({
      user: "admin",
      groups: ["system:masters"],
    });
    await writeFile(foreign, kubeconfigFor(url, { certificateAuthority: ca, clientCertificate }));
    const refused = await kubectl(foreign, "get", "ns");
    assert.ok(!refused.ok);
    assert.match(refused.out, /You must be logged in to the server \(Unauthorized\)/);
  });

  it("is refused by kubectl with a kubeconfig that does not trust its CA", async () => {
    const untrusting = join(dir, "untrusting");
    await writeFile(untrusting, kubeconfigFor(url, { token: "t0k" }));
    const refused = await kubectl(untrusting, "get", "ns");
    assert.ok(!refused.ok);
    assert.match(refused.out, /x509: certificate signed by unknown authority/);
  });

  it("serves kontroller/client by the kubeconfig, or by url with the CA and certificate", async () => {
    const byKubeconfig = createClient({ kubeconfig: kubeconfig() });
    try {
      const list = await byKubeconfig.resource(namespaces).list();
      assert.ok(list.items.some((ns) => ns.metadata?.name === "default"));
    } finally {
      await byKubeconfig.close();
    }
    const config = parse(await readFile(kubeconfig(), "utf8"));
    const pem = (b64: string) => Buffer.from(b64, "base64").toString();
    const byUrl = createClient({
      url,
      ca: pem(config.clusters[0].cluster["certificate-authority-data"]),
      cert: pem(config.users[0].user["client-certificate-data"]),
      key: pem(config.users[0].user["client-key-data"]),
    });
    try {
      const ns = await byUrl.resource(namespaces).get("kube-system");
      assert.equal(ns.metadata?.name, "kube-system");
    } finally {
      await byUrl.close();
    }
  });

  it("keeps its CA across a restart with the same --cert-dir: the old kubeconfig still works", async () => {
    const before = await readFile(join(certDir(), "ca.crt"), "utf8");
    const old = join(dir, "old-kubeconfig");
    await writeFile(old, await readFile(kubeconfig(), "utf8"));
    assert.equal(await served!.stop(), 0);
    await start();
    assert.equal(await readFile(join(certDir(), "ca.crt"), "utf8"), before);
    assert.doesNotMatch(served!.stderr(), /wrote/);
    const listed = await kubectl(old, "get", "ns", "default", "-o", "name", "--server", url);
    assert.ok(listed.ok, listed.out);
  });

  it("serves plain HTTP on loopback only, with --insecure-http", async () => {
    const refused = serve(["--port", "0", "--insecure-http", "--host", "0.0.0.0"]);
    assert.equal(await refused.exited, 2);
    assert.match(refused.stderr(), /--insecure-http serves plain HTTP on loopback only/);
  });
});
