import type { Clock } from "../../core/index.ts";
import { Authenticator } from "./authenticator.ts";
import { type Authorization, alwaysAllowAuthorization } from "./authorization.ts";
import type { Authorizer } from "./authorizer.ts";
import type { CertificateAuthenticator } from "./certificate-authentication.ts";
import { Impersonation } from "./impersonation.ts";
import { type ObjectLookup, ServiceAccountTokens } from "./service-account-tokens.ts";
import type { UserInfo } from "./user.ts";

/** Who requests are from and what they may do: the server's authentication and authorization. */
export interface RequestAuth {
  readonly authenticator: Authenticator;
  readonly authorizer: Authorizer;
  /** The checks on writes of RBAC objects, where the authorization mode has them. */
  readonly escalation: Authorization["escalation"];
  /** The service account tokens the server issues and checks. */
  readonly tokens: ServiceAccountTokens;
  /** Who a request acts as, by its `Impersonate-*` headers, checked with `authorizer`. */
  readonly impersonation: Impersonation;
}

/** Options of {@link requestAuth}. */
export interface RequestAuthOptions {
  /** The server's shared bearer token, if any. */
  readonly token?: string;
  /** Reads the objects service account tokens name. */
  readonly lookup: ObjectLookup;
  /** Who TLS client certificates are, on a server that serves HTTPS. @default none */
  readonly certificates?: CertificateAuthenticator;
  /** The users of a static token file, by token (see `readTokenFile`). @default none */
  readonly staticTokens?: ReadonlyMap<string, UserInfo>;
  /**
   * Requests without credentials are the anonymous user; false: 401.
   * @default true without a shared `token`, false with one
   */
  readonly anonymous?: boolean;
  /** What decides requests. @default every request allowed (AlwaysAllow) */
  readonly authorization?: Authorization;
  readonly clock: Clock;
}

/**
 * The server's authentication and authorization, all in one place for the security work to
 * replace: the users of {@link Authenticator}, and the authorizer of `options.authorization`.
 */
export function requestAuth(options: RequestAuthOptions): RequestAuth {
  const tokens = new ServiceAccountTokens({ lookup: options.lookup, clock: options.clock });
  const { authorizer, escalation } = options.authorization ?? alwaysAllowAuthorization;
  return {
    authenticator: new Authenticator({
      ...(options.token === undefined ? {} : { token: options.token }),
      ...(options.certificates === undefined ? {} : { certificates: options.certificates }),
      ...(options.staticTokens === undefined ? {} : { staticTokens: options.staticTokens }),
      ...(options.anonymous === undefined ? {} : { anonymous: options.anonymous }),
      serviceAccountTokens: tokens,
    }),
    authorizer,
    escalation,
    tokens,
    impersonation: new Impersonation(authorizer),
  };
}
