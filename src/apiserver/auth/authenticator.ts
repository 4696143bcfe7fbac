import type { Socket } from "node:net";
import type { CertificateAuthenticator } from "./certificate-authentication.ts";
import type { ServiceAccountTokens } from "./service-account-tokens.ts";
import { ANONYMOUS_USER, TOKEN_USER, type UserInfo } from "./user.ts";

/** Options of {@link Authenticator}. */
export interface AuthenticatorOptions {
  /** The server's shared bearer token, if it has one; its user is {@link TOKEN_USER}. */
  readonly token?: string;
  /** The service account tokens the server issued. */
  readonly serviceAccountTokens: ServiceAccountTokens;
  /** Who TLS client certificates are, on a server that serves HTTPS. @default none */
  readonly certificates?: CertificateAuthenticator;
}

/** What a TokenReview says of a token (authentication.k8s.io/v1 `TokenReviewStatus`). */
export type TokenReviewResult =
  | { readonly authenticated: true; readonly user: UserInfo; readonly audiences: string[] }
  | { readonly authenticated: false; readonly error: string };

/** kube's answer for a bearer token no authenticator knows. */
const INVALID_BEARER_TOKEN = "invalid bearer token";

/**
 * Who a request is from. The server has no users of its own yet, so this is the one place that
 * says who they are, for the security work (TLS, token files, RBAC) to replace:
 *
 * - the server's shared token (`kontroller serve --token`) is {@link TOKEN_USER}, an
 *   administrator in `system:masters`;
 * - a service account token the server issued (`serviceaccounts/<name>/token`) is that service
 *   account, as kube-apiserver authenticates it;
 * - with no shared token, every other request is kube's anonymous user (`system:anonymous`),
 *   as kube-apiserver with `--anonymous-auth` answers a request without credentials. Unlike
 *   kube, a bearer token the server does not know is anonymous here too, not 401: clients that
 *   sent one to a server without a token have always been served.
 *
 * With a shared token, a request with neither (no credentials, or a token the server does not
 * know) is not authenticated: 401.
 *
 * Over HTTPS, a verified client certificate comes first, as kube's x509 authenticator precedes
 * its token authenticators: the request is the certificate's user (CN, groups O). A certificate
 * that does not verify (another CA, expired) is a 401 unless the request's token authenticates
 * it — never anonymous, as kube answers a credential that fails.
 */
export class Authenticator {
  readonly #token: string | undefined;
  readonly #tokens: ServiceAccountTokens;
  readonly #certificates: CertificateAuthenticator | undefined;

  constructor(options: AuthenticatorOptions) {
    this.#token = options.token;
    this.#tokens = options.serviceAccountTokens;
    this.#certificates = options.certificates;
  }

  /**
   * The user a request authenticates, by its connection's client certificate (`socket`, over
   * HTTPS) and its `Authorization` header; undefined for a 401.
   */
  async authenticateRequest(
    authorization: string | undefined,
    socket?: Socket,
  ): Promise<UserInfo | undefined> {
    const certificate = socket === undefined ? undefined : this.#certificates?.authenticate(socket);
    if (certificate?.kind === "authenticated") return certificate.user;
    const bearer = /^Bearer (\S+)$/i.exec(authorization?.trim() ?? "")?.[1];
    if (bearer !== undefined) {
      if (this.#token !== undefined && bearer === this.#token) return TOKEN_USER;
      const found = await this.#tokens.authenticate(bearer);
      if (found.kind === "authenticated") return found.user;
    }
    if (certificate?.kind === "rejected") return undefined;
    return this.#token === undefined ? ANONYMOUS_USER : undefined;
  }

  /**
   * A TokenReview of `token` for `audiences` (default: the server's), as kube answers one: the
   * shared token is its user for the server's own audiences; a service account token is checked
   * as {@link ServiceAccountTokens.authenticate} does; kube's "invalid bearer token" otherwise,
   * with the service account authenticator's reason after it where it had one.
   */
  async reviewToken(token: string, audiences?: readonly string[]): Promise<TokenReviewResult> {
    const wanted = audiences !== undefined && audiences.length > 0 ? audiences : undefined;
    if (this.#token !== undefined && token === this.#token) {
      const own = this.#tokens.audiences;
      const granted = wanted === undefined ? [...own] : own.filter((a) => wanted.includes(a));
      if (granted.length > 0) return { authenticated: true, user: TOKEN_USER, audiences: granted };
      return { authenticated: false, error: INVALID_BEARER_TOKEN };
    }
    const found = await this.#tokens.authenticate(token, wanted);
    switch (found.kind) {
      case "authenticated":
        return { authenticated: true, user: found.user, audiences: [...found.audiences] };
      case "rejected":
        return { authenticated: false, error: `[${INVALID_BEARER_TOKEN}, ${found.error}]` };
      case "unrecognized":
        return { authenticated: false, error: INVALID_BEARER_TOKEN };
    }
  }
}
