/**
 * A server with RBAC on, over HTTPS, and requests as users whose client certificates its CA
 * mints (or with a bearer token): what the RBAC suites share.
 */
import { request } from "node:https";
import type { KeyCertificate } from "kontroller/apiserver";
import { startTestServer, type TestServer } from "kontroller/testing";

/** A reply: status and parsed JSON body (the text where it is not JSON). */
export interface RbacReply {
  readonly status: number;
  // biome-ignore lint/suspicious/noExplicitAny: replies are read loosely in assertions
  readonly body: any;
}

/**
 * Sends requests as one user: a body is sent as JSON (a PATCH as a merge patch) unless
 * `contentType` says otherwise.
 */
export type Requester = (
  method: string,
  path: string,
  body?: unknown,
  contentType?: string,
) => Promise<RbacReply>;

/** The RBAC API group's path prefix. */
export const RBAC = "/apis/rbac.authorization.k8s.io/v1";

/** An embedded server with `authorization: "RBAC"` over HTTPS, and its administrator. */
export async function rbacServer(options: { controllers?: boolean } = {}): Promise<{
  s: TestServer;
  admin: Requester;
  as: (user: string, ...groups: string[]) => Promise<Requester>;
}> {
  const s = await startTestServer({
    tls: {},
    authorization: "RBAC",
    controllers: options.controllers ?? false,
  });
  const ca = s.server.certificates!.ca;
  const as = async (user: string, ...groups: string[]) =>
    requester(s.url, s.ca!, { cert: await ca.issueClientCertificate({ user, groups }) });
  return { s, admin: await as("admin", "system:masters"), as };
}

/** Requests to `url` with a client certificate or a bearer token (or neither: anonymous). */
export function requester(
  url: string,
  ca: string,
  credentials: { cert?: KeyCertificate; token?: string } = {},
): Requester {
  return (method, path, body, contentType) =>
    new Promise((resolve, reject) => {
      const { cert, token } = credentials;
      const req = request(
        `${url}${path}`,
        {
          method,
          ca,
          agent: false,
          headers: {
            ...(body === undefined
              ? {}
              : {
                  "content-type":
                    contentType ??
                    (method === "PATCH" ? "application/merge-patch+json" : "application/json"),
                }),
            ...(token === undefined ? {} : { authorization: `Bearer ${token}` }),
          },
          ...(cert === undefined ? {} : { cert: cert.certificatePem, key: cert.privateKeyPem }),
        },
        (res) => {
          let text = "";
          res.setEncoding("utf8");
          res.on("data", (c: string) => {
            text += c;
          });
          res.on("end", () => {
            let parsed: unknown = text;
            try {
              parsed = JSON.parse(text);
            } catch {
              // not JSON: kept as text
            }
            resolve({ status: res.statusCode ?? 0, body: parsed });
          });
        },
      );
      req.on("error", reject);
      req.end(body === undefined ? undefined : JSON.stringify(body));
    });
}

/** A Role or ClusterRole body. */
export function role(
  kind: "Role" | "ClusterRole",
  name: string,
  rules: object[],
  extra: Record<string, unknown> = {},
): Record<string, unknown> {
  return {
    apiVersion: "rbac.authorization.k8s.io/v1",
    kind,
    metadata: { name, ...((extra.metadata as object) ?? {}) },
    rules,
    ...Object.fromEntries(Object.entries(extra).filter(([k]) => k !== "metadata")),
  };
}

/** A RoleBinding or ClusterRoleBinding body granting `roleRef` to users (or `Group:name`). */
export function binding(
  kind: "RoleBinding" | "ClusterRoleBinding",
  name: string,
  roleRef: { kind: "Role" | "ClusterRole"; name: string },
  ...subjects: string[]
): Record<string, unknown> {
  return {
    apiVersion: "rbac.authorization.k8s.io/v1",
    kind,
    metadata: { name },
    roleRef: { apiGroup: "rbac.authorization.k8s.io", ...roleRef },
    subjects: subjects.map((s) => {
      const [k, n] = s.includes(":") && /^(Group|User):/.test(s) ? s.split(/:(.*)/s) : ["User", s];
      return { apiGroup: "rbac.authorization.k8s.io", kind: k, name: n };
    }),
  };
}
