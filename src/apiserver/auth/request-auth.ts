import type { Clock } from "../../core/index.ts";
import { Authenticator } from "./authenticator.ts";
import { type Authorizer, alwaysAllow } from "./authorizer.ts";
import type { CertificateAuthenticator } from "./certificate-authentication.ts";
import { type ObjectLookup, ServiceAccountTokens } from "./service-account-tokens.ts";

/** Who requests are from and what they may do: the server's authentication and authorization. */
export interface RequestAuth {
  readonly authenticator: Authenticator;
  readonly authorizer: Authorizer;
  /** The service account tokens the server issues and checks. */
  readonly tokens: ServiceAccountTokens;
}

/** Options of {@link requestAuth}. */
export interface RequestAuthOptions {
  /** The server's shared bearer token, if any. */
  readonly token?: string;
  /** Reads the objects service account tokens name. */
  readonly lookup: ObjectLookup;
  /** Who TLS client certificates are, on a server that serves HTTPS. @default none */
  readonly certificates?: CertificateAuthenticator;
  readonly clock: Clock;
}

/**
 * The server's authentication and authorization, all in one place for the security work to
 * replace: the users of {@link Authenticator}, every request allowed ({@link alwaysAllow}).
 */
export function requestAuth(options: RequestAuthOptions): RequestAuth {
  const tokens = new ServiceAccountTokens({ lookup: options.lookup, clock: options.clock });
  return {
    authenticator: new Authenticator({
      ...(options.token === undefined ? {} : { token: options.token }),
      ...(options.certificates === undefined ? {} : { certificates: options.certificates }),
      serviceAccountTokens: tokens,
    }),
    authorizer: alwaysAllow,
    tokens,
  };
}
