/**
 * The `ListerWatcher` seam: what a reflector consumes. A `ResourceClient` provides it through
 * {@link listerWatcherFor}; tests may provide a fake (kontroller/testing's `FakeListerWatcher`).
 */
import type { ListResult, ResourceClient } from "../client/index.ts";
import type { FieldSelector, KubeObject, LabelSelector, WatchEvent } from "../core/index.ts";

/** Options of {@link ListerWatcher.list}. */
export interface ListCall {
  readonly resourceVersion?: string;
  readonly limit?: number;
  readonly continue?: string;
  readonly signal: AbortSignal;
}

/** Options of {@link ListerWatcher.watch}. */
export interface WatchCall {
  readonly resourceVersion: string;
  readonly timeoutSeconds: number;
  readonly allowWatchBookmarks: boolean;
  readonly sendInitialEvents?: boolean;
  readonly resourceVersionMatch?: "NotOlderThan";
  /** Aborting closes the stream. */
  readonly signal: AbortSignal;
}

/**
 * Lists and watches one collection (one resource, namespace and selector set).
 *
 * `watch` resolves once the server has accepted the watch (rejecting with why it did not), with
 * the events to iterate in batches as they arrive; iteration ends when the server closes the
 * stream and throws when it fails (an `ApiError` for an ERROR event, a `DecodeError` for a bad
 * line, a `TransportError` for a broken connection).
 */
export interface ListerWatcher<T extends KubeObject> {
  list(call: ListCall): Promise<ListResult<T>>;
  watch(call: WatchCall): Promise<AsyncIterable<readonly WatchEvent<T>[]>>;
}

/** Server-side filters every list and watch of an informer carries. */
export interface CollectionSelectors {
  labelSelector?: string | LabelSelector;
  fieldSelector?: string | FieldSelector;
}

/** The `ListerWatcher` of a resource client (bound to a namespace or not), with selectors. */
export function listerWatcherFor<T extends KubeObject>(
  client: ResourceClient<T>,
  selectors: CollectionSelectors = {},
): ListerWatcher<T> {
  return {
    list: (call) =>
      client.list({
        ...selectors,
        ...(call.resourceVersion === undefined ? {} : { resourceVersion: call.resourceVersion }),
        ...(call.limit === undefined ? {} : { limit: call.limit }),
        ...(call.continue === undefined ? {} : { continue: call.continue }),
        signal: call.signal,
      }),
    watch: (call) => client.openWatch({ ...selectors, ...call }),
  };
}
