import { timingSafeEqual } from "node:crypto";
import { isIP, type Socket } from "node:net";
import type { CertificateAuthenticator } from "./certificate-authentication.ts";
import type { ServiceAccountTokens } from "./service-account-tokens.ts";
import {
  ANONYMOUS_USER,
  AUTHENTICATED_GROUP,
  TOKEN_USER,
  UNAUTHENTICATED_GROUP,
  type UserInfo,
} from "./user.ts";

/** Options of {@link Authenticator}. */
export interface AuthenticatorOptions {
  /** The server's shared bearer token, if it has one; its user is {@link TOKEN_USER}. */
  readonly token?: string;
  /**
   * The tokens of a static token file (`--token-auth-file`), by token as latin1 (see
   * `readTokenFile`). @default none
   */
  readonly staticTokens?: ReadonlyMap<string, UserInfo>;
  /** The service account tokens the server issued. */
  readonly serviceAccountTokens: ServiceAccountTokens;
  /** Who TLS client certificates are, on a server that serves HTTPS. @default none */
  readonly certificates?: CertificateAuthenticator;
  /**
   * A request without credentials is kube's anonymous user (`--anonymous-auth`); false: 401.
   * @default true without a shared `token`, false with one (the token is then required)
   */
  readonly anonymous?: boolean;
}

/** What a TokenReview says of a token (authentication.k8s.io/v1 `TokenReviewStatus`). */
export type TokenReviewResult =
  | { readonly authenticated: true; readonly user: UserInfo; readonly audiences: string[] }
  | { readonly authenticated: false; readonly error: string };

/** kube's answer for a bearer token no authenticator knows. */
const INVALID_BEARER_TOKEN = "invalid bearer token";

/** What the token authenticators made of a bearer token. */
type TokenResult =
  | { readonly kind: "authenticated"; readonly user: UserInfo; readonly audiences: string[] }
  | { readonly kind: "failed"; readonly error: string };

/**
 * Who a request is from, as kube-apiserver's authenticator chain decides it:
 *
 * - over HTTPS, a verified client certificate comes first (kube's x509 authenticator): the
 *   certificate's user (CN, groups O);
 * - then the `Authorization: Bearer <token>` header, read as kube reads it (the first word
 *   after "Bearer " and one space): the server's shared token (`kontroller serve --token`,
 *   {@link TOKEN_USER}), a token of the static token file, or a service account token the
 *   server issued;
 * - a credential that fails (a certificate of another CA, an unknown, malformed or expired
 *   token) with none that succeeds is a 401 — never anonymous, as kube's chain fails on an
 *   error before its anonymous authenticator;
 * - a request without credentials (no `Authorization`, or one that is not a bearer token) is
 *   kube's anonymous user when `anonymous` is on, a 401 otherwise.
 *
 * Every authenticated user but the anonymous one is in `system:authenticated` (kube's
 * authenticated group adder), unless it is in `system:unauthenticated` already.
 *
 * Over plain HTTP (loopback only, see the server's `tls` option), a bearer token from a peer
 * that is not loopback is refused: a token that crossed a network in the clear authenticates
 * nobody.
 */
export class Authenticator {
  readonly #token: Buffer | undefined;
  readonly #static: ReadonlyMap<string, UserInfo>;
  readonly #tokens: ServiceAccountTokens;
  readonly #certificates: CertificateAuthenticator | undefined;
  readonly #anonymous: boolean;

