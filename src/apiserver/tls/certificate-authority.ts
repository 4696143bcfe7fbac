import { KeyObject, X509Certificate } from "node:crypto";
import { isIP } from "node:net";
import { type Clock, realClock } from "../../core/index.ts";
import {
  type CertificateTemplate,
  type CertificateUsage,
  generateKeyPair,
  importPrivateKey,
  type KeyPair,
  privateKeyPem,
  signCertificate,
} from "./x509.ts";

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;

/** A CA's validity: ten years, as kubeadm's. */
export const CA_VALIDITY_MS = 3650 * DAY_MS;
/** A serving or client certificate's validity: a year, as kubeadm's. */
export const CERTIFICATE_VALIDITY_MS = 365 * DAY_MS;
/** How far back a certificate's validity starts, for peers whose clocks lag (client-go's). */
const BACKDATE_MS = HOUR_MS;

/** The common name of a CA made by {@link CertificateAuthority.create}. */
export const CA_COMMON_NAME = "kontroller-ca";

/** A certificate and its private key, both PEM. */
export interface KeyCertificate {
  readonly certificatePem: string;
  readonly privateKeyPem: string;
}

/** Options of {@link CertificateAuthority.create} and {@link CertificateAuthority.load}. */
export interface CertificateAuthorityOptions {
  /**
   * What certificates' validity starts from. TLS peers check validity against the wall clock,
   * so a server stamping objects with a fake clock still mints certificates on the real one.
   * @default realClock
   */
  readonly clock?: Clock;
}

/** Options of {@link CertificateAuthority.issueServingCertificate}. */
export interface ServingCertificateOptions {
  /** The host names and IP addresses clients reach the server by (its SANs). */
  readonly hosts: readonly string[];
  /** @default "kontroller" */
  readonly commonName?: string;
  /** @default CERTIFICATE_VALIDITY_MS */
  readonly validityMs?: number;
}

/** Options of {@link CertificateAuthority.issueClientCertificate}. */
export interface ClientCertificateOptions {
  /** The user's name: the certificate's CN. */
  readonly user: string;
  /** The user's groups: one O each, in this order. @default none */
  readonly groups?: readonly string[];
  /** @default CERTIFICATE_VALIDITY_MS */
  readonly validityMs?: number;
}

/**
 * A certificate authority: a CA certificate and its key, which signs serving certificates (for
 * the server's names and addresses, ExtKeyUsage serverAuth) and client certificates (CN the
 * user, O each group, ExtKeyUsage clientAuth — what kube's x509 authenticator reads).
 *
 * Certificates start an hour before the clock's now, as client-go backdates them, and are
 * ECDSA P-256.
 */
export class CertificateAuthority {
  /** The CA certificate (PEM): what clients trust to verify the server, and certificates by. */
  readonly certificatePem: string;
  /** The CA's private key (PKCS#8 PEM, or as it was loaded). Keep it secret. */
  readonly privateKeyPem: string;
  readonly #key: KeyPair;
  readonly #clock: Clock;

  /** Made by {@link create} and {@link load} only. */
  private constructor(parts: {
    certificatePem: string;
    keyPem: string;
    key: KeyPair;
    clock: Clock;
  }) {
    this.certificatePem = parts.certificatePem;
    this.privateKeyPem = parts.keyPem;
    this.#key = parts.key;
    this.#clock = parts.clock;
  }

  /** A new self-signed CA, CN {@link CA_COMMON_NAME}, valid ten years. */
  static async create(options: CertificateAuthorityOptions = {}): Promise<CertificateAuthority> {
    const clock = options.clock ?? realClock;
    const key = await generateKeyPair();
    const now = clock.now();
    const template: CertificateTemplate = {
      subject: { commonName: CA_COMMON_NAME },
      notBeforeMs: now - BACKDATE_MS,
      notAfterMs: now + CA_VALIDITY_MS,
      usage: "ca",
    };
    const pem = await signCertificate(template, key.publicKey, { selfSign: key.privateKey });
    const keyPem = await privateKeyPem(key.privateKey);
    return new CertificateAuthority({ certificatePem: pem, keyPem, key, clock });
  }

