import type { ServerResponse } from "node:http";
import { errors } from "../../core/index.ts";
import { answerInProtobuf } from "./protobuf-wire.ts";

/**
 * How a response is encoded, from the Accept header: an object (or list) as JSON or, for a
 * built-in kind whose client asked for it, Kubernetes protobuf; a Table (JSON only: Table has no
 * protobuf message); or PartialObjectMetadata (JSON or protobuf).
 */
export type Output =
  | { kind: "json"; protobuf?: boolean }
  | { kind: "table"; apiVersion: "meta.k8s.io/v1" | "meta.k8s.io/v1beta1" }
  | { kind: "metadata"; protobuf?: boolean };

interface MediaRange {
  type: string;
  params: Record<string, string>;
  q: number;
}

/**
 * The ranges of an Accept header, most preferred first, ordered as kube's parser (goautoneg)
 * orders them: an insertion sort where a range goes before another with a lower q, or with a
 * wildcard where it has none — a concrete type passes `*\/*` whatever their q — and otherwise
 * keeps its place. q=0 is not "not acceptable" there: it only sorts last; a q that does not
 * parse is 0.
 */
function parseAccept(header: string): MediaRange[] {
  const ranges = header
    .split(",")
    .map((part) => {
      const [type, ...ps] = part.split(";").map((s) => s.trim());
      const params: Record<string, string> = {};
      for (const p of ps) {
        const eq = p.indexOf("=");
        if (eq > 0) params[p.slice(0, eq).trim().toLowerCase()] = p.slice(eq + 1).trim();
      }
      const q = params.q === undefined ? 1 : Number(params.q);
      return { type: (type ?? "").toLowerCase(), params, q: Number.isNaN(q) ? 0 : q };
    })
    .filter((r) => r.type !== "");
  const [major, minor] = [
    (r: MediaRange) => r.type.split("/")[0],
    (r: MediaRange) => r.type.split("/")[1],
  ];
  const before = (a: MediaRange, b: MediaRange) =>
    a.q > b.q || (major(a) !== "*" && major(b) === "*") || (minor(a) !== "*" && minor(b) === "*");
  for (let i = 1; i < ranges.length; i++) {
    for (let j = i; j > 0 && before(ranges[j]!, ranges[j - 1]!); j--) {
      [ranges[j - 1], ranges[j]] = [ranges[j]!, ranges[j - 1]!];
    }
  }
  return ranges;
}

const PROTOBUF = "application/vnd.kubernetes.protobuf";

/**
 * Picks the output for an Accept header as kube does: the most preferred range it can serve —
 * `application/json` (plain, or `as=Table`/`as=PartialObjectMetadata[List]` in
 * `meta.k8s.io`), `*\/*` or `application/*` (JSON), `application/vnd.kubernetes.protobuf` as
 * PartialObjectMetadata, and plain protobuf where `protobuf` is offered (built-in kinds; a
 * custom resource has no message). None servable is 406. `table` is allowed only for get, list and watch.
 */
export function negotiate(
  accept: string | undefined,
  tableAllowed: boolean,
  protobuf = false,
  collection = false,
): Output {
  if (accept === undefined || accept.trim() === "") return { kind: "json" };
  if (protobuf) routeFilter(accept, collection);
  for (const r of parseAccept(accept)) {
    const json = r.type === "application/json" || r.type === "*/*" || r.type === "application/*";
    const proto = r.type === PROTOBUF;
    if (!json && !proto) continue;
    const as = r.params.as;
    if (as === undefined) {
      if (json) return { kind: "json" };
      if (protobuf) return { kind: "json", protobuf: true };
      continue;
    }
    if (r.params.g !== "meta.k8s.io") continue;
    const v1 = r.params.v === "v1" || r.params.v === "v1beta1";
    if (as === "Table" && json && tableAllowed && v1) {
      return { kind: "table", apiVersion: `meta.k8s.io/${r.params.v as "v1" | "v1beta1"}` };
    }
    if ((as === "PartialObjectMetadata" || as === "PartialObjectMetadataList") && v1) {
      return proto ? { kind: "metadata", protobuf: true } : { kind: "metadata" };
    }
  }
  throw errors.notAcceptable(
    protobuf
      ? `only the following media types are accepted: ${BUILTIN_TYPES.join(", ")}`
      : `only the following media types are accepted: application/json, application/json;as=Table;v=v1;g=meta.k8s.io, application/json;as=PartialObjectMetadata;v=v1;g=meta.k8s.io (got ${JSON.stringify(accept)})`,
  );
}

