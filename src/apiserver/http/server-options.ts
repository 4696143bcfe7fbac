import { isIP } from "node:net";
import { type Clock, errorMessage, InvalidOptionError } from "../../core/index.ts";
import { validatePolicy } from "../audit/policy-file.ts";
import type { AuditSink } from "../audit/sinks.ts";
import type { AuditPolicy } from "../audit/types.ts";
import { AUTHORIZATION_MODES, type AuthorizationMode } from "../auth/authorization.ts";
import { parseIpv4Cidr, parsePortRange } from "../registry/service-allocation.ts";
import type { Storage } from "../storage/storage.ts";
import type { ServingTlsOptions } from "../tls/serving.ts";
import type { WatchCacheOptions } from "../watchcache/watch-cache.ts";

/** Options of `ApiServer`. */
export interface ApiServerOptions {
  /** Address to bind. @default "127.0.0.1" */
  host?: string;
  /** Port to bind; 0 picks a free one. @default 0 */
  port?: number;
  /**
   * When set, every request needs `Authorization: Bearer <token>` (or a service account token
   * the server issued; 401 otherwise), and the token's user is an administrator. When not set,
   * requests are kube's anonymous user (see {@link anonymousAuth}).
   */
  token?: string;
  /**
   * A static token file in kube-apiserver's format (`--token-auth-file`): CSV records
   * `token,user,uid[,"group1,group2"]`; a request with `Authorization: Bearer <token>` is that
   * user, in its groups and `system:authenticated`. Read by `listen()`, which rejects with kube's
   * words (a `TokenFileError`) a file kube-apiserver would not start with.
   * @default none
   */
  tokenAuthFile?: string;
  /**
   * A request without credentials is kube's anonymous user (`system:anonymous`, group
   * `system:unauthenticated`), as kube-apiserver's `--anonymous-auth` makes it; false: 401
   * Unauthorized. A failed credential (an unknown or expired token, a client certificate of
   * another CA) is a 401 either way.
   * @default true without `token`, false with one
   */
  anonymousAuth?: boolean;
  /**
   * Serve HTTPS: a CA and a serving certificate for the server's names and addresses, made at
   * `listen()` or kept in `certDir`; client certificates the CA signed authenticate their users
   * (CN, groups O); `certificates` gives the CA, to trust and to mint client certificates with.
   * False: plain HTTP, which only a loopback `host` may serve.
   * @default false
   */
  tls?: ServingTlsOptions | false;
  /**
   * How requests are authorized (kube-apiserver's `--authorization-mode`): `AlwaysAllow` allows
   * every request; `RBAC` decides by the Roles, ClusterRoles and bindings the server stores, as
   * kube-apiserver does with `--authorization-mode=RBAC` (members of `system:masters` may do
   * anything), and refuses the rest with kube's 403. Either way the server writes kube's
   * bootstrap ClusterRoles and ClusterRoleBindings at start.
   * @default "AlwaysAllow"
   */
  authorization?: AuthorizationMode;
  /**
   * Record kube's audit events (audit.k8s.io/v1) of the requests `policy` selects, into `sink`
   * (a `FileAuditSink` writes kube-apiserver's `--audit-log-path` format; a `MemoryAuditSink`
   * keeps them for a test). The server starts the sink in `listen()` and closes it in `close()`.
   * @default no audit
   */
  audit?: AuditOptions;
  /** Where objects live. @default a new MemoryStorage (closed with the server) */
  storage?: Storage;
  /** @default realClock */
  clock?: Clock;
  /** Default watches last 1–2× this many seconds (kube's --min-request-timeout). @default 1800 */
  minRequestTimeoutSeconds?: number;
  /** How often storage history is compacted (kube: 5 min). 0 disables it. @default 300000 */
  compactionIntervalMs?: number;
  /**
   * The IPv4 range Services' cluster IPs come from (kube's --service-cluster-ip-range).
   * @default "10.0.0.0/24", as kube-apiserver's
   */
  serviceClusterIpRange?: string;
  /**
   * The range Services' node ports come from (kube's --service-node-port-range).
   * @default "30000-32767"
   */
  serviceNodePortRange?: string;
  /** Watch cache tuning, for every resource. */
  watchCache?: Partial<
    Pick<
      WatchCacheOptions,
      | "historyMinCapacity"
      | "historyMaxCapacity"
      | "eventFreshMs"
      | "watcherBufferSize"
      | "freshnessTimeoutMs"
      | "bookmarkIntervalMs"
    >
  >;
}

