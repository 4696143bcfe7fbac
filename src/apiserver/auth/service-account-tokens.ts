import { createHash, generateKeyPair, type KeyObject, randomUUID, sign, verify } from "node:crypto";
import { type Clock, errorMessage, type KubeObject, realClock } from "../../core/index.ts";
import {
  AUTHENTICATED_GROUP,
  CREDENTIAL_ID_EXTRA,
  NODE_NAME_EXTRA,
  NODE_UID_EXTRA,
  POD_NAME_EXTRA,
  POD_UID_EXTRA,
  serviceAccountGroups,
  serviceAccountUsername,
  type UserInfo,
} from "./user.ts";

/** kube's default `--service-account-issuer` in kind, k3s and envtest. */
export const DEFAULT_ISSUER = "https://kubernetes.default.svc.cluster.local";

/** How far `exp`, `nbf` and `iat` may be off (go-jose's default leeway, which kube uses). */
const LEEWAY_SECONDS = 60;

/** A name and uid, as a token's claims refer to an object. */
export interface ObjectRef {
  readonly name: string;
  /** "" when unknown (a pod's node that does not exist): left out of the claims. */
  readonly uid: string;
}

/** What a token is for: a service account and, optionally, the object it is bound to. */
export interface TokenSubject {
  readonly namespace: string;
  readonly serviceAccount: ObjectRef;
  /** A pod (with the node it runs on, if any), a secret, or a node. @default none */
  readonly pod?: ObjectRef;
  readonly secret?: ObjectRef;
  readonly node?: ObjectRef;
}

/** A token issued by {@link ServiceAccountTokens.issue}. */
export interface IssuedToken {
  readonly token: string;
  /** When it was issued (ms since the epoch). */
  readonly issuedAtMs: number;
  /** When it expires (ms since the epoch). */
  readonly expiresAtMs: number;
}

/** Reads an object that a token's claims name; rejects (with a 404 ApiError) if there is none. */
export type ObjectLookup = (
  resource: "serviceaccounts" | "pods" | "secrets" | "nodes",
  namespace: string,
  name: string,
) => Promise<KubeObject>;

/** What {@link ServiceAccountTokens.authenticate} made of a token. */
export type TokenAuthentication =
  /** Not a token of this issuer: another authenticator may know it. */
  | { readonly kind: "unrecognized" }
  /** A token of this issuer that does not authenticate anyone, and why. */
  | { readonly kind: "rejected"; readonly error: string }
  | {
      readonly kind: "authenticated";
      readonly user: UserInfo;
      /** The audiences asked for that the token is for. */
      readonly audiences: readonly string[];
    };

/** Options of {@link ServiceAccountTokens}. */
export interface ServiceAccountTokensOptions {
  /** Reads the service accounts, pods, secrets and nodes tokens name. */
  readonly lookup: ObjectLookup;
  /** The `iss` of tokens (kube's `--service-account-issuer`). @default DEFAULT_ISSUER */
  readonly issuer?: string;
  /**
   * The audiences of a token whose request names none, and those a token must be for when a
   * review names none (kube's `--api-audiences`). @default [issuer]
   */
  readonly audiences?: readonly string[];
  /** @default realClock */
  readonly clock?: Clock;
}

interface SigningKey {
  readonly privateKey: KeyObject;
  readonly publicKey: KeyObject;
  /** base64url of the SHA-256 of the public key's DER (kube's key id). */
  readonly kid: string;
}

/** The claims of a service account token, as kube writes them (keys in its order). */
interface Claims {
  aud?: string[];
  exp?: number;
  iat?: number;
  iss?: string;
  jti?: string;
  "kubernetes.io"?: {
    namespace?: string;
    node?: ObjectRef;
    pod?: ObjectRef;
    secret?: ObjectRef;
    serviceaccount?: ObjectRef;
  };
  nbf?: number;
  sub?: string;
}

/**
 * Service account tokens, as kube-apiserver issues and checks them: JWTs signed RS256 with a key
 * of the server's own, carrying kube's claims (`iss`, `sub` =
 * `system:serviceaccount:<ns>:<name>`, `aud`, `exp`, `iat`, `nbf`, `jti`, and `kubernetes.io`
 * with the namespace and the service account's, and any bound object's, name and uid).
 *
 * The key is made when first needed (RSA takes tens of milliseconds to make; a server that
 * never issues a token never pays for it) and lives as long as this object: the tokens of a
 * restarted server no longer verify, as after a key rotation. Nothing is stored.
 */