/** What a built-in resource's route produces; a list's and watch's route adds the streams. */
const BUILTIN_TYPES = ["application/json", "application/yaml", PROTOBUF];
const STREAM_TYPES = ["application/json;stream=watch", `${PROTOBUF};stream=watch`];

/**
 * kube's first check of a built-in resource's Accept header (go-restful's route filter), before
 * any negotiation: some range, its parameters and q dropped, must be exactly `*\/*` or one of the
 * types the route produces, case and all — `application/*` alone does not pass. 406 otherwise,
 * naming them.
 */
function routeFilter(accept: string, collection: boolean): void {
  for (const part of accept.split(",")) {
    const type = part.split(";")[0]!.trim();
    if (type === "*/*" || BUILTIN_TYPES.includes(type)) return;
  }
  const produced = collection ? [...BUILTIN_TYPES, ...STREAM_TYPES] : BUILTIN_TYPES;
  const err = errors.notAcceptable(
    `406: Not Acceptable\n\nAvailable representations: ${produced.join(", ")}`,
  );
  err.status.details = {};
  throw err;
}

/**
 * {@link negotiate} for a response: one that negotiated protobuf answers in it from now on,
 * its errors included.
 */
export function negotiateFor(
  res: ServerResponse,
  accept: string | undefined,
  tableAllowed: boolean,
  protobuf = false,
  collection = false,
): Output {
  const output = negotiate(accept, tableAllowed, protobuf, collection);
  if (output.kind !== "table" && output.protobuf === true) answerInProtobuf(res);
  return output;
}

/** The aggregated discovery version served on `/api` and `/apis` (kube 1.36 dropped v2beta1). */
export type DiscoveryVersion = "v2";

/** How a discovery document is answered: aggregated (on `/api` and `/apis`) or not, in protobuf or JSON. */
export interface DiscoveryOutput {
  readonly aggregated?: DiscoveryVersion;
  readonly protobuf: boolean;
}

/** Where a discovery document is served, which decides what kube checks of its Accept header. */
export interface DiscoveryRoute {
  /** `/api` or `/apis`: aggregated discovery may be asked for. */
  readonly topLevel: boolean;
  /** `/api` or `/api/v1`: go-restful's route filter runs first (see {@link routeFilter}). */
  readonly core: boolean;
}

/**
 * Picks the form of a discovery document for an Accept header, as kube-apiserver 1.36 does: the
 * first JSON or protobuf range (a wildcard standing for JSON) that asks for the plain document,
 * or — on `/api` and `/apis` — for `as=APIGroupDiscoveryList` in `apidiscovery.k8s.io` v2.
 * Other ranges are skipped (v2beta1 among them); none left is 406. The core group's documents
 * go through kube's route filter first.
 */
export function negotiateDiscovery(
  accept: string | undefined,
  route: DiscoveryRoute,
): DiscoveryOutput {
  if (accept === undefined || accept.trim() === "") return { protobuf: false };
  if (route.core) routeFilter(accept, false);
  for (const r of parseAccept(accept)) {
    const json = r.type === "application/json" || r.type === "*/*" || r.type === "application/*";
    const protobuf = r.type === PROTOBUF;
    if (!json && !protobuf) continue;
    const as = r.params.as;
    if (as === undefined) return { protobuf };
    if (
      route.topLevel &&
      as === "APIGroupDiscoveryList" &&
      r.params.g === "apidiscovery.k8s.io" &&
      r.params.v === "v2"
    ) {
      return { aggregated: "v2", protobuf };
    }
  }
  throw errors.notAcceptable(
    `only the following media types are accepted: ${BUILTIN_TYPES.join(", ")}`,
  );
}