  constructor(options: AuthenticatorOptions) {
    // Compared with the header's bytes: a client sends a token's characters as UTF-8.
    this.#token = options.token === undefined ? undefined : Buffer.from(options.token, "utf8");
    this.#static = options.staticTokens ?? new Map();
    this.#tokens = options.serviceAccountTokens;
    this.#certificates = options.certificates;
    this.#anonymous = options.anonymous ?? options.token === undefined;
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
    if (certificate?.kind === "authenticated") return withAuthenticatedGroup(certificate.user);
    let failed = certificate?.kind === "rejected";
    const bearer = bearerToken(authorization);
    if (bearer !== undefined) {
      if (socket !== undefined && !isEncrypted(socket) && !isLoopback(socket.remoteAddress)) {
        return undefined;
      }
      const found = await this.#authenticateToken(bearer, undefined);
      if (found.kind === "authenticated") return found.user;
      failed = true;
    }
    if (failed || !this.#anonymous) return undefined;
    return ANONYMOUS_USER;
  }

  /**
   * A TokenReview of `token` for `audiences` (default: the server's), as kube answers one: the
   * token is authenticated as a request with `Authorization: Bearer <token>` would be (so "a b"
   * is the token "a", and with anonymous requests allowed, a token that is no bearer token is
   * the anonymous user); kube's "invalid bearer token" otherwise, with the service account
   * authenticator's reason after it where it had one.
   */
  async reviewToken(token: string, audiences?: readonly string[]): Promise<TokenReviewResult> {
    const wanted = audiences !== undefined && audiences.length > 0 ? audiences : undefined;
    // The header a request would carry, as Node reads one: its UTF-8 bytes, one character each.
    const bearer = bearerToken(`Bearer ${Buffer.from(token, "utf8").toString("latin1")}`);
    if (bearer === undefined) {
      if (!this.#anonymous) return { authenticated: false, error: "" };
      const own = this.#tokens.audiences;
      return { authenticated: true, user: ANONYMOUS_USER, audiences: [...(wanted ?? own)] };
    }
    const found = await this.#authenticateToken(bearer, wanted);
    if (found.kind === "failed") return { authenticated: false, error: found.error };
    return { authenticated: true, user: found.user, audiences: found.audiences };
  }

  /** The token authenticators in kube's order: shared token, token file, service accounts. */
  async #authenticateToken(
    token: string,
    wanted: readonly string[] | undefined,
  ): Promise<TokenResult> {
    const fixed = this.#sharedOrStatic(token);
    if (fixed !== undefined) {
      // Audience-agnostic, as kube wraps its token file: the server's own audiences only.
      const own = this.#tokens.audiences;
      const granted = wanted === undefined ? [...own] : own.filter((a) => wanted.includes(a));
      if (granted.length > 0) {
        return { kind: "authenticated", user: withAuthenticatedGroup(fixed), audiences: granted };
      }
      return { kind: "failed", error: INVALID_BEARER_TOKEN };
    }
    const found = await this.#tokens.authenticate(token, wanted);
    switch (found.kind) {
      case "authenticated":
        return {
          kind: "authenticated",
          user: withAuthenticatedGroup(found.user),
          audiences: [...found.audiences],
        };
      case "rejected":
        return { kind: "failed", error: `[${INVALID_BEARER_TOKEN}, ${found.error}]` };
      case "unrecognized":
        return { kind: "failed", error: INVALID_BEARER_TOKEN };
    }
  }

  #sharedOrStatic(token: string): UserInfo | undefined {
    const shared = this.#token;
    if (shared !== undefined) {
      const given = Buffer.from(token, "latin1");
      if (given.length === shared.length && timingSafeEqual(given, shared)) return TOKEN_USER;
    }
    return this.#static.get(token);
  }
}

/**
 * The bearer token of an `Authorization` header, as kube's bearer token authenticator reads it:
 * trimmed, split on single spaces into at most three parts, "bearer" in any case first, the
 * token second (what follows it is ignored); undefined when there is no token ("Basic …",
 * "Bearer", "Bearer  x" with two spaces), which is not a failed credential but none at all.
 */
export function bearerToken(authorization: string | undefined): string | undefined {
  const auth = goTrimSpace(authorization ?? "");
  if (auth === "") return undefined;
  const space = auth.indexOf(" ");
  if (space < 0 || auth.slice(0, space).toLowerCase() !== "bearer") return undefined;
  const rest = auth.slice(space + 1);
  const next = rest.indexOf(" ");
  const token = next < 0 ? rest : rest.slice(0, next);
  return token === "" ? undefined : token;
}

/**
 * White space in UTF-8, as bytes read one character each (how Node reads a header): what Go's
 * `unicode.IsSpace` is true of — ASCII's, U+0085, U+00A0, U+1680, U+2000–U+200A, U+2028,
 * U+2029, U+202F, U+205F and U+3000.
 */
const UTF8_SPACE =
  "[\\t\\n\\v\\f\\r ]|\\xc2[\\x85\\xa0]|\\xe1\\x9a\\x80|\\xe2\\x80[\\x80-\\x8a\\xa8\\xa9\\xaf]|\\xe2\\x81\\x9f|\\xe3\\x80\\x80";
const TRIM_SPACE = new RegExp(`^(?:${UTF8_SPACE})+|(?:${UTF8_SPACE})+$`, "g");

/** Go's `strings.TrimSpace` of a header read as latin1. */
function goTrimSpace(header: string): string {
  return header.replace(TRIM_SPACE, "");
}

/** The user with `system:authenticated` added, as kube's authenticated group adder does. */
export function withAuthenticatedGroup(user: UserInfo): UserInfo {
  if (user.username === ANONYMOUS_USER.username) return user;
  if (user.groups.includes(AUTHENTICATED_GROUP) || user.groups.includes(UNAUTHENTICATED_GROUP)) {
    return user;
  }
  return { ...user, groups: [...user.groups, AUTHENTICATED_GROUP] };
}

function isEncrypted(socket: Socket): boolean {
  return (socket as Socket & { encrypted?: boolean }).encrypted === true;
}

/** Whether a peer address is loopback (127.0.0.0/8, ::1, or 127.x mapped into IPv6). */
export function isLoopback(address: string | undefined): boolean {
  if (address === undefined) return false;
  if (address === "::1") return true;
  const v4 = address.startsWith("::ffff:") ? address.slice(7) : address;
  return isIP(v4) === 4 && v4.startsWith("127.");
}