export class ServiceAccountTokens {
  readonly #lookup: ObjectLookup;
  readonly #clock: Clock;
  readonly issuer: string;
  readonly audiences: readonly string[];
  #key: Promise<SigningKey> | undefined;

  constructor(options: ServiceAccountTokensOptions) {
    this.#lookup = options.lookup;
    this.#clock = options.clock ?? realClock;
    this.issuer = options.issuer ?? DEFAULT_ISSUER;
    this.audiences = options.audiences ?? [this.issuer];
  }

  /** Issues a token for `subject`, for `audiences`, that expires in `expirationSeconds`. */
  async issue(
    subject: TokenSubject,
    audiences: readonly string[],
    expirationSeconds: number,
  ): Promise<IssuedToken> {
    const key = await this.#signingKey();
    const issuedAtMs = this.#clock.now();
    const iat = Math.floor(issuedAtMs / 1000);
    const claims: Claims = {
      aud: [...audiences],
      exp: iat + expirationSeconds,
      iat,
      iss: this.issuer,
      jti: randomUUID(),
      "kubernetes.io": {
        namespace: subject.namespace,
        ...(subject.node ? { node: ref(subject.node) } : {}),
        ...(subject.pod ? { pod: ref(subject.pod) } : {}),
        ...(subject.secret ? { secret: ref(subject.secret) } : {}),
        serviceaccount: ref(subject.serviceAccount),
      },
      nbf: iat,
      sub: serviceAccountUsername(subject.namespace, subject.serviceAccount.name),
    };
    const signed = `${base64url(JSON.stringify({ alg: "RS256", kid: key.kid }))}.${base64url(
      JSON.stringify(claims),
    )}`;
    const signature = sign("sha256", Buffer.from(signed), key.privateKey);
    return {
      token: `${signed}.${signature.toString("base64url")}`,
      issuedAtMs,
      expiresAtMs: issuedAtMs + expirationSeconds * 1000,
    };
  }

