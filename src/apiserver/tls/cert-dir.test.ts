import assert from "node:assert/strict";
import { X509Certificate } from "node:crypto";
import { mkdtemp, readFile, rm, stat, unlink, writeFile } from "node:fs/promises";
import { hostname, tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "node:test";
import { FakeClock } from "../../testing/index.ts";
import { loadOrCreatePki, servingHosts } from "./cert-dir.ts";
import { CertificateAuthority, uncoveredHosts } from "./certificate-authority.ts";

const DAY = 24 * 3_600_000;

/** A fresh directory, removed at the end of the test. */
async function tempDir(): Promise<AsyncDisposable & { path: string }> {
  const path = await mkdtemp(join(tmpdir(), "kontroller-cert-dir-"));
  return { path, [Symbol.asyncDispose]: () => rm(path, { recursive: true, force: true }) };
}

const read = (dir: string, name: string) => readFile(join(dir, name), "utf8");

describe("loadOrCreatePki", () => {
  it("without a cert dir, makes a CA and a serving certificate for the hosts", async () => {
    const pki = await loadOrCreatePki({ hosts: ["localhost", "127.0.0.1"] });
    assert.ok(pki.ca.signed(pki.serving.certificatePem));
    assert.deepEqual(uncoveredHosts(pki.serving.certificatePem, ["localhost", "127.0.0.1"]), []);
    assert.deepEqual(pki.changes, []);
  });

  it("writes kube's file names in a new cert dir, keys private, and reuses them next time", async () => {
    await using dir = await tempDir();
    const certDir = join(dir.path, "pki");
    const hosts = ["localhost", "127.0.0.1"];
    const first = await loadOrCreatePki({ certDir, hosts });
    assert.equal(first.changes.length, 2);
    for (const [name, mode] of [
      ["ca.crt", 0o644],
      ["ca.key", 0o600],
      ["apiserver.crt", 0o644],
      ["apiserver.key", 0o600],
    ] as const) {
      assert.equal((await stat(join(certDir, name))).mode & 0o777, mode, name);
    }
    assert.equal(await read(certDir, "ca.crt"), first.ca.certificatePem);
    assert.equal(await read(certDir, "apiserver.crt"), first.serving.certificatePem);
    const second = await loadOrCreatePki({ certDir, hosts: ["127.0.0.1"] });
    assert.deepEqual(second.changes, []);
    assert.equal(second.ca.certificatePem, first.ca.certificatePem);
    assert.deepEqual(second.serving, first.serving);
  });

  it("replaces the serving certificate when it does not cover a host, keeping the CA", async () => {
    await using dir = await tempDir();
    const first = await loadOrCreatePki({ certDir: dir.path, hosts: ["localhost"] });
    const second = await loadOrCreatePki({ certDir: dir.path, hosts: ["localhost", "10.1.2.3"] });
    assert.deepEqual(second.changes, [
      `replaced ${join(dir.path, "apiserver.crt")}: it does not cover 10.1.2.3`,
    ]);
    assert.equal(second.ca.certificatePem, first.ca.certificatePem);
    assert.deepEqual(uncoveredHosts(second.serving.certificatePem, ["localhost", "10.1.2.3"]), []);
    assert.equal(await read(dir.path, "apiserver.crt"), second.serving.certificatePem);
  });

  it("replaces a serving certificate a month from expiry, or signed by another CA", async () => {
    await using dir = await tempDir();
    const clock = new FakeClock({ startMs: Date.now() });
    const hosts = ["localhost"];
    await loadOrCreatePki({ certDir: dir.path, hosts, clock });
    const old = await read(dir.path, "apiserver.crt");
    clock.advance(300 * DAY);
    assert.deepEqual((await loadOrCreatePki({ certDir: dir.path, hosts, clock })).changes, []);
    clock.advance(40 * DAY);
    assert.deepEqual((await loadOrCreatePki({ certDir: dir.path, hosts, clock })).changes, [
      `replaced ${join(dir.path, "apiserver.crt")}: it expires on ${expiry(old)}`,
    ]);
    const other = await CertificateAuthority.create();
    const foreign = await other.issueServingCertificate({ hosts });
    await writeFile(join(dir.path, "apiserver.crt"), foreign.certificatePem);
    await writeFile(join(dir.path, "apiserver.key"), foreign.privateKeyPem);
    assert.deepEqual((await loadOrCreatePki({ certDir: dir.path, hosts, clock })).changes, [
      `replaced ${join(dir.path, "apiserver.crt")}: the CA did not sign it`,
    ]);
  });

  it("refuses a CA whose certificate or key is missing, or that cannot be used", async () => {
    await using dir = await tempDir();
    await loadOrCreatePki({ certDir: dir.path, hosts: ["localhost"] });
    const caKey = await read(dir.path, "ca.key");
    await unlink(join(dir.path, "ca.key"));
    await assert.rejects(
      loadOrCreatePki({ certDir: dir.path, hosts: ["localhost"] }),
      new RegExp(`${join(dir.path, "ca.key")} is missing while its pair is there`),
    );
    const other = await CertificateAuthority.create();
    await writeFile(join(dir.path, "ca.key"), other.privateKeyPem);
    await assert.rejects(
      loadOrCreatePki({ certDir: dir.path, hosts: ["localhost"] }),
      /cannot be used: the CA's private key does not go with its certificate; remove ca.crt and ca.key/,
    );
    await writeFile(join(dir.path, "ca.key"), caKey);
    assert.deepEqual(
      (await loadOrCreatePki({ certDir: dir.path, hosts: ["localhost"] })).changes,
      [],
    );
  });
});

describe("servingHosts", () => {
  it("is loopback's names and the bind address, or the machine's for every interface", () => {
    assert.deepEqual(servingHosts("127.0.0.1"), ["localhost", "127.0.0.1", "::1"]);
    assert.deepEqual(servingHosts("192.0.2.7", ["api.test"]), [
      "localhost",
      "127.0.0.1",
      "::1",
      "192.0.2.7",
      "api.test",
    ]);
    assert.deepEqual(servingHosts("[fd00::7]").at(-1), "fd00::7");
    const all = servingHosts("0.0.0.0");
    assert.ok(all.includes(hostname()));
    assert.ok(!all.includes("0.0.0.0"));
  });
});

/** A certificate's notAfter, as the CA's errors print it. */
function expiry(pem: string): string {
  return new Date(Date.parse(new X509Certificate(pem).validTo)).toISOString();
}
