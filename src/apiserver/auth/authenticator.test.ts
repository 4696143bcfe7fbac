import assert from "node:assert/strict";
import { Socket } from "node:net";
import { describe, it } from "node:test";
import { errors } from "../../core/index.ts";
import { FakeClock } from "../../testing/index.ts";
import { Authenticator } from "./authenticator.ts";
import type {
  CertificateAuthentication,
  CertificateAuthenticator,
} from "./certificate-authentication.ts";
import { ServiceAccountTokens } from "./service-account-tokens.ts";
import { ANONYMOUS_USER, TOKEN_USER } from "./user.ts";

const tokens = new ServiceAccountTokens({
  lookup: async (resource, _namespace, name) => {
    throw errors.notFound({ group: "", resource }, name);
  },
  clock: new FakeClock(),
});

/** A certificate authenticator that answers `result` for every connection. */
function certificates(result: CertificateAuthentication): CertificateAuthenticator {
  return { authenticate: () => result };
}

const JANE = { username: "jane", groups: ["dev", "system:authenticated"] };
const socket = new Socket();

describe("Authenticator with client certificates", () => {
  it("takes a verified certificate's user first, before the request's token", async () => {
    const auth = new Authenticator({
      token: "t0k",
      serviceAccountTokens: tokens,
      certificates: certificates({ kind: "authenticated", user: JANE }),
    });
    assert.equal(await auth.authenticateRequest("Bearer t0k", socket), JANE);
    assert.equal(await auth.authenticateRequest(undefined, socket), JANE);
  });

  it("answers 401 for a certificate that does not verify, unless the token authenticates", async () => {
    const auth = new Authenticator({
      serviceAccountTokens: tokens,
      certificates: certificates({ kind: "rejected", error: "x509: expired" }),
    });
    // Without a shared token the server is open to anonymous requests — but not to a failed
    // credential, as kube answers one.
    assert.equal(await auth.authenticateRequest(undefined, socket), undefined);
    const locked = new Authenticator({
      token: "t0k",
      serviceAccountTokens: tokens,
      certificates: certificates({ kind: "rejected", error: "x509: expired" }),
    });
    assert.equal(await locked.authenticateRequest("Bearer t0k", socket), TOKEN_USER);
  });

  it("leaves a connection without a certificate to the token and anonymous rules", async () => {
    const auth = new Authenticator({
      serviceAccountTokens: tokens,
      certificates: certificates({ kind: "none" }),
    });
    assert.equal(await auth.authenticateRequest(undefined, socket), ANONYMOUS_USER);
    assert.equal(await auth.authenticateRequest(undefined), ANONYMOUS_USER);
  });
});
