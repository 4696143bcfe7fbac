import { createPrivateKey, X509Certificate } from "node:crypto";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { hostname, networkInterfaces } from "node:os";
import { join } from "node:path";
import { type Clock, errnoCode, errorMessage, realClock } from "../../core/index.ts";
import {
  CertificateAuthority,
  type KeyCertificate,
  uncoveredHosts,
  validityProblem,
} from "./certificate-authority.ts";

/** The file names in a cert dir, as kubeadm's /etc/kubernetes/pki names them. */
export const CERT_DIR_FILES = {
  caCertificate: "ca.crt",
  caKey: "ca.key",
  servingCertificate: "apiserver.crt",
  servingKey: "apiserver.key",
} as const;

/** A serving certificate renewed at start once less than this is left (a month). */
const RENEW_BEFORE_MS = 30 * 24 * 3_600_000;

/** The server's PKI: its CA and the serving certificate the CA signed. */
export interface ServingPki {
  readonly ca: CertificateAuthority;
  readonly serving: KeyCertificate;
  /** What was made or replaced, one line each ("wrote ca.crt…"), for the server to say. */
  readonly changes: readonly string[];
}

/** Options of {@link loadOrCreatePki}. */
export interface PkiOptions {
  /**
   * A directory to keep the CA and the serving certificate in, reused across starts (kube's
   * `--cert-dir`); made if missing. Without one, both are made anew in memory.
   */
  readonly certDir?: string;
  /** The host names and addresses the serving certificate must cover (see {@link servingHosts}). */
  readonly hosts: readonly string[];
  /** @default realClock */
  readonly clock?: Clock;
}

/**
 * The CA and serving certificate of a server. With a cert dir: the CA in `ca.crt`/`ca.key` is
 * reused (made and written if neither file exists; an error if only one does, or if they are
 * not a valid CA); the serving certificate in `apiserver.crt`/`apiserver.key` is reused if this
 * CA signed it, it goes with its key, covers every host and has more than a month left —
 * otherwise a new one is signed and written over it, and `changes` says why. Keys are written
 * readable by their owner only.
 */
export async function loadOrCreatePki(options: PkiOptions): Promise<ServingPki> {
  const clock = options.clock ?? realClock;
  const hosts = [...new Set(options.hosts)];
  const dir = options.certDir;
  if (dir === undefined) {
    const ca = await CertificateAuthority.create({ clock });
    return { ca, serving: await ca.issueServingCertificate({ hosts }), changes: [] };
  }
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const changes: string[] = [];
  const path = (name: string) => join(dir, name);
  const write = async (name: string, text: string, mode: number) => {
    await writeFile(path(name), text, { mode });
  };
  const f = CERT_DIR_FILES;
  const caCert = await readIfPresent(path(f.caCertificate));
  const caKey = await readIfPresent(path(f.caKey));
  let ca: CertificateAuthority;
  if (caCert === undefined && caKey === undefined) {
    ca = await CertificateAuthority.create({ clock });
    await write(f.caKey, ca.privateKeyPem, 0o600);
    await write(f.caCertificate, ca.certificatePem, 0o644);
    changes.push(`wrote a new CA to ${path(f.caCertificate)} and ${path(f.caKey)}`);
  } else if (caCert === undefined || caKey === undefined) {
    const missing = caCert === undefined ? f.caCertificate : f.caKey;
    throw new Error(
      `${path(missing)} is missing while its pair is there: restore it, or remove both to make a new CA`,
    );
  } else {
    try {
      ca = await CertificateAuthority.load(caCert, caKey, { clock });
    } catch (err) {
      throw new Error(
        `the CA in ${path(f.caCertificate)} cannot be used: ${errorMessage(err)}; remove ${f.caCertificate} and ${f.caKey} to make a new one`,
        { cause: err },
      );
    }
  }
  const servingCert = await readIfPresent(path(f.servingCertificate));
  const servingKey = await readIfPresent(path(f.servingKey));
  const why =
    servingCert === undefined || servingKey === undefined
      ? undefined
      : servingProblem(
          ca,
          { certificatePem: servingCert, privateKeyPem: servingKey },
          hosts,
          clock,
        );
  if (servingCert !== undefined && servingKey !== undefined && why === undefined) {
    return { ca, serving: { certificatePem: servingCert, privateKeyPem: servingKey }, changes };
  }
  const serving = await ca.issueServingCertificate({ hosts });
  await write(f.servingKey, serving.privateKeyPem, 0o600);
  await write(f.servingCertificate, serving.certificatePem, 0o644);
  changes.push(
    why === undefined
      ? `wrote a serving certificate to ${path(f.servingCertificate)}`
      : `replaced ${path(f.servingCertificate)}: ${why}`,
  );
  return { ca, serving, changes };
}

/** Why `serving` cannot serve `hosts` under `ca`, if it cannot. */
function servingProblem(
  ca: CertificateAuthority,
  serving: KeyCertificate,
  hosts: readonly string[],
  clock: Clock,
): string | undefined {
  let cert: X509Certificate;
  try {
    cert = new X509Certificate(serving.certificatePem);
    if (!ca.signed(serving.certificatePem)) return "the CA did not sign it";
    if (!cert.checkPrivateKey(createPrivateKey(serving.privateKeyPem))) {
      return "its key does not go with it";
    }
  } catch (err) {
    return `it cannot be read (${errorMessage(err)})`;
  }
  const invalid = validityProblem(cert, clock.now() + RENEW_BEFORE_MS);
  if (invalid !== undefined) return `it ${invalid.replace("has expired", "expires")}`;
  const missing = uncoveredHosts(serving.certificatePem, hosts);
  if (missing.length > 0) return `it does not cover ${missing.join(", ")}`;
  return undefined;
}

/**
 * The names and addresses a server bound to `bindAddress` is reached by: localhost, 127.0.0.1
 * and ::1, the bind address itself — or, bound to every interface (0.0.0.0, ::), the machine's
 * host name and its interfaces' addresses — and `extra`.
 */
export function servingHosts(bindAddress: string, extra: readonly string[] = []): string[] {
  const hosts = ["localhost", "127.0.0.1", "::1"];
  if (bindAddress === "0.0.0.0" || bindAddress === "::" || bindAddress === "") {
    hosts.push(hostname());
    for (const addresses of Object.values(networkInterfaces())) {
      for (const a of addresses ?? []) hosts.push(a.address.replace(/%.*$/, ""));
    }
  } else {
    hosts.push(bindAddress.replace(/^\[|\]$/g, ""));
  }
  return [...new Set([...hosts, ...extra])];
}

async function readIfPresent(path: string): Promise<string | undefined> {
  try {
    return await readFile(path, "utf8");
  } catch (err) {
    if (errnoCode(err) === "ENOENT") return undefined;
    throw err;
  }
}
