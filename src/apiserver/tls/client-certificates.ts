import { createHash, X509Certificate } from "node:crypto";
import type { Socket } from "node:net";
import { type DetailedPeerCertificate, TLSSocket } from "node:tls";
import { type Clock, realClock } from "../../core/index.ts";
import type {
  CertificateAuthentication,
  CertificateAuthenticator,
} from "../auth/certificate-authentication.ts";
import { AUTHENTICATED_GROUP, CREDENTIAL_ID_EXTRA, type UserInfo } from "../auth/user.ts";
import { validityProblem } from "./certificate-authority.ts";
import { splitCertificates } from "./x509.ts";

const CLIENT_AUTH = "1.3.6.1.5.5.7.3.2";
const ANY_EXTENDED_KEY_USAGE = "2.5.29.37.0";
/** How many certificates a client's chain may have between its own and a trusted CA. */
const MAX_INTERMEDIATES = 8;

/** Options of {@link ClientCertificateAuthenticator}. */
export interface ClientCertificateAuthenticatorOptions {
  /**
   * The CAs client certificates must chain to: a PEM bundle (kube's `--client-ca-file`). The
   * TLS server must trust the same ones (its `ca` option) so that the handshake verifies them.
   */
  readonly clientCa: string;
  /**
   * What certificates' validity is checked against on every request, as kube does (a
   * keep-alive connection outlives the handshake that verified its certificate).
   * @default realClock
   */
  readonly clock?: Clock;
}

/**
 * kube-apiserver's client-certificate authenticator (k8s.io/apiserver's request/x509): a
 * request on a TLS connection whose client sent a certificate is the user the certificate
 * names — CN the username, each O a group, `system:authenticated` added, and the certificate's
 * SHA-256 as the credential id — once the certificate is verified:
 *
 * - the handshake verified it (the server asks for a certificate, `requestCert`, and does not
 *   refuse the connection without one, `rejectUnauthorized: false`; `socket.authorized` then
 *   says whether the chain verified against the server's `ca`);
 * - it chains to one of {@link ClientCertificateAuthenticatorOptions.clientCa} (checked here
 *   too, whatever else the server's `ca` trusts), every certificate on the way within its
 *   validity by the clock;
 * - its extended key usages, if it has any, include clientAuth (a certificate without the
 *   extension may be used for anything, as Go and OpenSSL read it).
 *
 * No certificate, or one with an empty CN, is `none` (other authenticators decide, as kube's
 * CommonNameUserConversion declines); a certificate that fails a check is `rejected`, which
 * kube answers 401 unless another credential of the request authenticates it.
 */
export class ClientCertificateAuthenticator implements CertificateAuthenticator {
  readonly #cas: readonly X509Certificate[];
  readonly #clock: Clock;

  constructor(options: ClientCertificateAuthenticatorOptions) {
    this.#cas = splitCertificates(options.clientCa).map((pem) => new X509Certificate(pem));
    if (this.#cas.length === 0) {
      throw new Error("ClientCertificateAuthenticator: clientCa holds no PEM certificate");
    }
    this.#clock = options.clock ?? realClock;
  }

  /** Who the client certificate of `socket`'s TLS connection authenticates, if it sent one. */
  authenticate(socket: Socket): CertificateAuthentication {
    if (!(socket instanceof TLSSocket)) return { kind: "none" };
    const peer = socket.getPeerCertificate(true) as Partial<DetailedPeerCertificate>;
    if (peer?.raw === undefined) return { kind: "none" };
    const leaf = new X509Certificate(peer.raw);
    const failed = (why: string): CertificateAuthentication => ({
      kind: "rejected",
      error: `verifying certificate ${identifier(leaf)} failed: ${why}`,
    });
    if (!socket.authorized) {
      return failed(`x509: ${errorText(socket.authorizationError)}`);
    }
    const problem = this.#chainProblem(leaf, peer as DetailedPeerCertificate);
    if (problem !== undefined) return failed(`x509: ${problem}`);
    const usages = leaf.keyUsage;
    if (
      usages !== undefined &&
      !usages.includes(CLIENT_AUTH) &&
      !usages.includes(ANY_EXTENDED_KEY_USAGE)
    ) {
      return failed("x509: certificate specifies an incompatible key usage");
    }
    const user = userOf(peer as DetailedPeerCertificate);
    return user === undefined ? { kind: "none" } : { kind: "authenticated", user };
  }

