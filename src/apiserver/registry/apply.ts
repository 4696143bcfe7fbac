import { ApiError, errors, type KubeObject } from "../../core/index.ts";
import { isNamespaced } from "../../resources/index.ts";
import type { FieldManager } from "../managedfields/field-manager.ts";
import { metaOf } from "./codec.ts";
import type { Store, WriteOptions } from "./store.ts";

/** Options of a server-side apply ({@link Store.apply}). */
export interface ApplyOptions extends WriteOptions {
  /** The applier (PatchOptions `fieldManager`, required). */
  readonly manager: string;
  /** Take the fields other managers own instead of failing with 409. */
  readonly force: boolean;
  /** `status` to apply to the status subresource. */
  readonly subresource?: string;
}

/** How often an apply that raced a create of the same name is retried as an update. */
const MAX_ATTEMPTS = 16;

/**
 * Server-side apply through `store` (kube's apply patcher): merges `config` into the object
 * for `options.manager` with `fm`, which records its ownership, or — if there is no object and
 * the apply is not to a subresource (404 then) — creates one from `config` alone. `created`
 * says which. A `metadata.resourceVersion` in `config` makes an update conditional (409 if
 * stale; ignored on a create, as kube does); conflicts with other managers are 409 unless
 * `force`; the name and namespace of what would be written must be the URL's (400).
 */
export async function applyToStore(
  store: Store,
  fm: FieldManager,
  namespace: string,
  name: string,
  config: KubeObject,
  options: ApplyOptions,
): Promise<{ object: KubeObject; created: boolean }> {
  const checkTarget = (o: KubeObject) => {
    const n = o.metadata?.name;
    if (n !== name)
      throw errors.badRequest(
        `the name of the object (${n ?? ""}) does not match the name on the URL (${name})`,
      );
    const ns = o.metadata?.namespace;
    if (isNamespaced(store.def) && ns && ns !== namespace)
      throw errors.badRequest(
        "the namespace of the provided object does not match the namespace sent on the request",
      );
  };
  const write: WriteOptions = { ...options, managedFieldsSet: true };
  const { manager, force, subresource } = options;
  for (let attempt = 1; ; attempt++) {
    try {
      const object = await store.guaranteedUpdate(
        namespace,
        name,
        (current) => {
          const applied = fm.apply(current, config, manager, force, subresource);
          checkTarget(applied);
          return applied;
        },
        write,
      );
      return { object, created: false };
    } catch (err) {
      const missing = err instanceof ApiError && err.code === 404 && err.details?.name === name;
      if (!missing || subresource !== undefined) throw err;
    }
    checkTarget(config);
    const fresh = fm.apply(undefined, config, manager, force);
    const m = metaOf(fresh);
    if (m.uid)
      throw errors.conflict(
        { group: store.def.group, resource: store.def.plural },
        name,
        `uid mismatch: the provided object specified uid ${m.uid}, and no existing object was found`,
      );
    // No resourceVersion on a create (kube ignores the applied one there); the create wipes the
    // other system fields itself (timestamps, deletion fields, selfLink).
    delete m.resourceVersion;
    try {
      return { object: await store.create(namespace, fresh, write), created: true };
    } catch (err) {
      const raced = err instanceof ApiError && err.reason === "AlreadyExists";
      if (!raced || attempt >= MAX_ATTEMPTS) throw err;
    }
  }
}
