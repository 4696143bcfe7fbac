import { readFile, writeFile } from "node:fs/promises";
import { parseArgs } from "node:util";
import {
  ApiServer,
  type AuthorizationMode,
  EtcdStorage,
  issueAdminCertificate,
  type KeyCertificate,
  kubeconfigFor,
  readTokenFile,
  type ServingTlsOptions,
} from "../../apiserver/index.ts";
import { stderrLogger } from "../../cache/index.ts";
import { type ControlPlane, startControlPlane } from "../../controlplane/index.ts";
import { errorMessage } from "../../core/index.ts";
import type { Command } from "../command.ts";
import { AUDIT_USAGE, auditFlags } from "../serve-audit.ts";

const USAGE = `usage: kontroller serve [--host 127.0.0.1] [--port 6443] [--kubeconfig-out PATH] [--token TOKEN]
                        [--token-auth-file PATH] [--anonymous-auth]
                        [--cert-dir DIR] [--tls-san NAME,...] [--client-ca-file PATH]
                        [--insecure-http] [--authorization-mode RBAC|AlwaysAllow]
                        [--storage memory|etcd] [--etcd-endpoints URL,...] [--etcd-prefix /registry]
                        [--controllers all|none] [--service-cluster-ip-range CIDR]
                        [--service-node-port-range FIRST-LAST]
                        [--audit-log PATH] [--audit-policy-file PATH]

Runs the embedded Kubernetes-compatible API server until SIGINT or SIGTERM. It serves HTTPS
with a certificate signed by its own CA (made at start, or kept in --cert-dir).
  --host            address to bind (default 127.0.0.1: loopback only)
  --port            port to bind; 0 picks a free one (default 6443)
  --kubeconfig-out  write a kubeconfig for the server to PATH (its context selected): it trusts
                    the server's CA and authenticates as the administrator ("admin", group
                    system:masters) by a client certificate, and by the token if one is given
  --token           require "Authorization: Bearer TOKEN" on every request without a client
                    certificate (401 otherwise)
  --token-auth-file users by bearer token, from a CSV file in kube-apiserver's format:
                    token,user,uid[,"group1,group2"] a line; each user is in its groups and
                    system:authenticated
  --anonymous-auth  a request without credentials is kube's anonymous user (system:anonymous,
                    group system:unauthenticated), which RBAC then authorizes; without it such
                    a request is 401 Unauthorized (but see --insecure-http). A token or client
                    certificate that does not authenticate is 401 either way
  --cert-dir        keep the CA and serving certificate in DIR (ca.crt, ca.key, apiserver.crt,
                    apiserver.key, as kubeadm names them) and reuse them at the next start; a
                    serving certificate that does not cover the server's names is replaced
  --tls-san         more host names or addresses for the serving certificate, comma-separated
                    (it always covers localhost, 127.0.0.1, ::1 and the bind address)
  --client-ca-file  client certificates signed by the CAs in PATH (PEM) authenticate their
                    users too (CN the user, O the groups), besides the server's own CA's
  --insecure-http   serve plain HTTP instead, on a loopback --host only: nothing is encrypted
                    and kubectl sends no token over it; without --token every request is
                    anonymous (--anonymous-auth implied)
  --authorization-mode
                    RBAC (default): requests are allowed by the Roles, ClusterRoles and bindings
                    the server stores, as kube-apiserver's --authorization-mode=RBAC (the
                    administrator, in system:masters, may do anything; kube's bootstrap roles
                    are there at start); AlwaysAllow: every request is allowed. With
                    --insecure-http and no --token every request is anonymous: the default
                    is AlwaysAllow then
  --storage         where objects live: memory (default; gone when the server stops) or etcd
  --etcd-endpoints  with --storage etcd: etcd client URLs, comma-separated (required), e.g.
                    http://127.0.0.1:2379; start-up waits for etcd, retrying
  --etcd-prefix     with --storage etcd: the key prefix in etcd (default /registry: kube's
                    layout, /registry/configmaps/NAMESPACE/NAME); several servers with one
                    prefix on one etcd serve the same objects
  --controllers     all: run the garbage collector and the namespace controller against the
                    server (default); none: the bare API server
  --service-cluster-ip-range
                    the IPv4 range Services' cluster IPs come from (default 10.0.0.0/24, as
                    kube-apiserver's)
  --service-node-port-range
                    the range Services' node ports come from (default 30000-32767)
${AUDIT_USAGE}
`;

