import type { KubeObject } from "./objects.ts";
import { InvalidOptionError } from "./options.ts";

/**
 * Object keys, as client-go's `MetaNamespaceKeyFunc` makes them: `namespace/name` for a
 * namespaced object, `name` for a cluster-scoped one. Work queues, stores and listers key by
 * these strings, never by object identity.
 */

/** The key of `obj`. Throws a `TypeError` if the object has no `metadata.name`. */
export function objectKey(obj: KubeObject): string {
  const name = obj.metadata?.name;
  if (name === undefined || name === "") {
    throw new TypeError(`cannot make a key for a ${obj.kind ?? "object"} without metadata.name`);
  }
  const ns = obj.metadata?.namespace;
  return ns ? `${ns}/${name}` : name;
}

/** The key for a namespace (may be empty or undefined for cluster scope) and a name. */
export function keyOf(namespace: string | undefined, name: string): string {
  return namespace ? `${namespace}/${name}` : name;
}

/** A key split into its parts; `namespace` is absent for a cluster-scoped key. */
export interface KeyParts {
  namespace?: string;
  name: string;
}

/**
 * Splits a key made by {@link objectKey}. Throws a `TypeError` naming the key when it has more
 * than one `/` or an empty part.
 */
export function splitKey(key: string): KeyParts {
  const slash = key.indexOf("/");
  if (slash < 0) {
    if (key === "") throw new TypeError('invalid object key "": the name is empty');
    return { name: key };
  }
  const namespace = key.slice(0, slash);
  const name = key.slice(slash + 1);
  if (namespace === "" || name === "" || name.includes("/")) {
    throw new TypeError(
      `invalid object key ${JSON.stringify(key)}: expected "name" or "namespace/name"`,
    );
  }
  return { namespace, name };
}

/**
 * What an informer hands to a delete handler when it missed the deletion (the watch was down):
 * the last state it had, which may be stale. client-go's `DeletedFinalStateUnknown`.
 */
export class DeletedFinalStateUnknown<T extends KubeObject = KubeObject> {
  readonly key: string;
  readonly obj: T;

  constructor(options: { key: string; obj: T }) {
    if (typeof options?.key !== "string") {
      throw new InvalidOptionError(
        "DeletedFinalStateUnknown",
        "key",
        options?.key,
        "must be a string",
      );
    }
    this.key = options.key;
    this.obj = options.obj;
  }
}

/** The key of an object or of a tombstone (client-go's `DeletionHandlingMetaNamespaceKeyFunc`). */
export function deletionHandlingKey(obj: KubeObject | DeletedFinalStateUnknown): string {
  return obj instanceof DeletedFinalStateUnknown ? obj.key : objectKey(obj);
}
