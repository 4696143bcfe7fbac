import assert from "node:assert/strict";
import { generateKeyPairSync, X509Certificate } from "node:crypto";
import { describe, it } from "node:test";
import { FakeClock } from "../../testing/index.ts";
import { CA_COMMON_NAME, CertificateAuthority, uncoveredHosts } from "./certificate-authority.ts";
import { get, startHttpsServer } from "./tls-server.test-helper.ts";
import { importPrivateKey, ipBytes, signCertificate } from "./x509.ts";

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const START = Date.UTC(2026, 0, 1);

/** Rejects with the request's error code, or fails if the request succeeds. */
async function refusal(request: Promise<string>): Promise<string> {
  const err = await request.then(
    () => assert.fail("the TLS client accepted the server"),
    (e: unknown) => e,
  );
  assert.ok(err instanceof Error && "code" in err, String(err));
  return String(err.code);
}

describe("CertificateAuthority", () => {
  it("makes a self-signed CA valid ten years from an hour before now", async () => {
    const ca = await CertificateAuthority.create({ clock: new FakeClock({ startMs: START }) });
    const cert = new X509Certificate(ca.certificatePem);
    assert.equal(cert.subject, `CN=${CA_COMMON_NAME}`);
    assert.equal(cert.issuer, cert.subject);
    assert.ok(cert.ca);
    assert.ok(cert.verify(cert.publicKey));
    assert.equal(Date.parse(cert.validFrom), START - HOUR);
    assert.equal(Date.parse(cert.validTo), START + 3650 * DAY);
    assert.match(ca.privateKeyPem, /^-----BEGIN PRIVATE KEY-----/);
  });

  it("signs a serving certificate that Node's TLS client verifies by its SANs", async () => {
    const ca = await CertificateAuthority.create();
    const serving = await ca.issueServingCertificate({
      hosts: ["localhost", "127.0.0.1", "::1", "api.example.test"],
    });
    const cert = new X509Certificate(serving.certificatePem);
    assert.ok(!cert.ca);
    assert.deepEqual(cert.keyUsage, ["1.3.6.1.5.5.7.3.1"]);
    assert.ok(ca.signed(serving.certificatePem));
    await using server = await startHttpsServer(serving, (_req, res) => res.end("ok"));
    const trusting = { ca: ca.certificatePem };
    // By address (the IP SAN), and by each name the certificate has.
    assert.equal(await get(server.port, trusting), "ok");
    assert.equal(await get(server.port, { ...trusting, servername: "localhost" }), "ok");
    assert.equal(await get(server.port, { ...trusting, servername: "api.example.test" }), "ok");
    // A name it does not have, and a client that does not trust the CA, are refused.
    assert.equal(
      await refusal(get(server.port, { ...trusting, servername: "other.example.test" })),
      "ERR_TLS_CERT_ALTNAME_INVALID",
    );
    assert.equal(await refusal(get(server.port, {})), "UNABLE_TO_VERIFY_LEAF_SIGNATURE");
    const other = await CertificateAuthority.create();
    assert.equal(
      await refusal(get(server.port, { ca: other.certificatePem })),
      "UNABLE_TO_VERIFY_LEAF_SIGNATURE",
    );
  });

  it("says which hosts a certificate does not cover, by Node's own host and IP checks", async () => {
    const ca = await CertificateAuthority.create();
    const { certificatePem } = await ca.issueServingCertificate({
      hosts: ["localhost", "*.apps.test", "10.0.0.1", "fd00::1"],
    });
    assert.deepEqual(
      uncoveredHosts(certificatePem, [
        "localhost",
        "a.apps.test",
        "a.b.apps.test",
        "10.0.0.1",
        "10.0.0.2",
        "fd00:0:0::1",
        "127.0.0.1",
      ]),
      ["a.b.apps.test", "10.0.0.2", "127.0.0.1"],
    );
  });

  it("mints client certificates: CN the user, one O per group in order, clientAuth", async () => {
    const ca = await CertificateAuthority.create();
    const client = await ca.issueClientCertificate({
      user: "jane",
      groups: ["system:masters", "dev"],
    });
    const cert = new X509Certificate(client.certificatePem);
    assert.equal(cert.subject, "O=system:masters\nO=dev\nCN=jane");
    assert.deepEqual(cert.keyUsage, ["1.3.6.1.5.5.7.3.2"]);
    assert.ok(ca.signed(client.certificatePem));
    assert.ok(!(await CertificateAuthority.create()).signed(client.certificatePem));
  });

  it("loads a CA with an RSA key in PKCS#1, as openssl and kubeadm write them", async () => {
    const { privateKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });
    const rsaPem = privateKey.export({ type: "pkcs1", format: "pem" }).toString();
    const keys = await importPrivateKey(rsaPem);
    const now = Date.now();
    const caPem = await signCertificate(
      {
        subject: { commonName: "kubernetes" },
        notBeforeMs: now - HOUR,
        notAfterMs: now + DAY,
        usage: "ca",
      },
      keys.publicKey,
      { selfSign: keys.privateKey },
    );
    const ca = await CertificateAuthority.load(caPem, rsaPem);
    const serving = await ca.issueServingCertificate({ hosts: ["127.0.0.1"] });
    assert.equal(
      new X509Certificate(serving.certificatePem).signatureAlgorithm,
      "sha256WithRSAEncryption",
    );
    await using server = await startHttpsServer(serving, (_req, res) => res.end("rsa"));
    assert.equal(await get(server.port, { ca: caPem }), "rsa");
  });

  it("refuses to load a certificate that is not a CA's, an expired CA, or the wrong key", async () => {
    const clock = new FakeClock({ startMs: START });
    const ca = await CertificateAuthority.create({ clock });
    const other = await CertificateAuthority.create({ clock });
    const leaf = await ca.issueServingCertificate({ hosts: ["localhost"] });
    await assert.rejects(
      CertificateAuthority.load(leaf.certificatePem, leaf.privateKeyPem, { clock }),
      /is not a CA's/,
    );
    await assert.rejects(
      CertificateAuthority.load(ca.certificatePem, other.privateKeyPem, { clock }),
      /private key does not go with its certificate/,
    );
    clock.advance(3651 * DAY);
    await assert.rejects(
      CertificateAuthority.load(ca.certificatePem, ca.privateKeyPem, { clock }),
      /the CA certificate has expired on 2035-12-30T00:00:00.000Z/,
    );
  });
});

describe("ipBytes", () => {
  it("reads IPv4, IPv6 in its short forms, and IPv6 with an IPv4 tail", () => {
    const hex = (ip: string) => Buffer.from(ipBytes(ip)).toString("hex");
    assert.equal(hex("127.0.0.1"), "7f000001");
    assert.equal(hex("::1"), "00000000000000000000000000000001");
    assert.equal(hex("::"), "0".repeat(32));
    assert.equal(hex("fe80::1:2"), "fe800000000000000000000000010002");
    assert.equal(hex("2001:db8::"), "20010db8000000000000000000000000");
    assert.equal(hex("::ffff:1.2.3.4"), "00000000000000000000ffff01020304");
    assert.equal(hex("1:2:3:4:5:6:7:8"), "00010002000300040005000600070008");
    assert.throws(() => ipBytes("localhost"), /not an IP address/);
  });
});