  /**
   * A CA from its certificate and key (PEM; an RSA or ECDSA key, as kubeadm's or openssl's).
   * Throws, saying why, if the certificate is not a CA's, is outside its validity by the clock,
   * or does not go with the key.
   */
  static async load(
    certificatePem: string,
    keyPem: string,
    options: CertificateAuthorityOptions = {},
  ): Promise<CertificateAuthority> {
    const clock = options.clock ?? realClock;
    const cert = new X509Certificate(certificatePem);
    if (!cert.ca) throw new Error(`the certificate of ${cert.subject} is not a CA's (CA:FALSE)`);
    const invalid = validityProblem(cert, clock.now());
    if (invalid !== undefined) throw new Error(`the CA certificate ${invalid}`);
    const key = await importPrivateKey(keyPem);
    if (!cert.checkPrivateKey(KeyObject.from(key.privateKey))) {
      throw new Error("the CA's private key does not go with its certificate");
    }
    return new CertificateAuthority({ certificatePem, keyPem, key, clock });
  }

  /** A serving certificate for `hosts` (DNS names and IP addresses), ExtKeyUsage serverAuth. */
  issueServingCertificate(options: ServingCertificateOptions): Promise<KeyCertificate> {
    const hosts = [...new Set(options.hosts)];
    return this.#issue("server", options.validityMs, {
      subject: { commonName: options.commonName ?? "kontroller" },
      dnsNames: hosts.filter((h) => isIP(h) === 0),
      ipAddresses: hosts.filter((h) => isIP(h) !== 0),
    });
  }

  /**
   * A client certificate for a user (CN) in groups (one O each), ExtKeyUsage clientAuth: what
   * kube's client-certificate authenticator (and {@link ClientCertificateAuthenticator}) reads
   * as that user in those groups.
   */
  issueClientCertificate(options: ClientCertificateOptions): Promise<KeyCertificate> {
    return this.#issue("client", options.validityMs, {
      subject: {
        commonName: options.user,
        ...(options.groups === undefined ? {} : { organizations: options.groups }),
      },
    });
  }

  /** True if this CA signed `certificatePem` (its issuer is this CA's subject and key). */
  signed(certificatePem: string): boolean {
    const ca = new X509Certificate(this.certificatePem);
    const cert = new X509Certificate(certificatePem);
    return cert.checkIssued(ca) && cert.verify(ca.publicKey);
  }

  async #issue(
    usage: CertificateUsage,
    validityMs: number | undefined,
    fields: Pick<CertificateTemplate, "subject" | "dnsNames" | "ipAddresses">,
  ): Promise<KeyCertificate> {
    const key = await generateKeyPair();
    const now = this.#clock.now();
    const template: CertificateTemplate = {
      ...fields,
      usage,
      notBeforeMs: now - BACKDATE_MS,
      notAfterMs: now + (validityMs ?? CERTIFICATE_VALIDITY_MS),
    };
    const issuer = { certificatePem: this.certificatePem, privateKey: this.#key.privateKey };
    return {
      certificatePem: await signCertificate(template, key.publicKey, issuer),
      privateKeyPem: await privateKeyPem(key.privateKey),
    };
  }
}

/** Why `cert` is not valid at `nowMs` ("has expired on …", "is not valid before …"), if so. */
export function validityProblem(cert: X509Certificate, nowMs: number): string | undefined {
  const from = Date.parse(cert.validFrom);
  const to = Date.parse(cert.validTo);
  if (nowMs < from) return `is not valid before ${new Date(from).toISOString()}`;
  if (nowMs > to) return `has expired on ${new Date(to).toISOString()}`;
  return undefined;
}

/**
 * The `hosts` a certificate does not cover, by Node's own checks (`checkHost`, `checkIP`: the
 * rules Node's TLS client verifies a server by — SANs, wildcards in the leftmost label).
 */
export function uncoveredHosts(certificatePem: string, hosts: readonly string[]): string[] {
  const cert = new X509Certificate(certificatePem);
  return hosts.filter((h) =>
    isIP(h) === 0 ? cert.checkHost(h) === undefined : cert.checkIP(h) === undefined,
  );
}