/** `kontroller serve`: returns the exit code. */
async function serve(args: string[]): Promise<number> {
  let values: {
    host?: string;
    port?: string;
    "kubeconfig-out"?: string;
    token?: string;
    "token-auth-file"?: string;
    "anonymous-auth"?: boolean;
    "cert-dir"?: string;
    "tls-san"?: string;
    "client-ca-file"?: string;
    "insecure-http"?: boolean;
    "authorization-mode"?: string;
    storage?: string;
    "etcd-endpoints"?: string;
    "etcd-prefix"?: string;
    controllers?: string;
    "service-cluster-ip-range"?: string;
    "service-node-port-range"?: string;
    "audit-log"?: string;
    "audit-policy-file"?: string;
    help?: boolean;
  };
  try {
    ({ values } = parseArgs({
      args,
      options: {
        host: { type: "string" },
        port: { type: "string" },
        "kubeconfig-out": { type: "string" },
        token: { type: "string" },
        "token-auth-file": { type: "string" },
        "anonymous-auth": { type: "boolean" },
        "cert-dir": { type: "string" },
        "tls-san": { type: "string" },
        "client-ca-file": { type: "string" },
        "insecure-http": { type: "boolean" },
        "authorization-mode": { type: "string" },
        storage: { type: "string" },
        "etcd-endpoints": { type: "string" },
        "etcd-prefix": { type: "string" },
        controllers: { type: "string" },
        "service-cluster-ip-range": { type: "string" },
        "service-node-port-range": { type: "string" },
        "audit-log": { type: "string" },
        "audit-policy-file": { type: "string" },
        help: { type: "boolean", short: "h" },
      },
      strict: true,
      allowPositionals: false,
    }));
  } catch (err) {
    process.stderr.write(`kontroller serve: ${errorMessage(err)}\n\n${USAGE}`);
    return 2;
  }
  if (values.help) {
    process.stdout.write(USAGE);
    return 0;
  }
  const port = Number(values.port ?? "6443");
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    process.stderr.write(
      `kontroller serve: --port must be an integer from 0 to 65535, got ${JSON.stringify(values.port)}\n`,
    );
    return 2;
  }
  const storageKind = values.storage ?? "memory";
  if (storageKind !== "memory" && storageKind !== "etcd") {
    process.stderr.write(
      `kontroller serve: --storage must be "memory" or "etcd", got ${JSON.stringify(values.storage)}\n`,
    );
    return 2;
  }
  let etcd: EtcdStorage | undefined;
  if (storageKind === "etcd") {
    const made = etcdStorage(values["etcd-endpoints"], values["etcd-prefix"]);
    if (typeof made === "string") {
      process.stderr.write(`kontroller serve: ${made}\n`);
      return 2;
    }
    etcd = made;
  } else if (values["etcd-endpoints"] !== undefined || values["etcd-prefix"] !== undefined) {
    process.stderr.write(
      "kontroller serve: --etcd-endpoints and --etcd-prefix need --storage etcd\n",
    );
    return 2;
  }
  const controllers = values.controllers ?? "all";
  if (controllers !== "all" && controllers !== "none") {
    process.stderr.write(
      `kontroller serve: --controllers must be "all" or "none", got ${JSON.stringify(controllers)}\n`,
    );
    return 2;
  }
  const authorization = authorizationMode(values);
  if (authorization.error !== undefined) {
    process.stderr.write(`kontroller serve: ${authorization.error}\n`);
    await etcd?.close();
    return 2;
  }
  const tokenFile = values["token-auth-file"];
  if (tokenFile !== undefined) {
    // Read here too, to refuse a bad file before anything starts and to pass on kube's warnings.
    try {
      const { warnings } = await readTokenFile(tokenFile);
      for (const w of warnings) process.stderr.write(`kontroller serve: ${w}\n`);
    } catch (err) {
      process.stderr.write(`kontroller serve: --token-auth-file: ${errorMessage(err)}\n`);
      await etcd?.close();
      return 2;
    }
  }
  // Over plain HTTP without a shared token, no client could present a credential kubectl sends.
  const anonymous =
    values["anonymous-auth"] === true ||
    (values["insecure-http"] === true && values.token === undefined);
  const tls = await tlsOptions(values);
  if (typeof tls === "string") {
    process.stderr.write(`kontroller serve: ${tls}\n`);
    await etcd?.close();
    return 2;
  }
  const audit = await auditFlags(values["audit-log"], values["audit-policy-file"]);
  if ("error" in audit) {
    process.stderr.write(`kontroller serve: ${audit.error}\n`);
    await etcd?.close();
    return audit.exitCode;
  }
  for (const note of audit.notes) process.stderr.write(`kontroller serve: ${note}\n`);
  let server: ApiServer;
  try {
    server = new ApiServer({
      ...(audit.options === undefined ? {} : { audit: audit.options }),
      host: values.host ?? "127.0.0.1",
      port,
      tls,
      authorization: authorization.mode,
      ...(values.token !== undefined ? { token: values.token } : {}),
      ...(tokenFile !== undefined ? { tokenAuthFile: tokenFile } : {}),
      anonymousAuth: anonymous,
      ...(etcd !== undefined ? { storage: etcd } : {}),
      ...(values["service-cluster-ip-range"] !== undefined
        ? { serviceClusterIpRange: values["service-cluster-ip-range"] }
        : {}),
      ...(values["service-node-port-range"] !== undefined
        ? { serviceNodePortRange: values["service-node-port-range"] }
        : {}),
    });
  } catch (err) {
    process.stderr.write(`kontroller serve: ${errorMessage(err)}\n`);
    await audit.options?.sink.close?.();
    await etcd?.close();
    return 2;
  }
  if (etcd !== undefined && !(await waitForEtcd(etcd))) {
    await audit.options?.sink.close?.();
    await etcd.close();
    return 1;
  }
  let url: string;
  try {
    url = await server.listen();
  } catch (err) {
    process.stderr.write(`kontroller serve: cannot listen: ${errorMessage(err)}\n`);
    await server.close();
    await etcd?.close();
    return 1;
  }
  const pki = server.certificates;
  for (const change of pki?.changes ?? []) process.stderr.write(`kontroller serve: ${change}\n`);
  if (pki === undefined) {
    process.stderr.write(
      "kontroller serve: --insecure-http: serving plain HTTP on loopback; nothing is encrypted, and kubectl sends no token over it\n",
    );
  }
  if (authorization.implied) {
    process.stderr.write(
      "kontroller serve: --insecure-http without --token: every request is anonymous, so every request is allowed (--authorization-mode AlwaysAllow); give --token to authorize by RBAC\n",
    );
  }
  const token = values.token;
  const admin: KeyCertificate | undefined =
    pki === undefined ? undefined : await issueAdminCertificate(pki.ca);
  if (values["kubeconfig-out"] !== undefined) {
    const kubeconfig = kubeconfigFor(url, {
      ...(token === undefined ? {} : { token }),
      ...(pki === undefined ? {} : { certificateAuthority: pki.ca.certificatePem }),
      ...(admin === undefined ? {} : { clientCertificate: admin }),
    });
    // It holds the administrator's key (and token): readable by its owner only.
    await writeFile(values["kubeconfig-out"], kubeconfig, { mode: 0o600 });
  }
  let controlPlane: ControlPlane | undefined;
  if (controllers === "all") {
    try {
      controlPlane = await startControlPlane({
        clientOptions: {
          url,
          ...(token === undefined ? {} : { token }),
          ...(pki === undefined ? {} : { ca: pki.ca.certificatePem }),
          ...(admin === undefined ? {} : { cert: admin.certificatePem, key: admin.privateKeyPem }),
        },
        logger: stderrLogger,
      });
    } catch (err) {
      process.stderr.write(
        `kontroller serve: the controllers did not start: ${errorMessage(err)}\n`,
      );
      await server.close();
      await etcd?.close();
      return 1;
    }
  }
  process.stdout.write(`kontroller API server listening on ${url}\n`);
  await new Promise<void>((resolve) => {
    const stop = () => {
      process.off("SIGINT", stop);
      process.off("SIGTERM", stop);
      resolve();
    };
    process.once("SIGINT", stop);
    process.once("SIGTERM", stop);
  });
  await controlPlane?.stop();
  await server.close();
  await etcd?.close();
  return 0;
}

