import { stringify } from "yaml";

/**
 * A kubeconfig for a server at `url` (context `kontroller`, selected), with a bearer token when
 * the server requires one. The server speaks plain HTTP on loopback, so the cluster entry is
 * marked `insecure-skip-tls-verify` (which @kubernetes/client-node requires for http URLs).
 */
export function kubeconfigFor(url: string, token?: string): string {
  return stringify({
    apiVersion: "v1",
    kind: "Config",
    // @kubernetes/client-node refuses plain http unless TLS verification is marked skipped.
    clusters: [{ name: "kontroller", cluster: { server: url, "insecure-skip-tls-verify": true } }],
    users: [{ name: "kontroller", user: token === undefined ? {} : { token } }],
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
