import type { Socket } from "node:net";
import type { UserInfo } from "./user.ts";

/** What a client-certificate authenticator made of a request's connection. */
export type CertificateAuthentication =
  /** No client certificate (or one naming no user): other authenticators decide. */
  | { readonly kind: "none" }
  /** A certificate that does not verify, and why (for the server's log, not the client). */
  | { readonly kind: "rejected"; readonly error: string }
  | { readonly kind: "authenticated"; readonly user: UserInfo };

/**
 * Who a connection's verified TLS client certificate is (kube's x509 request authenticator);
 * the API server's TLS layer provides it.
 */
export interface CertificateAuthenticator {
  authenticate(socket: Socket): CertificateAuthentication;
}
