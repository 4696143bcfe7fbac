import {
  createHash,
  createPrivateKey,
  createPublicKey,
  type KeyObject,
  randomBytes,
  webcrypto,
} from "node:crypto";
import { isIP } from "node:net";
import * as asn1js from "asn1js";
import {
  AttributeTypeAndValue,
  AuthorityKeyIdentifier,
  BasicConstraints,
  Certificate,
  CryptoEngine,
  Extension,
  ExtKeyUsage,
  GeneralName,
  GeneralNames,
  RelativeDistinguishedNames,
  Time,
  TimeType,
} from "pkijs";

/*
 * Certificates and keys, built with pkijs on Node's WebCrypto. Keys are ECDSA P-256 (made in
 * about a millisecond, where RSA 2048 takes tens); a key given from elsewhere (a kubeadm CA's
 * RSA key) signs with its own algorithm. Everything is PEM on the outside: certificates as
 * `CERTIFICATE`, private keys as PKCS#8 `PRIVATE KEY` (any PEM Node reads is accepted).
 */

/** A WebCrypto key (Node's: the project compiles without the DOM's types). */
export type CryptoKey = webcrypto.CryptoKey;

/** The WebCrypto engine pkijs signs with: passed each time, never installed globally. */
const ENGINE = new CryptoEngine({
  name: "node",
  crypto: webcrypto as unknown as ConstructorParameters<typeof CryptoEngine>[0]["crypto"],
});

const OID = {
  commonName: "2.5.4.3",
  organization: "2.5.4.10",
  subjectKeyIdentifier: "2.5.29.14",
  keyUsage: "2.5.29.15",
  subjectAltName: "2.5.29.17",
  basicConstraints: "2.5.29.19",
  authorityKeyIdentifier: "2.5.29.35",
  extKeyUsage: "2.5.29.37",
  serverAuth: "1.3.6.1.5.5.7.3.1",
  clientAuth: "1.3.6.1.5.5.7.3.2",
} as const;

/** What a certificate is for: a CA's, a server's or a client's. */
export type CertificateUsage = "ca" | "server" | "client";

/** The subject of a certificate, as kube reads it: the user is CN, the groups are O. */
export interface CertificateSubject {
  readonly commonName: string;
  /** @default none */
  readonly organizations?: readonly string[];
}

/** What a certificate says. */
export interface CertificateTemplate {
  readonly subject: CertificateSubject;
  /** Validity, ms since the epoch (rounded down to the second). */
  readonly notBeforeMs: number;
  readonly notAfterMs: number;
  readonly usage: CertificateUsage;
  /** Subject alternative names: DNS names and IP addresses (v4 or v6). @default none */
  readonly dnsNames?: readonly string[];
  readonly ipAddresses?: readonly string[];
}

/** A private key and its public half, as WebCrypto keys. */
export interface KeyPair {
  readonly privateKey: CryptoKey;
  readonly publicKey: CryptoKey;
}

/** Who signs a certificate: a CA's certificate (PEM) and private key. */
export interface Issuer {
  readonly certificatePem: string;
  readonly privateKey: CryptoKey;
}

/** A new ECDSA P-256 key pair. */
export async function generateKeyPair(): Promise<KeyPair> {
  const pair = await webcrypto.subtle.generateKey({ name: "ECDSA", namedCurve: "P-256" }, true, [
    "sign",
    "verify",
  ]);
  return pair as KeyPair;
}

/** A private key as PKCS#8 PEM. */
export async function privateKeyPem(key: CryptoKey): Promise<string> {
  const der = await webcrypto.subtle.exportKey("pkcs8", key);
  return pemEncode("PRIVATE KEY", Buffer.from(der));
}

/**
 * The key pair of a PEM private key (PKCS#8, or the PKCS#1 and SEC 1 forms openssl and kubeadm
 * write): ECDSA on P-256 or P-384, or RSA (signing with PKCS#1 v1.5). Throws on anything else.
 */
export async function importPrivateKey(pem: string): Promise<KeyPair> {
  const key = createPrivateKey(pem);
  const algorithm = signingAlgorithm(key);
  const pkcs8 = key.export({ type: "pkcs8", format: "der" });
  const spki = createPublicKey(key).export({ type: "spki", format: "der" });
  const subtle = webcrypto.subtle;
  return {
    privateKey: await subtle.importKey("pkcs8", pkcs8, algorithm, true, ["sign"]),
    publicKey: await subtle.importKey("spki", spki, algorithm, true, ["verify"]),
  };
}