  /**
   * Who `token` authenticates, for `audiences` (default: the server's), as kube's service
   * account authenticator decides: a JWT of this issuer, signed with this server's key, for one
   * of the audiences, within its validity (a minute's leeway), whose service account — and pod,
   * secret or node, if it is bound to one — still exists with the uid in the claims and is not
   * being deleted.
   */
  async authenticate(token: string, audiences = this.audiences): Promise<TokenAuthentication> {
    const parts = token.split(".");
    if (token.trimStart().startsWith("{") || parts.length !== 3) return { kind: "unrecognized" };
    const claims = decodeJson(parts[1]!) as Claims | undefined;
    if (claims?.iss !== this.issuer) return { kind: "unrecognized" };
    if (this.#key === undefined) {
      return { kind: "rejected", error: "invalid signature, no keys found" };
    }
    const key = await this.#key;
    const header = decodeJson(parts[0]!) as { alg?: string; kid?: string } | undefined;
    if (header?.kid !== undefined && header.kid !== key.kid) {
      return { kind: "rejected", error: "invalid signature, no keys found" };
    }
    const valid =
      header?.alg === "RS256" &&
      verify(
        "sha256",
        Buffer.from(`${parts[0]}.${parts[1]}`),
        key.publicKey,
        Buffer.from(parts[2]!, "base64url"),
      );
    if (!valid) return { kind: "rejected", error: "the token's signature is not this server's" };
    const tokenAudiences = claims.aud ?? [];
    const granted = tokenAudiences.filter((a) => audiences.includes(a));
    if (granted.length === 0) {
      return {
        kind: "rejected",
        error: `token audiences ${goQuoted(tokenAudiences)} is invalid for the target audiences ${goQuoted(audiences)}`,
      };
    }
    const timeError = checkTimes(claims, Math.floor(this.#clock.now() / 1000));
    if (timeError !== undefined) return { kind: "rejected", error: timeError };
    try {
      return { kind: "authenticated", user: await this.#user(claims), audiences: granted };
    } catch (err) {
      return { kind: "rejected", error: errorMessage(err) };
    }
  }

  /** The user of valid claims, once the objects they name are checked (kube's validator). */
  async #user(claims: Claims): Promise<UserInfo> {
    const k8s = claims["kubernetes.io"] ?? {};
    const namespace = k8s.namespace ?? "";
    const sa = k8s.serviceaccount ?? { name: "", uid: "" };
    const cutoffMs = this.#clock.now() - LEEWAY_SECONDS * 1000;
    const account = await this.#lookup("serviceaccounts", namespace, sa.name);
    if ((account.metadata?.uid ?? "") !== (sa.uid ?? "")) {
      throw new Error(
        `service account UID (${account.metadata?.uid ?? ""}) does not match claim (${sa.uid})`,
      );
    }
    if (deletedBefore(account, cutoffMs)) {
      throw new Error(`service account ${namespace}/${sa.name} has been deleted`);
    }
    const extra: Record<string, string[]> = {};
    for (const [resource, bound] of [
      ["secrets", k8s.secret],
      ["pods", k8s.pod],
      ["nodes", k8s.pod === undefined ? k8s.node : undefined],
    ] as const) {
      if (bound === undefined) continue;
      let object: KubeObject;
      try {
        object = await this.#lookup(resource, resource === "nodes" ? "" : namespace, bound.name);
      } catch {
        throw new Error("service account token has been invalidated");
      }
      if ((object.metadata?.uid ?? "") !== (bound.uid ?? "")) {
        const what = { secrets: "secret", pods: "pod", nodes: "node" }[resource];
        throw new Error(
          `${what} UID (${object.metadata?.uid ?? ""}) does not match service account ${what} ref claim (${bound.uid})`,
        );
      }
      if (deletedBefore(object, cutoffMs)) {
        throw new Error("service account token has been invalidated");
      }
    }
    if (k8s.pod !== undefined) {
      extra[POD_NAME_EXTRA] = [k8s.pod.name];
      extra[POD_UID_EXTRA] = [k8s.pod.uid];
    }
    if (claims.jti) extra[CREDENTIAL_ID_EXTRA] = [`JTI=${claims.jti}`];
    if (k8s.node !== undefined) {
      extra[NODE_NAME_EXTRA] = [k8s.node.name];
      if (k8s.node.uid) extra[NODE_UID_EXTRA] = [k8s.node.uid];
    }
    return {
      username: serviceAccountUsername(namespace, sa.name),
      uid: sa.uid,
      groups: [...serviceAccountGroups(namespace), AUTHENTICATED_GROUP],
      ...(Object.keys(extra).length > 0 ? { extra } : {}),
    };
  }

  #signingKey(): Promise<SigningKey> {
    this.#key ??= new Promise<SigningKey>((resolve, reject) => {
      generateKeyPair("rsa", { modulusLength: 2048 }, (err, publicKey, privateKey) => {
        if (err) {
          reject(err);
          return;
        }
        const der = publicKey.export({ type: "spki", format: "der" });
        const kid = createHash("sha256").update(der).digest("base64url");
        resolve({ privateKey, publicKey, kid });
      });
    });
    return this.#key;
  }
}

/** A reference as kube writes it in claims: an empty uid left out. */
function ref(r: ObjectRef): ObjectRef {
  return r.uid === "" ? ({ name: r.name } as ObjectRef) : { name: r.name, uid: r.uid };
}

function base64url(text: string): string {
  return Buffer.from(text).toString("base64url");
}

function decodeJson(part: string): unknown {
  try {
    const value: unknown = JSON.parse(Buffer.from(part, "base64url").toString("utf8"));
    return typeof value === "object" && value !== null ? value : undefined;
  } catch {
    return undefined;
  }
}

/** kube's checks of `exp`, `nbf` and `iat` against `now` (seconds), with the leeway. */
function checkTimes(claims: Claims, now: number): string | undefined {
  if (claims.exp !== undefined && now - LEEWAY_SECONDS > claims.exp) {
    return "service account token has expired";
  }
  if (claims.nbf !== undefined && now + LEEWAY_SECONDS < claims.nbf) {
    return "service account token is not valid yet";
  }
  if (claims.iat !== undefined && now + LEEWAY_SECONDS < claims.iat) {
    return "service account token is issued in the future";
  }
  return undefined;
}

function deletedBefore(object: KubeObject, cutoffMs: number): boolean {
  const at = object.metadata?.deletionTimestamp;
  return at !== undefined && Date.parse(at) < cutoffMs;
}

/** A list of strings as Go's `%q` prints one: `["a" "b"]`. */
function goQuoted(values: readonly string[]): string {
  return `[${values.map((v) => JSON.stringify(v)).join(" ")}]`;
}
