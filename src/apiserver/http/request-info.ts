/** What a request path addresses. */
export type RequestTarget =
  | { kind: "root" }
  | { kind: "version" }
  | { kind: "health"; check: string }
  | { kind: "legacy-versions" }
  | { kind: "groups" }
  | { kind: "group"; group: string }
  | { kind: "resources"; group: string; version: string }
  | { kind: "openapi"; path: string }
  | { kind: "metrics" }
  | ResourceTarget
  | { kind: "unknown" };

/** A path to a resource, an object or an object's subresource. */
export interface ResourceTarget {
  kind: "resource";
  group: string;
  version: string;
  /** `""` for cluster-scoped paths and for cluster-wide lists of namespaced resources. */
  namespace: string;
  /** The namespace came from the path (a namespaced request). */
  namespaced: boolean;
  resource: string;
  name: string;
  subresource: string;
  /**
   * What the path goes on with after the subresource (`/some/path` of
   * `pods/p/proxy/some/path`, `/` of `pods/p/proxy/`); "" when it ends there. Only `proxy`
   * subresources take one.
   */
  subpath: string;
}

const NAMESPACE_SUBRESOURCES = new Set(["status", "finalize"]);

/**
 * Parses a request path as kube-apiserver's `RequestInfoFactory` does:
 * `/api/v1[/namespaces/{ns}]/{resource}[/{name}[/{subresource}]]` and the same under
 * `/apis/{group}/{version}`. `namespaces/{name}/status|finalize` address the namespace itself.
 * Whatever follows a subresource is its {@link ResourceTarget.subpath}.
 */
export function parsePath(pathname: string): RequestTarget {
  const parts = pathname
    .split("/")
    .filter((p) => p !== "")
    .map(safeDecode);
  if (parts.some((p) => p === undefined)) return { kind: "unknown" };
  const segs = parts as string[];
  const trailingSlash = pathname.length > 1 && pathname.endsWith("/");
  if (segs.length === 0) return { kind: "root" };
  const [head, ...rest] = segs;
  switch (head) {
    case "version":
      return segs.length === 1 ? { kind: "version" } : { kind: "unknown" };
    case "healthz":
    case "livez":
    case "readyz":
      return { kind: "health", check: segs.join("/") };
    case "openapi":
      return { kind: "openapi", path: rest.join("/") };
    case "metrics":
      return segs.length === 1 ? { kind: "metrics" } : { kind: "unknown" };
    case "api":
      if (rest.length === 0) return { kind: "legacy-versions" };
      if (rest.length === 1) return { kind: "resources", group: "", version: rest[0]! };
      return resourcePath("", rest[0]!, rest.slice(1), trailingSlash);
    case "apis":
      if (rest.length === 0) return { kind: "groups" };
      if (rest.length === 1) return { kind: "group", group: rest[0]! };
      if (rest.length === 2) return { kind: "resources", group: rest[0]!, version: rest[1]! };
      return resourcePath(rest[0]!, rest[1]!, rest.slice(2), trailingSlash);
    default:
      return { kind: "unknown" };
  }
}

function resourcePath(
  group: string,
  version: string,
  parts: string[],
  trailingSlash: boolean,
): RequestTarget {
  let namespace = "";
  let namespaced = false;
  let rest = parts;
  if (parts[0] === "namespaces" && parts.length >= 3 && !NAMESPACE_SUBRESOURCES.has(parts[2]!)) {
    namespace = parts[1]!;
    namespaced = true;
    rest = parts.slice(2);
  }
  if (rest.length === 0) return { kind: "unknown" };
  const after = rest.slice(3);
  const subpath =
    after.length === 0 && !(trailingSlash && rest.length === 3)
      ? ""
      : `/${after.join("/")}${trailingSlash && after.length > 0 ? "/" : ""}`;
  return {
    kind: "resource",
    group,
    version,
    namespace,
    namespaced,
    resource: rest[0]!,
    name: rest[1] ?? "",
    subresource: rest[2] ?? "",
    subpath,
  };
}

function safeDecode(s: string): string | undefined {
  // Only a `%` escape decodes to anything else (or fails to decode).
  if (!s.includes("%")) return s;
  try {
    return decodeURIComponent(s);
  } catch {
    return undefined;
  }
}
