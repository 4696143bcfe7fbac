import { readScale } from "../registry/scale.ts";
import { type ListParams, parseListParams } from "./list-options.ts";
import { negotiateFor, type Output } from "./negotiate.ts";
import { encoderFor, sendList, sendObject } from "./output.ts";
import { sendJson } from "./respond.ts";
import type { VerbHandler, VerbRequest } from "./types.ts";
import { streamWatch, watchDeadline } from "./watch.ts";

/*
 * The reading verbs: get, list and watch (kube's GetResource, ListResource and the watch it
 * serves from ListResource). Each negotiates its output and parses the list parameters first,
 * as kube's handlers do for every GET.
 */

/** True if the query asks for a watch (`watch` present and not false). */
export function isWatch(q: URLSearchParams): boolean {
  const w = q.get("watch");
  return w !== null && w !== "false" && w !== "0";
}

/** The output and the list parameters of a GET; a watch of one object selects its name. */
function readParams(v: VerbRequest): { output: Output; params: ListParams } {
  const { r, served } = v;
  const protobuf = served.custom === undefined;
  const collection = r.name === "";
  const output = negotiateFor(
    v.res,
    v.req.headers.accept,
    r.subresource === "",
    protobuf,
    collection,
  );
  const params = parseListParams(
    v.query,
    served.store.fieldSelectors,
    served.custom !== undefined,
    r.name !== "" && isWatch(v.query) ? r.name : "",
  );
  return { output, params };
}

/** GET of one object (or its `status`, or its `scale`). */
export const get: VerbHandler = async (v) => {
  const { ctx, res, r, served } = v;
  const { output } = readParams(v);
  if (r.subresource === "scale")
    return sendJson(res, 200, await readScale(served, r.namespace, r.name));
  const rv = v.query.get("resourceVersion") ?? undefined;
  const object = await served.store.get(r.namespace, r.name, rv);
  return sendObject(ctx, res, 200, served, object, output, v.query);
};

/** GET of a collection. */
export const list: VerbHandler = async (v) => {
  const { output, params } = readParams(v);
  const result = await v.served.store.list(v.r.namespace, params);
  return sendList(v.ctx, v.res, v.served, result, output, v.query);
};

/**
 * A watch (GET with `watch`): from the state first (a streaming list, or a legacy watch from
 * "now") at least as fresh as asked — rv "" is a consistent read, "0" any state, N not older
 * than N — or only the changes after rv ("start at exact", also for sendInitialEvents=false).
 */
export const watch: VerbHandler = async (v) => {
  const { ctx, req, res, served } = v;
  const { output, params } = readParams(v);
  const store = served.store;
  const cache = store.cache;
  const rv = params.resourceVersion ?? "";
  // Aborts the wait for a fresh cache if the client goes; removed afterwards, since a
  // keep-alive socket serves many requests one after another.
  const abort = new AbortController();
  const onClose = () => abort.abort();
  req.socket.once("close", onClose);
  try {
    let startRv: number | undefined;
    let initialEvents = true;
    if (rv !== "" && rv !== "0" && params.sendInitialEvents !== true) {
      startRv = Number(rv);
    } else {
      if (rv === "")
        await cache.waitUntilFresh(await ctx.registry.storage.currentRevision(), abort.signal);
      else if (rv !== "0") await cache.waitUntilFresh(Number(rv), abort.signal);
      initialEvents = params.sendInitialEvents !== false;
    }
    const timeout = params.timeoutSeconds === 0 ? undefined : params.timeoutSeconds;
    const watcher = store.watch({
      filter: { namespace: v.r.namespace, label: params.label, field: params.field },
      encoder: encoderFor(ctx, served, output, v.query),
      ...(startRv === undefined ? {} : { startRv }),
      initialEvents,
      allowBookmarks: params.allowWatchBookmarks,
      // Only a streaming list asked for with sendInitialEvents=true (which never has a startRv)
      // ends its initial events with the bookmark, as kube: a plain watch's synthetic ADDED
      // events (rv "" or "0") do not.
      initialEventsEndBookmark: params.allowWatchBookmarks && params.sendInitialEvents === true,
      deadline: watchDeadline(ctx.clock, timeout, ctx.minRequestTimeoutSeconds),
    });
    const { group, version, plural } = served.def;
    await streamWatch(req, res, watcher, (events) =>
      ctx.metrics.watchEvents(group, version, plural, events),
    );
  } finally {
    req.socket.off("close", onClose);
  }
};
