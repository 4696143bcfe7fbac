import { stringify } from "yaml";

/**
 * A kubeconfig for a server at `url` (context `kontroller`, selected), with a bearer token when
 * the server requires one.
 */
export function kubeconfigFor(url: string, token?: string): string {
  return stringify({
    apiVersion: "v1",
    kind: "Config",
    clusters: [{ name: "kontroller", cluster: { server: url } }],
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
