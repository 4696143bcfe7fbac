import type { CallOptions, ResourceClient } from "../client/index.ts";
import { isConflict, isNotFound, type KubeObject } from "../core/index.ts";

/** True if `obj` carries `finalizer`. */
export function hasFinalizer(obj: KubeObject, finalizer: string): boolean {
  return obj.metadata?.finalizers?.includes(finalizer) ?? false;
}

/** How many times a finalizer change retries after a conflict, re-reading the object each time. */
const ATTEMPTS = 5;

/** A change of one finalizer of the stored object: added (`add`) or removed. */
function finalizerChange(add: boolean) {
  return <T extends KubeObject>(
    client: ResourceClient<T>,
    obj: T,
    finalizer: string,
    options: CallOptions = {},
  ): Promise<T> => change(client, obj, finalizer, add, options);
}

/**
 * Adds `finalizer` to the stored object and returns the result; does nothing (no request) if
 * `obj` already has it. The patch carries `obj`'s resourceVersion as a precondition, so it never
 * overwrites a change it has not seen; on a conflict it re-reads and tries again (the change is
 * idempotent), up to 5 times. A finalizer cannot be added once the object is being deleted
 * (the server refuses with 422); that error is thrown as is.
 */
export const addFinalizer = finalizerChange(true);

/**
 * Removes `finalizer` from the stored object, like {@link addFinalizer} in reverse. If the
 * object is gone meanwhile, resolves with its last known state without the finalizer.
 */
export const removeFinalizer = finalizerChange(false);

async function change<T extends KubeObject>(
  client: ResourceClient<T>,
  obj: T,
  finalizer: string,
  add: boolean,
  options: CallOptions,
): Promise<T> {
  const name = obj.metadata?.name;
  if (!name) throw new TypeError("cannot change the finalizers of an object without metadata.name");
  const ns = obj.metadata?.namespace;
  const scoped = ns ? client.inNamespace(ns) : client;
  let current = obj;
  for (let attempt = 1; ; attempt++) {
    if (hasFinalizer(current, finalizer) === add) return current;
    const finalizers = (current.metadata?.finalizers ?? []).filter((f) => f !== finalizer);
    if (add) finalizers.push(finalizer);
    try {
      return await scoped.patch(
        name,
        "merge",
        { metadata: { finalizers, resourceVersion: current.metadata?.resourceVersion } },
        options,
      );
    } catch (err) {
      if (!isConflict(err) || attempt >= ATTEMPTS) throw err;
      try {
        current = await scoped.get(name, options);
      } catch (getErr) {
        // Removing a finalizer from an object that is gone meanwhile: nothing left to do.
        if (!add && isNotFound(getErr)) return withoutFinalizer(current, finalizer);
        throw getErr;
      }
    }
  }
}

function withoutFinalizer<T extends KubeObject>(obj: T, finalizer: string): T {
  return {
    ...obj,
    metadata: {
      ...obj.metadata,
      finalizers: (obj.metadata?.finalizers ?? []).filter((f) => f !== finalizer),
    },
  };
}