/**
 * The authorization mode of the flags: RBAC by default, as kube-apiserver's for a cluster (the
 * administrator the kubeconfig names is in system:masters, so it may do anything); AlwaysAllow
 * (`implied`) where no request can be anyone but anonymous — plain HTTP without a token, as
 * kube's old insecure port served without authorization. RBAC there without controllers only:
 * they would be anonymous too, and refused.
 */
function authorizationMode(values: {
  token?: string;
  "insecure-http"?: boolean;
  "authorization-mode"?: string;
  controllers?: string;
}): { mode: AuthorizationMode; implied?: boolean; error?: undefined } | { error: string } {
  const anonymousOnly = values["insecure-http"] === true && values.token === undefined;
  const given = values["authorization-mode"];
  if (given === undefined) {
    return anonymousOnly ? { mode: "AlwaysAllow", implied: true } : { mode: "RBAC" };
  }
  if (given !== "RBAC" && given !== "AlwaysAllow") {
    return {
      error: `--authorization-mode must be "RBAC" or "AlwaysAllow", got ${JSON.stringify(given)}`,
    };
  }
  if (given === "RBAC" && anonymousOnly && (values.controllers ?? "all") !== "none") {
    return {
      error:
        "--authorization-mode RBAC with --insecure-http needs --token: without it every request is anonymous, the controllers' too, and RBAC refuses them (or give --controllers none)",
    };
  }
  return { mode: given };
}

