import assert from "node:assert/strict";
import { createHash, X509Certificate } from "node:crypto";
import { Agent } from "node:https";
import { describe, it } from "node:test";
import fc from "fast-check";
import { FakeClock } from "../../testing/index.ts";
import type { CertificateAuthentication } from "../auth/certificate-authentication.ts";
import { CertificateAuthority, type KeyCertificate } from "./certificate-authority.ts";
import { ClientCertificateAuthenticator } from "./client-certificates.ts";
import { get, startHttpsServer } from "./tls-server.test-helper.ts";

const YEAR = 365 * 24 * 3_600_000;

/**
 * A CA, its serving certificate, and a server that answers with what the authenticator (on
 * `clock`) says of each request. The CA is made on `caClock` (`made`, which mints on it) and
 * also loaded on the real clock (`ca`).
 */
async function rig(
  options: { clock?: FakeClock; caClock?: FakeClock; trust?: readonly CertificateAuthority[] } = {},
) {
  const made = await CertificateAuthority.create(
    options.caClock === undefined ? {} : { clock: options.caClock },
  );
  const ca = await CertificateAuthority.load(made.certificatePem, made.privateKeyPem);
  const serving = await ca.issueServingCertificate({ hosts: ["127.0.0.1"] });
  const authenticator = new ClientCertificateAuthenticator({
    clientCa: ca.certificatePem,
    ...(options.clock === undefined ? {} : { clock: options.clock }),
  });
  // The TLS server may trust more CAs than the authenticator (a bundle shared with others).
  const trusted = [ca, ...(options.trust ?? [])].map((c) => c.certificatePem).join("");
  const server = await startHttpsServer(
    serving,
    (req, res) => res.end(JSON.stringify(authenticator.authenticate(req.socket))),
    trusted,
  );
  const ask = async (client?: KeyCertificate, agent?: Agent) =>
    JSON.parse(
      await get(server.port, {
        ca: ca.certificatePem,
        ...(client === undefined ? {} : { cert: client.certificatePem, key: client.privateKeyPem }),
        ...(agent === undefined ? {} : { agent }),
      }),
    ) as CertificateAuthentication;
  return { ca, made, server, ask };
}

function rejected(result: CertificateAuthentication): string {
  assert.equal(result.kind, "rejected", JSON.stringify(result));
  return result.kind === "rejected" ? result.error : "";
}

describe("ClientCertificateAuthenticator", () => {
  it("is the certificate's user: CN, the O values and system:authenticated, and its hash", async () => {
    const { ca, server, ask } = await rig();
    await using _ = server;
    const client = await ca.issueClientCertificate({ user: "jane", groups: ["dev", "ops"] });
    const digest = createHash("sha256")
      .update(new X509Certificate(client.certificatePem).raw)
      .digest("hex");
    assert.deepEqual(await ask(client), {
      kind: "authenticated",
      user: {
        username: "jane",
        groups: ["dev", "ops", "system:authenticated"],
        extra: { "authentication.kubernetes.io/credential-id": [`X509SHA256=${digest}`] },
      },
    });
  });

  it("leaves a connection without a certificate, or one naming nobody, to others", async () => {
    const { ca, server, ask } = await rig();
    await using _ = server;
    assert.deepEqual(await ask(), { kind: "none" });
    assert.deepEqual(await ask(await ca.issueClientCertificate({ user: "", groups: ["g"] })), {
      kind: "none",
    });
  });

  it("rejects a certificate from another CA", async () => {
    const { server, ask } = await rig();
    await using _ = server;
    const other = await CertificateAuthority.create();
    const error = rejected(await ask(await other.issueClientCertificate({ user: "mallory" })));
    assert.match(error, /^verifying certificate SN=\d+, subject="CN=mallory" failed: x509: /);
  });

  it("rejects a certificate from a CA the TLS server trusts and the authenticator does not", async () => {
    const other = await CertificateAuthority.create();
    const { server, ask } = await rig({ trust: [other] });
    await using _ = server;
    const error = rejected(await ask(await other.issueClientCertificate({ user: "mallory" })));
    assert.match(error, /x509: certificate signed by unknown authority$/);
  });

  it("rejects an expired certificate, and a certificate for servers", async () => {
    // A CA made two years ago, whose one-year certificates minted then have expired.
    const { ca, made, server, ask } = await rig({
      caClock: new FakeClock({ startMs: Date.now() - 2 * YEAR }),
    });
    await using _ = server;
    const expired = await made.issueClientCertificate({ user: "old" });
    assert.match(
      rejected(await ask(expired)),
      /x509: certificate has expired or is not yet valid \(CERT_HAS_EXPIRED\)$/,
    );
    const serving = await ca.issueServingCertificate({ hosts: ["127.0.0.1"] });
    assert.match(
      rejected(await ask(serving)),
      /x509: certificate specifies an incompatible key usage \(INVALID_PURPOSE\)$/,
    );
  });

  it("checks validity again on each request of a keep-alive connection", async () => {
    const clock = new FakeClock({ startMs: Date.now() });
    const { ca, server, ask } = await rig({ clock });
    await using _ = server;
    const client = await ca.issueClientCertificate({ user: "jane", validityMs: 60_000 });
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    try {
      assert.equal((await ask(client, agent)).kind, "authenticated");
      clock.advance(61_000);
      assert.match(rejected(await ask(client, agent)), /certificate has expired on /);
      assert.equal(server.connections(), 1);
    } finally {
      agent.destroy();
    }
  });

  it("reads back any user and groups a minted certificate names", async () => {
    const { ca, server, ask } = await rig();
    await using _ = server;
    const name = fc.string({ unit: "grapheme", minLength: 1, maxLength: 24 });
    await fc.assert(
      fc.asyncProperty(name, fc.array(name, { maxLength: 4 }), async (user, groups) => {
        const result = await ask(await ca.issueClientCertificate({ user, groups }));
        assert.equal(result.kind, "authenticated", JSON.stringify(result));
        if (result.kind !== "authenticated") return;
        assert.equal(result.user.username, user);
        const expected = groups.includes("system:authenticated")
          ? groups
          : [...groups, "system:authenticated"];
        assert.deepEqual(result.user.groups, expected);
      }),
      { numRuns: 40 },
    );
  });

  it("never authenticates a certificate another CA minted, whatever it names", async () => {
    const { server, ask } = await rig();
    await using _ = server;
    const name = fc.string({ unit: "grapheme", minLength: 1, maxLength: 16 });
    const groups = fc.array(fc.oneof(name, fc.constant("system:masters")), { maxLength: 3 });
    await fc.assert(
      fc.asyncProperty(fc.oneof(name, fc.constant("admin")), groups, async (user, gs) => {
        const other = await CertificateAuthority.create();
        const result = await ask(await other.issueClientCertificate({ user, groups: gs }));
        assert.equal(result.kind, "rejected", JSON.stringify(result));
      }),
      { numRuns: 15 },
    );
  });

  it("refuses a client CA bundle with no certificate", () => {
    assert.throws(
      () => new ClientCertificateAuthenticator({ clientCa: "" }),
      /clientCa holds no PEM certificate/,
    );
  });
});
