/**
 * Credentials and endpoints from a kubeconfig or from the in-cluster service account, read with
 * @kubernetes/client-node's `KubeConfig` (contexts, bearer tokens, client certificates, exec
 * and auth-provider plugins, CA data and files). Only its configuration code is used: requests
 * go through kontroller's own transport.
 *
 * @kubernetes/client-node takes most of a second to import, so it is imported on first use:
 * `createClient({ url })` never loads it.
 */
import { readFileSync } from "node:fs";
import type { KubeConfig } from "@kubernetes/client-node";
import { HttpTransport, type HttpTransportOptions } from "./http-transport.ts";

/**
 * Loads a kubeconfig: from `path`, or by the default rules (`$KUBECONFIG`, `~/.kube/config`,
 * the in-cluster service account). `context` overrides the current context.
 */
export async function loadKubeConfig(path?: string, context?: string): Promise<KubeConfig> {
  const { KubeConfig } = await import("@kubernetes/client-node");
  const kc = new KubeConfig();
  if (path === undefined) kc.loadFromDefault();
  else kc.loadFromFile(path);
  if (context !== undefined) kc.setCurrentContext(context);
  return kc;
}

/** The namespace of the kubeconfig's current context, if it names one. */
export function contextNamespace(kc: KubeConfig): string | undefined {
  const name = kc.getCurrentContext();
  return kc.getContextObject(name)?.namespace || undefined;
}

/** Transport options besides what the kubeconfig decides. */
export type KubeConfigTransportOptions = Omit<
  HttpTransportOptions,
  "url" | "ca" | "cert" | "key" | "rejectUnauthorized" | "servername" | "headers"
>;

/**
 * An {@link HttpTransport} for the kubeconfig's current cluster and user. TLS material is read
 * once; the `Authorization` (and impersonation) headers are computed per request for users
 * whose credentials rotate (exec and auth-provider plugins, token files), once otherwise.
 */
export function kubeConfigTransport(
  kc: KubeConfig,
  options: KubeConfigTransportOptions = {},
): HttpTransport {
  const cluster = kc.getCurrentCluster();
  if (cluster === null) {
    throw new Error(
      `the kubeconfig has no cluster for context ${JSON.stringify(kc.getCurrentContext())}; set current-context, or pass { url } to createClient`,
    );
  }
  const user = kc.getCurrentUser();
  const ca = material(cluster.caFile, cluster.caData);
  const cert = material(user?.certFile, user?.certData);
  const key = material(user?.keyFile, user?.keyData);
  const rotating = user != null && (user.exec != null || user.authProvider != null);
  let cached: Record<string, string> | undefined;
  const headers = async (): Promise<Record<string, string>> => {
    if (cached !== undefined) return cached;
    const opts: { headers?: Record<string, unknown>; auth?: string } = {};
    await kc.applyToHTTPSOptions(opts);
    const out: Record<string, string> = {};
    for (const [k, v] of Object.entries(opts.headers ?? {})) {
      if (v !== undefined) out[k] = String(v);
    }
    if (opts.auth !== undefined) {
      out.Authorization = `Basic ${Buffer.from(opts.auth).toString("base64")}`;
    }
    if (!rotating) cached = out;
    return out;
  };
  return new HttpTransport({
    ...options,
    url: cluster.server,
    ...(ca === undefined ? {} : { ca }),
    ...(cert === undefined ? {} : { cert }),
    ...(key === undefined ? {} : { key }),
    ...(cluster.skipTLSVerify ? { rejectUnauthorized: false } : {}),
    ...(cluster.tlsServerName ? { servername: cluster.tlsServerName } : {}),
    headers,
  });
}

/** A kubeconfig `…File` path or base64 `…Data` value, as bytes. */
function material(file: string | undefined, data: string | undefined): Buffer | undefined {
  if (data) return Buffer.from(data, "base64");
  if (file) return readFileSync(file);
  return undefined;
}
