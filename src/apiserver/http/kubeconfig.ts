import { stringify } from "yaml";
import type { KeyCertificate } from "../tls/certificate-authority.ts";

/** How a kubeconfig's user and cluster are authenticated. */
export interface KubeconfigCredentials {
  /** A bearer token for the user. @default none */
  readonly token?: string;
  /**
   * The CA (PEM) that signed the server's certificate: the cluster's
   * `certificate-authority-data`, by which clients verify an `https://` server.
   * @default none (the system's CAs)
   */
  readonly certificateAuthority?: string;
  /**
   * A client certificate and key (PEM): the user's `client-certificate-data` and
   * `client-key-data`. @default none
   */
  readonly clientCertificate?: KeyCertificate;
}

/**
 * A kubeconfig for a server at `url` (context `kontroller`, selected, namespace default). An
 * `https://` server is verified by `certificateAuthority`; a plain `http://` one (loopback
 * only) is marked `insecure-skip-tls-verify`, which @kubernetes/client-node requires for http
 * URLs.
 */
export function kubeconfigFor(url: string, credentials: KubeconfigCredentials = {}): string {
  const b64 = (pem: string) => Buffer.from(pem).toString("base64");
  const cluster: Record<string, unknown> = { server: url };
  if (url.startsWith("http:")) cluster["insecure-skip-tls-verify"] = true;
  if (credentials.certificateAuthority !== undefined) {
    cluster["certificate-authority-data"] = b64(credentials.certificateAuthority);
  }
  const user: Record<string, string> = {};
  if (credentials.clientCertificate !== undefined) {
    user["client-certificate-data"] = b64(credentials.clientCertificate.certificatePem);
    user["client-key-data"] = b64(credentials.clientCertificate.privateKeyPem);
  }
  if (credentials.token !== undefined) user.token = credentials.token;
  return stringify({
    apiVersion: "v1",
    kind: "Config",
    clusters: [{ name: "kontroller", cluster }],
    users: [{ name: "kontroller", user }],
    contexts: [
      {
        name: "kontroller",
        context: { cluster: "kontroller", user: "kontroller", namespace: "default" },
      },
    ],
    "current-context": "kontroller",
    preferences: {},
  });
}
