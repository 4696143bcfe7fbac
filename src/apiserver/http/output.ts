import type { ServerResponse } from "node:http";
import type { KubeObject } from "../../core/index.ts";
import { apiVersionOf } from "../../resources/index.ts";
import type { ServedResource } from "../registry/registry.ts";
import type { ListResult } from "../registry/types.ts";
import type { WatchEncoder } from "../watchcache/cache-event.ts";
import type { Output } from "./negotiate.ts";
import { PROTOBUF, protobufList } from "./protobuf-wire.ts";
import { sendJson, sendJsonList } from "./respond.ts";
import {
  columnsOf,
  definitions,
  parseIncludeObject,
  partialObjectMetadata,
  tableRow,
} from "./table.ts";
import type { ResourceContext } from "./types.ts";

/*
 * How objects, lists and watch events are written for each negotiated output: plain JSON
 * (lists splice the cache's memoized item JSON), PartialObjectMetadata, or a Table.
 */

/** An encoder for a watch's output: plain JSON (shared), metadata only (shared), or a Table. */
export function encoderFor(
  ctx: ResourceContext,
  served: ServedResource,
  output: Output,
  query: URLSearchParams,
): WatchEncoder {
  const base = served.store.encoder;
  if (output.kind === "json") return base;
  if (output.kind === "metadata") {
    const strategy = served.store.strategy;
    return {
      id: `${base.id}:meta${strategy.internalMetadata ? `:${served.def.kind}` : ""}`,
      encode: (o) => JSON.stringify(partialObjectMetadata(o, strategy)),
    };
  }
  const include = parseIncludeObject(query.get("includeObject"));
  const columns = columnsOf(served);
  let first = true;
  return {
    id: `table:${Math.random()}`,
    encode: (o) => {
      const object = JSON.parse(base.encode(o)) as KubeObject;
      const table = {
        kind: "Table",
        apiVersion: output.apiVersion,
        metadata: {},
        columnDefinitions: first ? definitions(columns) : null,
        rows: [tableRow(columns, object, include, ctx.clock.now(), served.store.strategy)],
      };
      first = false;
      return JSON.stringify(table);
    },
  };
}

/** The response body for one object. */
function outputObject(
  ctx: ResourceContext,
  served: ServedResource,
  object: KubeObject,
  output: Output,
  query: URLSearchParams,
): unknown {
  if (output.kind === "json") return object;
  if (output.kind === "metadata") return partialObjectMetadata(object, served.store.strategy);
  const include = parseIncludeObject(query.get("includeObject"));
  const columns = columnsOf(served);
  return {
    kind: "Table",
    apiVersion: output.apiVersion,
    metadata: { resourceVersion: object.metadata?.resourceVersion ?? "" },
    columnDefinitions: definitions(columns),
    rows: [tableRow(columns, object, include, ctx.clock.now(), served.store.strategy)],
  };
}

/** Writes one object in the negotiated output. */
export function sendObject(
  ctx: ResourceContext,
  res: ServerResponse,
  code: number,
  served: ServedResource,
  object: KubeObject,
  output: Output,
  query: URLSearchParams,
): void {
  sendJson(res, code, outputObject(ctx, served, object, output, query));
}

/**
 * Writes a list in the negotiated output; a large JSON list is streamed (see
 * {@link sendJsonList}), Tables and metadata lists are built whole.
 */
export async function sendList(
  ctx: ResourceContext,
  res: ServerResponse,
  served: ServedResource,
  list: ListResult,
  output: Output,
  query: URLSearchParams,
): Promise<void> {
  const meta = {
    resourceVersion: String(list.resourceVersion),
    ...(list.continue ? { continue: list.continue } : {}),
    ...(list.remainingItemCount !== undefined
      ? { remainingItemCount: list.remainingItemCount }
      : {}),
  };
  const metadata = JSON.stringify(meta);
  if (output.kind === "table") {
    const include = parseIncludeObject(query.get("includeObject"));
    const columns = columnsOf(served);
    const now = ctx.clock.now();
    const encoder = served.store.encoder;
    const objects = list.items.map((e) =>
      encoder.id === "json"
        ? e.object
        : (JSON.parse(served.store.cache.entryJson(e, encoder).toString()) as KubeObject),
    );
    const order = served.store.strategy.tableOrder;
    if (order !== undefined) objects.sort(order);
    const rows = objects.map((o) => tableRow(columns, o, include, now, served.store.strategy));
    sendJson(
      res,
      200,
      `{"kind":"Table","apiVersion":"${output.apiVersion}","metadata":${metadata},"columnDefinitions":${JSON.stringify(definitions(columns))},"rows":${JSON.stringify(rows)}}`,
    );
    return;
  }
  if (output.kind === "metadata") {
    const items = list.items.map((e) => partialObjectMetadata(e.object, served.store.strategy));
    sendJson(
      res,
      200,
      `{"kind":"PartialObjectMetadataList","apiVersion":"meta.k8s.io/v1","metadata":${metadata},"items":${JSON.stringify(items)}}`,
    );
    return;
  }
  const cache = served.store.cache;
  const encoder = served.store.encoder;
  if (output.protobuf) {
    const items = list.items.map((e) =>
      encoder.id === "json"
        ? e.object
        : (JSON.parse(cache.entryJson(e, encoder).toString()) as KubeObject),
    );
    const body = protobufList(apiVersionOf(served.def), served.def.listKind, meta, items);
    sendJson(res, 200, Buffer.from(body), PROTOBUF);
    return;
  }
  // A custom resource's list is unstructured in kube: its metadata's keys in Go's map order,
  // and the continue token written even when there is none.
  const listMeta =
    served.custom === undefined
      ? metadata
      : JSON.stringify({
          continue: list.continue ?? "",
          ...(list.remainingItemCount !== undefined
            ? { remainingItemCount: list.remainingItemCount }
            : {}),
          resourceVersion: String(list.resourceVersion),
        });
  await sendJsonList(
    res,
    `{"kind":"${served.def.listKind}","apiVersion":"${apiVersionOf(served.def)}","metadata":${listMeta},"items":[`,
    list.items,
    (e) => cache.entryJson(e, encoder),
    "]}",
    // kube's typed lists of built-in kinds carry apiVersion and kind once, on the list; a custom
    // resource's (unstructured) items keep theirs.
    served.custom === undefined ? typeMetaPrefix(served) : undefined,
  );
}

const typeMetaPrefixes = new WeakMap<ServedResource, Buffer>();

/** The bytes a stored object's JSON begins with: `{"apiVersion":"apps/v1","kind":"Deployment",`. */
function typeMetaPrefix(served: ServedResource): Buffer {
  let prefix = typeMetaPrefixes.get(served);
  if (prefix === undefined) {
    prefix = Buffer.from(
      `{"apiVersion":${JSON.stringify(apiVersionOf(served.def))},"kind":${JSON.stringify(served.def.kind)},`,
    );
    typeMetaPrefixes.set(served, prefix);
  }
  return prefix;
}