/** The WebCrypto algorithm a Node private key signs with. */
function signingAlgorithm(
  key: KeyObject,
): webcrypto.EcKeyImportParams | webcrypto.RsaHashedImportParams {
  if (key.asymmetricKeyType === "rsa") return { name: "RSASSA-PKCS1-v1_5", hash: "SHA-256" };
  const curve = key.asymmetricKeyDetails?.namedCurve;
  if (key.asymmetricKeyType === "ec" && (curve === "prime256v1" || curve === "secp384r1")) {
    return { name: "ECDSA", namedCurve: curve === "prime256v1" ? "P-256" : "P-384" };
  }
  const kind = [key.asymmetricKeyType, curve].filter((k) => k !== undefined).join(" ");
  throw new Error(`unsupported private key (${kind}): use an ECDSA P-256 or P-384 key, or RSA`);
}

/**
 * A certificate for `publicKey` as `template` says, signed by `issuer` — or by `selfSign`, the
 * private half of `publicKey`, for a self-signed CA. PEM.
 *
 * A CA certificate has basicConstraints CA:true and keyUsage keyCertSign and cRLSign, both
 * critical; others have CA:false, keyUsage digitalSignature (and keyEncipherment for an RSA
 * key) and the one extended key usage of their role: serverAuth or clientAuth. Every
 * certificate has a subject key identifier, and one signed by a CA the CA's as its authority
 * key identifier, so that verifiers find the issuer by key as well as by name.
 */
export async function signCertificate(
  template: CertificateTemplate,
  publicKey: CryptoKey,
  signer: Issuer | { readonly selfSign: CryptoKey },
): Promise<string> {
  const cert = new Certificate();
  cert.version = 2;
  cert.serialNumber = new asn1js.Integer({ valueHex: serialNumber() });
  cert.subject = nameOf(template.subject);
  cert.notBefore = time(template.notBeforeMs);
  cert.notAfter = time(template.notAfterMs);
  await cert.subjectPublicKeyInfo.importKey(publicKey, ENGINE);
  const keyId = subjectKeyId(await webcrypto.subtle.exportKey("spki", publicKey));
  let signingKey: CryptoKey;
  let authorityKeyId: ArrayBuffer | undefined;
  if ("selfSign" in signer) {
    cert.issuer = cert.subject;
    signingKey = signer.selfSign;
  } else {
    const issuer = Certificate.fromBER(pemDecode("CERTIFICATE", signer.certificatePem));
    cert.issuer = issuer.subject;
    signingKey = signer.privateKey;
    authorityKeyId = keyIdOf(issuer);
  }
  cert.extensions = extensions(template, keyId, authorityKeyId, publicKey.algorithm.name);
  await cert.sign(signingKey, hashOf(signingKey), ENGINE);
  return pemEncode("CERTIFICATE", Buffer.from(cert.toSchema().toBER(false)));
}

function extensions(
  template: CertificateTemplate,
  keyId: ArrayBuffer,
  authorityKeyId: ArrayBuffer | undefined,
  keyAlgorithm: string,
): Extension[] {
  const ca = template.usage === "ca";
  const out = [
    extension(OID.basicConstraints, true, new BasicConstraints({ cA: ca }).toSchema()),
    // keyUsage bits, first byte from the left: digitalSignature 0x80, keyEncipherment 0x20,
    // keyCertSign 0x04, cRLSign 0x02.
    extension(OID.keyUsage, true, keyUsage(ca ? 0x86 : keyAlgorithm === "ECDSA" ? 0x80 : 0xa0)),
    extension(OID.subjectKeyIdentifier, false, new asn1js.OctetString({ valueHex: keyId })),
  ];
  if (authorityKeyId !== undefined) {
    const aki = new AuthorityKeyIdentifier({
      keyIdentifier: new asn1js.OctetString({ valueHex: authorityKeyId }),
    });
    out.push(extension(OID.authorityKeyIdentifier, false, aki.toSchema()));
  }
  if (!ca) {
    const purpose = template.usage === "server" ? OID.serverAuth : OID.clientAuth;
    const eku = new ExtKeyUsage({ keyPurposes: [purpose] });
    out.push(extension(OID.extKeyUsage, false, eku.toSchema()));
  }
  const names = [
    ...(template.dnsNames ?? []).map((value) => new GeneralName({ type: 2, value })),
    ...(template.ipAddresses ?? []).map(
      (ip) =>
        new GeneralName({ type: 7, value: new asn1js.OctetString({ valueHex: ipBytes(ip) }) }),
    ),
  ];
  if (names.length > 0) {
    out.push(extension(OID.subjectAltName, false, new GeneralNames({ names }).toSchema()));
  }
  return out;
}

function extension(extnID: string, critical: boolean, value: asn1js.BaseBlock): Extension {
  return new Extension({ extnID, critical, extnValue: value.toBER(false) });
}

/** A keyUsage BIT STRING of one byte, its trailing zero bits marked unused as DER wants. */
function keyUsage(bits: number): asn1js.BitString {
  let unused = 0;
  while (unused < 7 && (bits & (1 << unused)) === 0) unused++;
  return new asn1js.BitString({ valueHex: new Uint8Array([bits]).buffer, unusedBits: unused });
}