  /**
   * Why `leaf` does not chain to a trusted CA through the certificates the client sent, each
   * within its validity; undefined if it does.
   */
  #chainProblem(leaf: X509Certificate, peer: DetailedPeerCertificate): string | undefined {
    const now = this.#clock.now();
    let cert = leaf;
    let link = peer;
    for (let depth = 0; depth <= MAX_INTERMEDIATES; depth++) {
      const invalid = validityProblem(cert, now);
      if (invalid !== undefined) return `certificate ${invalid}`;
      if (this.#cas.some((ca) => cert.checkIssued(ca) && cert.verify(ca.publicKey))) {
        return undefined;
      }
      const next = link.issuerCertificate;
      if (next?.raw === undefined || next === link || next.raw.equals(link.raw)) break;
      const issuer = new X509Certificate(next.raw);
      if (!issuer.ca || !cert.checkIssued(issuer) || !cert.verify(issuer.publicKey)) break;
      cert = issuer;
      link = next;
    }
    return "certificate signed by unknown authority";
  }
}

/**
 * The user of a verified certificate: CN (the last, if several) and the O values, in order, as
 * Go's pkix.Name reads them; undefined for an empty CN.
 */
function userOf(peer: DetailedPeerCertificate): UserInfo | undefined {
  const subject = peer.subject as unknown as Record<string, string | string[] | undefined>;
  const values = (key: string) => {
    const v = subject[key];
    return v === undefined ? [] : Array.isArray(v) ? v : [v];
  };
  const username = values("CN").at(-1) ?? "";
  if (username === "") return undefined;
  const groups = values("O");
  const digest = createHash("sha256").update(peer.raw).digest("hex");
  return {
    username,
    groups: groups.includes(AUTHENTICATED_GROUP) ? groups : [...groups, AUTHENTICATED_GROUP],
    extra: { [CREDENTIAL_ID_EXTRA]: [`X509SHA256=${digest}`] },
  };
}

/** The certificate, in an error: its serial number and subject. */
function identifier(cert: X509Certificate): string {
  return `SN=${BigInt(`0x${cert.serialNumber}`)}, subject="${cert.subject.replaceAll("\n", ", ")}"`;
}

/** Go's words for what OpenSSL's verification codes mean, as kube's errors say them. */
const GO_WORDS: Readonly<Record<string, string>> = {
  CERT_HAS_EXPIRED: "certificate has expired or is not yet valid",
  CERT_NOT_YET_VALID: "certificate has expired or is not yet valid",
  UNABLE_TO_GET_ISSUER_CERT: "certificate signed by unknown authority",
  UNABLE_TO_GET_ISSUER_CERT_LOCALLY: "certificate signed by unknown authority",
  UNABLE_TO_VERIFY_LEAF_SIGNATURE: "certificate signed by unknown authority",
  DEPTH_ZERO_SELF_SIGNED_CERT: "certificate signed by unknown authority",
  SELF_SIGNED_CERT_IN_CHAIN: "certificate signed by unknown authority",
  INVALID_PURPOSE: "certificate specifies an incompatible key usage",
};

/** What the handshake's verification said (an OpenSSL code), in Go's words where it has them. */
function errorText(err: unknown): string {
  const code = err instanceof Error ? err.message : String(err ?? "");
  const words = GO_WORDS[code];
  if (words !== undefined) return `${words} (${code})`;
  return code === "" ? "the certificate was not verified" : code;
}