/**
 * The server's `tls` option from the TLS flags (HTTPS unless --insecure-http), or what is
 * wrong with them.
 */
async function tlsOptions(values: {
  host?: string;
  "cert-dir"?: string;
  "tls-san"?: string;
  "client-ca-file"?: string;
  "insecure-http"?: boolean;
}): Promise<ServingTlsOptions | false | string> {
  const tlsFlags = (["cert-dir", "tls-san", "client-ca-file"] as const).filter(
    (flag) => values[flag] !== undefined,
  );
  if (values["insecure-http"]) {
    if (tlsFlags.length > 0) return `--insecure-http serves no TLS: drop --${tlsFlags[0]}`;
    const host = (values.host ?? "127.0.0.1").replace(/^\[|\]$/g, "");
    if (!(host === "localhost" || host === "::1" || /^127\.\d+\.\d+\.\d+$/.test(host))) {
      return `--insecure-http serves plain HTTP on loopback only (127.0.0.1, ::1, localhost), and --host is ${JSON.stringify(values.host)}: serve HTTPS there instead (drop --insecure-http)`;
    }
    return false;
  }
  let clientCa: string | undefined;
  const caFile = values["client-ca-file"];
  if (caFile !== undefined) {
    try {
      clientCa = await readFile(caFile, "utf8");
    } catch (err) {
      return `--client-ca-file: cannot read ${caFile}: ${errorMessage(err)}`;
    }
  }
  const sans = values["tls-san"]
    ?.split(",")
    .map((s) => s.trim())
    .filter((s) => s !== "");
  return {
    ...(values["cert-dir"] === undefined ? {} : { certDir: values["cert-dir"] }),
    ...(sans === undefined ? {} : { hosts: sans }),
    ...(clientCa === undefined ? {} : { clientCa }),
  };
}

/**
 * The etcd storage of `--etcd-endpoints` and `--etcd-prefix`, or what is wrong with them. The
 * registry's keys start with /registry, so the prefix /registry (the default) is no prefix at
 * all, and `/x/registry` is `/x`; any other prefix P puts keys at P/registry/….
 */
function etcdStorage(endpoints: string | undefined, prefix = "/registry"): EtcdStorage | string {
  if (endpoints === undefined || endpoints.trim() === "") {
    return "--storage etcd needs --etcd-endpoints, e.g. --etcd-endpoints http://127.0.0.1:2379";
  }
  if (!prefix.startsWith("/")) {
    return `--etcd-prefix must start with "/", got ${JSON.stringify(prefix)}`;
  }
  try {
    return new EtcdStorage({
      endpoints: endpoints.split(",").map((e) => e.trim()),
      prefix: prefix.replace(/\/registry\/?$/, "").replace(/\/$/, ""),
    });
  } catch (err) {
    return errorMessage(err);
  }
}

/** Waits until etcd answers, saying so on stderr; false if stopped (SIGINT/SIGTERM) first. */
async function waitForEtcd(etcd: EtcdStorage): Promise<boolean> {
  const stop = new AbortController();
  const onSignal = () => stop.abort(new Error("stopped while waiting for etcd"));
  process.once("SIGINT", onSignal);
  process.once("SIGTERM", onSignal);
  try {
    await etcd.ready({
      signal: stop.signal,
      onRetry: (err, attempt, delayMs) =>
        process.stderr.write(
          `kontroller serve: waiting for etcd at ${etcd.endpoints.join(",")} (attempt ${attempt}: ${err.message}); retrying in ${(delayMs / 1000).toFixed(1)} s\n`,
        ),
    });
    return true;
  } catch (err) {
    process.stderr.write(`kontroller serve: ${errorMessage(err)}\n`);
    return false;
  } finally {
    process.off("SIGINT", onSignal);
    process.off("SIGTERM", onSignal);
  }
}

/** `kontroller serve`. */
export const command: Command = {
  summary: "run the embedded Kubernetes-compatible API server",
  run: serve,
};
