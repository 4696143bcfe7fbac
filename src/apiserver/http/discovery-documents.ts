import type { ServerResponse } from "node:http";
import { encodeObject } from "../../resources/index.ts";
import { aggregatedDiscovery, discoveryContentType } from "./aggregated-discovery.ts";
import {
  type DiscoverySource,
  groupInfo,
  groupList,
  legacyVersions,
  resourceList,
} from "./discovery.ts";
import { negotiateDiscovery } from "./negotiate.ts";
import { answerInProtobuf } from "./protobuf-wire.ts";
import { notFound } from "./request-errors.ts";
import { sendJson } from "./respond.ts";

/** A discovery document a GET names. */
export type DiscoveryDocument =
  | { readonly kind: "legacy-versions"; readonly host: string }
  | { readonly kind: "groups" }
  | { readonly kind: "group"; readonly group: string }
  | { readonly kind: "resources"; readonly group: string; readonly version: string };

/**
 * Answers a discovery document in the form the Accept header asks for: JSON or protobuf; on
 * `/api` and `/apis`, aggregated discovery v2 or the legacy APIVersions and APIGroupList. 406
 * for an Accept header that allows none of them; 404 for a group or version not served.
 */
export function sendDiscovery(
  res: ServerResponse,
  accept: string | undefined,
  doc: DiscoveryDocument,
  reg: DiscoverySource,
): void {
  const topLevel = doc.kind === "legacy-versions" || doc.kind === "groups";
  const core = doc.kind === "legacy-versions" || (doc.kind === "resources" && doc.group === "");
  const { aggregated, protobuf } = negotiateDiscovery(accept, { topLevel, core });
  // The two answers of /api and /apis differ by Accept, so caches must key on it.
  if (topLevel) res.setHeader("Vary", "Accept");
  if (topLevel && aggregated !== undefined) {
    const body = aggregatedDiscovery(reg, doc.kind === "legacy-versions", aggregated) as Record<
      string,
      unknown
    >;
    const type = discoveryContentType(aggregated, protobuf);
    sendJson(res, 200, protobuf ? Buffer.from(encodeObject(body)) : body, type);
    return;
  }
  const value =
    doc.kind === "legacy-versions"
      ? legacyVersions(doc.host)
      : doc.kind === "groups"
        ? groupList(reg)
        : doc.kind === "group"
          ? groupInfo(reg, doc.group)
          : resourceList(reg, doc.group, doc.version);
  if (value === undefined) notFound();
  if (protobuf) answerInProtobuf(res);
  sendJson(res, 200, value);
}
