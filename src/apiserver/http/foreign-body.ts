import { type ApiError, errors, parseApiVersion } from "../../core/index.ts";
import { BUILTIN_RESOURCES } from "../../resources/index.ts";

/*
 * kube's 400 for a built-in kind's body that declares another type. kube's decoder looks the
 * declared apiVersion and kind up in its scheme, decodes the body as that type and converts it
 * to the resource's internal type; then the handler refuses any group-version but the
 * resource's. So a type the scheme does not know is "no kind registered", a known type of
 * another internal type is an "unknown conversion", and the resource's own type at another
 * version is "the API version in the data does not match".
 *
 * Not guaranteed: kube's scheme also knows versions it no longer serves (apps/v1beta1,
 * extensions/v1beta1); of those, only the resource's own kind in its own group is recognized
 * here (as another version of it); other kinds of them are "no kind registered".
 */

/** The scheme kube's decoder names: CRDs have their own API server, with a scheme of its own. */
const SCHEMES: Readonly<Record<string, string>> = {
  "apiextensions.k8s.io": "k8s.io/apiextensions-apiserver/pkg/apiserver/apiserver.go:55",
};
const LEGACY_SCHEME = "pkg/api/legacyscheme/scheme.go:30";

/** apimachinery's types every group-version of a scheme knows (its Go package is `v1`). */
const META_KINDS = new Set([
  "WatchEvent",
  "ListOptions",
  "GetOptions",
  "DeleteOptions",
  "CreateOptions",
  "UpdateOptions",
  "PatchOptions",
]);
/** apimachinery's types a scheme knows in any group-version, even one it does not have. */
const UNVERSIONED_KINDS = new Set([
  "Status",
  "APIVersions",
  "APIGroupList",
  "APIGroup",
  "APIResourceList",
]);

/**
 * The Go package of a group's internal types, which kube's conversion errors name: `core` for
 * the core group (and events.k8s.io, whose Events are core ones), else the group's first label.
 */
function internalPackage(group: string): string {
  if (group === "" || group === "events.k8s.io") return "core";
  if (group === "internal.apiserver.k8s.io") return "apiserverinternal";
  return group.split(".")[0]!;
}

/** The scheme's group-versions: `group/version` → the kinds it has there. */
function schemeKinds(scheme: string): Map<string, Set<string>> {
  const out = new Map<string, Set<string>>();
  const add = (group: string, version: string, kind: string) => {
    if ((SCHEMES[group] ?? LEGACY_SCHEME) !== scheme) return;
    const gv = group === "" ? version : `${group}/${version}`;
    out.set(gv, (out.get(gv) ?? new Set()).add(kind));
  };
  for (const r of BUILTIN_RESOURCES) {
    add(r.group, r.version, r.kind);
    for (const s of r.subresources) if (s.version !== "") add(s.group, s.version, s.kind);
  }
  return out;
}

/** Each scheme's kinds by group-version (built once: the built-in resources are constant). */
const KINDS = new Map(
  [LEGACY_SCHEME, ...Object.values(SCHEMES)].map((scheme) => [scheme, schemeKinds(scheme)]),
);

/** Whether `scheme` knows `kind` at `apiVersion`. */
function registered(scheme: string, apiVersion: string, kind: string): boolean {
  if (UNVERSIONED_KINDS.has(kind)) return true;
  const at = KINDS.get(scheme)?.get(apiVersion);
  return at !== undefined && (at.has(kind) || META_KINDS.has(kind));
}

/**
 * kube's 400 for a body declaring `apiVersion` and `kind` (each defaulted to the resource's
 * where the body leaves it out) sent to a resource of `want`'s apiVersion and kind.
 */
export function foreignBodyError(
  apiVersion: string,
  kind: string,
  want: { readonly apiVersion: string; readonly kind: string },
): ApiError {
  const target = parseApiVersion(want.apiVersion);
  const scheme = SCHEMES[target.group] ?? LEGACY_SCHEME;
  const version = apiVersion.split("/").pop() ?? "";
  const prefix = `${kind} in version ${JSON.stringify(version)} cannot be handled as a ${want.kind}`;
  const group = apiVersion.includes("/") ? apiVersion.split("/")[0]! : "";
  const sameType = kind === want.kind && internalPackage(group) === internalPackage(target.group);
  if (sameType && (group === target.group || registered(scheme, apiVersion, kind))) {
    return errors.badRequest(
      `the API version in the data (${apiVersion}) does not match the expected API version (${want.apiVersion})`,
    );
  }
  if (!registered(scheme, apiVersion, kind)) {
    return errors.badRequest(
      `${prefix}: no kind ${JSON.stringify(kind)} is registered for version ${JSON.stringify(apiVersion)} in scheme ${JSON.stringify(scheme)}`,
    );
  }
  const from = META_KINDS.has(kind) || UNVERSIONED_KINDS.has(kind) ? "v1" : version;
  return errors.badRequest(
    `${prefix}: converting (${from}.${kind}) to (${internalPackage(target.group)}.${want.kind}): unknown conversion`,
  );
}