/**
 * A Name with one RDN per attribute, O values first and CN last, as Go writes a pkix.Name
 * (pkijs would put them all in one multi-valued RDN).
 */
function nameOf(subject: CertificateSubject): RelativeDistinguishedNames {
  const attribute = (type: string, value: string) =>
    new asn1js.Set({
      value: [
        new AttributeTypeAndValue({ type, value: new asn1js.Utf8String({ value }) }).toSchema(),
      ],
    });
  const rdns = [
    ...(subject.organizations ?? []).map((o) => attribute(OID.organization, o)),
    attribute(OID.commonName, subject.commonName),
  ];
  return RelativeDistinguishedNames.fromBER(new asn1js.Sequence({ value: rdns }).toBER(false));
}

/** UTCTime through 2049, GeneralizedTime after, as RFC 5280 wants; whole seconds. */
function time(ms: number): Time {
  const value = new Date(Math.floor(ms / 1000) * 1000);
  const year = value.getUTCFullYear();
  const type = year >= 1950 && year < 2050 ? TimeType.UTCTime : TimeType.GeneralizedTime;
  return new Time({ type, value });
}

/** 128 random bits, positive and with no leading zero byte (DER's minimal INTEGER). */
function serialNumber(): ArrayBuffer {
  const bytes = randomBytes(16);
  bytes[0] = (bytes[0]! & 0x7f) | 0x40;
  return new Uint8Array(bytes).buffer;
}

/** A key identifier: the SHA-1 of the public key's SubjectPublicKeyInfo. */
function subjectKeyId(spki: ArrayBuffer): ArrayBuffer {
  return new Uint8Array(createHash("sha1").update(Buffer.from(spki)).digest()).buffer;
}

/** The subject key identifier a certificate carries, if any. */
function keyIdOf(cert: Certificate): ArrayBuffer | undefined {
  const ext = cert.extensions?.find((e) => e.extnID === OID.subjectKeyIdentifier);
  if (ext === undefined) return undefined;
  const inner = asn1js.fromBER(ext.extnValue.valueBlock.valueHexView).result;
  return inner instanceof asn1js.OctetString
    ? inner.valueBlock.valueHexView.slice().buffer
    : undefined;
}

function hashOf(key: CryptoKey): string {
  const { namedCurve } = key.algorithm as webcrypto.EcKeyAlgorithm;
  return namedCurve === "P-384" ? "SHA-384" : "SHA-256";
}

/** The bytes of an IPv4 or IPv6 address, as a certificate's iPAddress holds them. */
export function ipBytes(ip: string): ArrayBuffer {
  const family = isIP(ip);
  if (family === 4) return new Uint8Array(ip.split(".").map(Number)).buffer;
  if (family !== 6) throw new Error(`not an IP address: ${JSON.stringify(ip)}`);
  let text = ip.replace(/%.*$/, "");
  const v4 = /(\d+\.\d+\.\d+\.\d+)$/.exec(text)?.[1];
  if (v4 !== undefined) {
    const [a, b, c, d] = v4.split(".").map(Number) as [number, number, number, number];
    text = `${text.slice(0, -v4.length)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head, tail] = text.includes("::") ? text.split("::") : [text, undefined];
  const left = head ? head.split(":") : [];
  const right = tail ? tail.split(":") : [];
  const groups =
    tail === undefined
      ? left
      : [...left, ...Array(8 - left.length - right.length).fill("0"), ...right];
  const out = new Uint8Array(16);
  groups.forEach((g, i) => {
    const n = Number.parseInt(g, 16);
    out[2 * i] = n >> 8;
    out[2 * i + 1] = n & 0xff;
  });
  return out.buffer;
}

/** PEM of one block of `label`. */
export function pemEncode(label: string, der: Buffer): string {
  const lines = der.toString("base64").match(/.{1,64}/g) ?? [];
  return `-----BEGIN ${label}-----\n${lines.join("\n")}\n-----END ${label}-----\n`;
}

/** The DER of the first PEM block of `label` in `pem`; throws if there is none. */
export function pemDecode(label: string, pem: string): ArrayBuffer {
  const found = new RegExp(`-----BEGIN ${label}-----([^-]*)-----END ${label}-----`).exec(pem);
  if (found === null) throw new Error(`no PEM block "${label}" found`);
  return new Uint8Array(Buffer.from(found[1]!.replace(/\s+/g, ""), "base64")).buffer;
}

/** Every PEM `CERTIFICATE` block of a bundle, each as its own PEM. */
export function splitCertificates(bundle: string): string[] {
  return bundle.match(/-----BEGIN CERTIFICATE-----[^-]*-----END CERTIFICATE-----/g) ?? [];
}
