import type { ResourceClient } from "../client/index.ts";
import type { KubeObject } from "../core/index.ts";

/** Options of {@link waitFor}. */
export interface WaitForOptions {
  /** Stops waiting: rejects with `signal.reason`. */
  signal?: AbortSignal;
  /** Describes what is awaited, for the error when the watch ends first. */
  description?: string;
}

/**
 * Resolves once the object `name` is in a state `test` accepts (`undefined` when it does not
 * exist), as the API server reports it: it lists, then watches from the list's resourceVersion,
 * testing every change; it never polls. Resolves with the accepted state.
 *
 * ```ts
 * await waitFor(client.resource(namespaces), "user-ann", (ns) => ns !== undefined);
 * await waitFor(users, "ann", (u) => u === undefined); // deleted
 * ```
 */
export async function waitFor<T extends KubeObject>(
  resource: ResourceClient<T>,
  name: string,
  test: (obj: T | undefined) => boolean,
  options: WaitForOptions = {},
): Promise<T | undefined> {
  const stop = new AbortController();
  const onAbort = () => stop.abort(options.signal?.reason);
  options.signal?.addEventListener("abort", onAbort, { once: true });
  try {
    for (;;) {
      options.signal?.throwIfAborted();
      const list = await resource.list({
        fieldSelector: `metadata.name=${name}`,
        signal: stop.signal,
      });
      let current: T | undefined = list.items[0];
      if (test(current)) return current;
      try {
        for await (const e of resource.watch({
          fieldSelector: `metadata.name=${name}`,
          resourceVersion: list.resourceVersion,
          signal: stop.signal,
        })) {
          if (e.type === "BOOKMARK") continue;
          current = e.type === "DELETED" ? undefined : e.object;
          if (test(current)) return current;
        }
      } catch (err) {
        if (stop.signal.aborted) throw err;
        // The watch broke (410, a restart): list again.
      }
    }
  } finally {
    options.signal?.removeEventListener("abort", onAbort);
    stop.abort();
  }
}
