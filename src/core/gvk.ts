/** A group and version: `""`/`"v1"` for the core group, `"apps"`/`"v1"` otherwise. */
export interface GroupVersion {
  group: string;
  version: string;
}

/** What an object is: its group, version and kind. */
export interface GroupVersionKind extends GroupVersion {
  kind: string;
}

/** Where a kind is served: its group, version and resource (the plural in the URL). */
export interface GroupVersionResource extends GroupVersion {
  resource: string;
}

/**
 * Splits an `apiVersion` (`"v1"`, `"apps/v1"`, `"example.com/v1alpha1"`) into group and version.
 * Throws a `TypeError` naming the value when it has more than one slash or an empty part.
 */
export function parseApiVersion(apiVersion: string): GroupVersion {
  const parts = apiVersion.split("/");
  if (parts.length === 1 && parts[0] !== "") return { group: "", version: parts[0]! };
  if (parts.length === 2 && parts[0] !== "" && parts[1] !== "") {
    return { group: parts[0]!, version: parts[1]! };
  }
  throw new TypeError(
    `invalid apiVersion ${JSON.stringify(apiVersion)}: expected "version" or "group/version"`,
  );
}

/** Joins group and version into an `apiVersion`: `"v1"` for the core group. */
export function formatApiVersion(gv: GroupVersion): string {
  return gv.group === "" ? gv.version : `${gv.group}/${gv.version}`;
}
