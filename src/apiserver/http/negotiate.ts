import { errors } from "../../core/index.ts";

/** How a response is encoded, from the Accept header. */
export type Output =
  | { kind: "json" }
  | { kind: "table"; apiVersion: "meta.k8s.io/v1" | "meta.k8s.io/v1beta1" }
  | { kind: "metadata" };

interface MediaRange {
  type: string;
  params: Record<string, string>;
}

function parseAccept(header: string): MediaRange[] {
  return header
    .split(",")
    .map((part) => {
      const [type, ...ps] = part.split(";").map((s) => s.trim());
      const params: Record<string, string> = {};
      for (const p of ps) {
        const eq = p.indexOf("=");
        if (eq > 0) params[p.slice(0, eq).trim().toLowerCase()] = p.slice(eq + 1).trim();
      }
      return { type: (type ?? "").toLowerCase(), params };
    })
    .filter((r) => r.type !== "" && r.params.q !== "0");
}

/**
 * Picks the output for an Accept header as kube does: the first range it can serve —
 * `application/json` (plain, or `as=Table`/`as=PartialObjectMetadata[List]` in
 * `meta.k8s.io`), `*\/*` or `application/*`. None servable (e.g. protobuf only) is 406.
 * `table` is allowed only for get, list and watch.
 */
export function negotiate(accept: string | undefined, tableAllowed: boolean): Output {
  if (accept === undefined || accept.trim() === "") return { kind: "json" };
  for (const r of parseAccept(accept)) {
    const json = r.type === "application/json" || r.type === "*/*" || r.type === "application/*";
    if (!json) continue;
    const as = r.params.as;
    if (as === undefined) return { kind: "json" };
    if (r.params.g !== "meta.k8s.io") continue;
    if (as === "Table" && tableAllowed && (r.params.v === "v1" || r.params.v === "v1beta1")) {
      return { kind: "table", apiVersion: `meta.k8s.io/${r.params.v}` };
    }
    if (
      (as === "PartialObjectMetadata" || as === "PartialObjectMetadataList") &&
      (r.params.v === "v1" || r.params.v === "v1beta1")
    ) {
      return { kind: "metadata" };
    }
  }
  throw errors.notAcceptable(
    `only the following media types are accepted: application/json, application/json;as=Table;v=v1;g=meta.k8s.io, application/json;as=PartialObjectMetadata;v=v1;g=meta.k8s.io (got ${JSON.stringify(accept)})`,
  );
}

/** The aggregated discovery versions served on `/api` and `/apis`. */
export type DiscoveryVersion = "v2" | "v2beta1";

/**
 * Picks the form of `/api` and `/apis` for an Accept header: the first JSON range either asks
 * for `as=APIGroupDiscoveryList` in `apidiscovery.k8s.io` v2 or v2beta1 (that version, answered
 * as aggregated discovery) or asks for plain JSON (`undefined`: the legacy APIVersions and
 * APIGroupList). Ranges neither names are skipped; none servable is legacy too, as these two
 * documents have always been answered whatever the Accept header said.
 */
export function negotiateDiscovery(accept: string | undefined): DiscoveryVersion | undefined {
  if (accept === undefined) return undefined;
  for (const r of parseAccept(accept)) {
    const json = r.type === "application/json" || r.type === "*/*" || r.type === "application/*";
    if (!json) continue;
    const as = r.params.as;
    if (as === undefined) return undefined;
    if (
      as === "APIGroupDiscoveryList" &&
      r.params.g === "apidiscovery.k8s.io" &&
      (r.params.v === "v2" || r.params.v === "v2beta1")
    ) {
      return r.params.v;
    }
  }
  return undefined;
}