/**
 * The `tls` option, checked: undefined for plain HTTP, which a server bound to anything but
 * loopback refuses (a bearer token would cross the network in the clear).
 */
export function tlsOption(
  owner: string,
  tls: ApiServerOptions["tls"],
  host: string,
): ServingTlsOptions | undefined {
  if (tls !== undefined && tls !== false && (typeof tls !== "object" || tls === null)) {
    throw new InvalidOptionError(owner, "tls", tls, "must be false or an object of TLS options");
  }
  if (tls !== undefined && tls !== false) return tls;
  const bare = host.replace(/^\[|\]$/g, "");
  const loopback =
    bare === "localhost" || bare === "::1" || (isIP(bare) === 4 && bare.startsWith("127."));
  if (!loopback) {
    throw new InvalidOptionError(
      owner,
      "host",
      host,
      "serves plain HTTP only on loopback (127.0.0.1, ::1, localhost): give tls to serve HTTPS on it",
    );
  }
  return undefined;
}

/** The Service ranges of `options`, checked (an InvalidOptionError says what is wrong). */
export function serviceRanges(
  owner: string,
  options: ApiServerOptions,
): { serviceClusterIpRange?: string; serviceNodePortRange?: string } {
  const out: { serviceClusterIpRange?: string; serviceNodePortRange?: string } = {};
  const checks = [
    ["serviceClusterIpRange", parseIpv4Cidr],
    ["serviceNodePortRange", parsePortRange],
  ] as const;
  for (const [name, parse] of checks) {
    const value = options[name];
    if (value === undefined) continue;
    try {
      parse(value);
    } catch (err) {
      throw new InvalidOptionError(owner, name, value, errorMessage(err));
    }
    out[name] = value;
  }
  return out;
}

/** The `authorization` option, checked. */
export function authorizationOption(
  owner: string,
  mode: ApiServerOptions["authorization"],
): AuthorizationMode {
  if (mode === undefined) return "AlwaysAllow";
  if (!AUTHORIZATION_MODES.includes(mode)) {
    throw new InvalidOptionError(
      owner,
      "authorization",
      mode,
      `must be one of ${AUTHORIZATION_MODES.map((m) => JSON.stringify(m)).join(", ")}`,
    );
  }
  return mode;
}

/** Options of the server's audit. */
export interface AuditOptions {
  /** Where events go. */
  sink: AuditSink;
  /**
   * Which requests are recorded, at what level (`parseAuditPolicy` reads kube's policy files).
   * @default every request at level Metadata
   */
  policy?: AuditPolicy;
}

/** The `audit` option, checked: a sink that takes events, a policy kube would accept. */
export function auditOption(
  owner: string,
  audit: ApiServerOptions["audit"],
): AuditOptions | undefined {
  if (audit === undefined) return undefined;
  if (typeof audit?.sink?.processEvent !== "function") {
    throw new InvalidOptionError(
      owner,
      "audit.sink",
      audit?.sink,
      "must be an AuditSink (processEvent(event))",
    );
  }
  if (audit.policy !== undefined) {
    const problems = Array.isArray(audit.policy?.rules)
      ? validatePolicy(audit.policy)
      : ["rules: must be a list of rules"];
    if (problems.length === 0 && audit.policy.rules.length === 0)
      problems.push("loaded illegal policy with 0 rules");
    if (problems.length > 0) {
      throw new InvalidOptionError(
        owner,
        "audit.policy",
        audit.policy,
        `must be a valid audit policy (${problems.join(", ")})`,
      );
    }
  }
  return audit;
}
