import type { ServerOptions } from "node:https";
import { type Clock, realClock } from "../../core/index.ts";
import { MASTERS_GROUP, TOKEN_USER } from "../auth/user.ts";
import { loadOrCreatePki, type ServingPki, servingHosts } from "./cert-dir.ts";
import type { CertificateAuthority, KeyCertificate } from "./certificate-authority.ts";
import { ClientCertificateAuthenticator } from "./client-certificates.ts";
import { splitCertificates } from "./x509.ts";

/** The `tls` option of the API server: how it serves HTTPS. */
export interface ServingTlsOptions {
  /**
   * Where the CA and serving certificate are kept across starts (kube's `--cert-dir`, with
   * kubeadm's file names: ca.crt, ca.key, apiserver.crt, apiserver.key). Without one, both are
   * made anew at each start, in memory.
   * @default none
   */
  readonly certDir?: string;
  /**
   * Host names and addresses the serving certificate covers besides localhost, 127.0.0.1, ::1
   * and the bind address (or, bound to every interface, the machine's name and addresses).
   * @default none
   */
  readonly hosts?: readonly string[];
  /**
   * More CAs whose client certificates authenticate their users (PEM; kube's
   * `--client-ca-file`). The server's own CA always does.
   * @default none
   */
  readonly clientCa?: string;
}

/** The server's TLS, ready to serve: its PKI, the HTTPS options, who client certificates are. */
export interface ServingTls {
  readonly pki: ServingPki;
  /** node:https server options: the serving certificate; client certificates asked for, not required. */
  readonly serverOptions: ServerOptions;
  readonly authenticator: ClientCertificateAuthenticator;
}

/**
 * The TLS of a server bound to `bindAddress`: its CA and serving certificate (see
 * {@link loadOrCreatePki}), and client certificates asked for in the handshake — verified
 * against the server's CA and `clientCa`, not required (a request without one may carry a
 * token, or be anonymous), as kube-apiserver asks for them.
 *
 * TLS peers check validity on the wall clock, so certificates are made and checked on `clock`,
 * the real one by default, whatever clock the server stamps objects with.
 */
export async function servingTls(
  options: ServingTlsOptions & { readonly bindAddress: string; readonly clock?: Clock },
): Promise<ServingTls> {
  const clock = options.clock ?? realClock;
  const pki = await loadOrCreatePki({
    ...(options.certDir === undefined ? {} : { certDir: options.certDir }),
    hosts: servingHosts(options.bindAddress, options.hosts),
    clock,
  });
  const extra = options.clientCa ?? "";
  if (options.clientCa !== undefined && splitCertificates(extra).length === 0) {
    throw new Error("tls.clientCa holds no PEM certificate");
  }
  const clientCa = `${pki.ca.certificatePem}${extra}`;
  return {
    pki,
    serverOptions: {
      cert: pki.serving.certificatePem,
      key: pki.serving.privateKeyPem,
      ca: splitCertificates(clientCa),
      requestCert: true,
      rejectUnauthorized: false,
    },
    authenticator: new ClientCertificateAuthenticator({ clientCa, clock }),
  };
}

/**
 * A client certificate for the server's administrator: the user of the shared token (`admin`),
 * in `system:masters` — the group kube-apiserver allows everything — as kubeadm's admin
 * kubeconfig is.
 */
export function issueAdminCertificate(ca: CertificateAuthority): Promise<KeyCertificate> {
  return ca.issueClientCertificate({ user: TOKEN_USER.username, groups: [MASTERS_GROUP] });
}
