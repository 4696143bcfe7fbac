import {
  ApiError,
  type Clock,
  errors,
  isAlreadyExists,
  type KubeObject,
} from "../../core/index.ts";
import { apiVersionOf, isNamespaced, type ResourceDefinition } from "../../resources/index.ts";
import { metaOf } from "../registry/codec.ts";
import type { Registry, ServedResource } from "../registry/registry.ts";
import type { Store } from "../registry/store.ts";
import type { UpdateOptions, WriteOptions, WriteTransform } from "../registry/types.ts";
import { builtinType } from "./builtin-schema.ts";
import { crdType } from "./crd-schema.ts";
import { FieldManager } from "./field-manager.ts";
import type { JsonObject } from "./schema.ts";
import type { VersionView } from "./updater.ts";

/** Options of {@link FieldManagers}. */
export interface FieldManagersOptions {
  /** The served resources whose writes are managed. */
  readonly registry: Registry;
  /** Stamps managedFields entries. */
  readonly clock: Clock;
}

/** Options of a server-side apply ({@link FieldManagers.apply}). */
export interface ApplyOptions extends WriteOptions {
  /** The applier (PatchOptions `fieldManager`, required). */
  readonly manager: string;
  /** Take the fields other managers own instead of failing with 409. */
  readonly force: boolean;
  /** `status` to apply to the status subresource. @default the object itself */
  readonly subresource?: string;
}

/** Who writes when the server writes itself (the system namespaces, a CRD's status). */
export const SERVER_MANAGER = "kube-apiserver";

/** How often an apply that raced a create of the same name is retried as an update. */
const MAX_APPLY_ATTEMPTS = 16;

/**
 * Field management of every served resource, above the registry: one {@link FieldManager} per
 * served kind and version, turned into the transform each write hands the store (kube's
 * handlers wrap their writes the same way), and server-side apply.
 *
 * A built-in kind's manager is made when first asked for: its kind's schema (deduced but for
 * metadata when the models table has none — events.k8s.io/v1 Events), with views of the other
 * versions stored under the same prefix, converted through the stored form. A custom
 * resource's comes from its CRD ({@link set}), before its version is installed.
 */
export class FieldManagers {
  readonly #o: FieldManagersOptions;
  readonly #managers = new WeakMap<ResourceDefinition, FieldManager>();

  constructor(options: FieldManagersOptions) {
    this.#o = options;
  }

  /** Sets the field manager of the resource version `def` (a CRD's, with its schema). */
  set(def: ResourceDefinition, manager: FieldManager): void {
    this.#managers.set(def, manager);
  }

  /** The field manager of a served resource. */
  of(served: ServedResource): FieldManager {
    let fm = this.#managers.get(served.def);
    if (fm === undefined) {
      fm = this.#builtin(served);
      this.#managers.set(served.def, fm);
    }
    return fm;
  }

  /**
   * The transform that records a write by `manager` in managedFields. `subresource` names the
   * subresource the entry records when the write itself is one to the object (a custom
   * resource's `/scale`).
   */
  transform(
    served: ServedResource,
    manager = SERVER_MANAGER,
    subresource?: string,
  ): WriteTransform {
    const fm = this.of(served);
    return (stored, object, written) => fm.update(stored, object, manager, written ?? subresource);
  }

  /** `options` with the transform of `manager`'s write. */
  managed<T extends UpdateOptions>(
    served: ServedResource,
    options: T,
    manager?: string,
    subresource?: string,
  ): T {
    return { ...options, transform: this.transform(served, manager, subresource) };
  }

  /**
   * Server-side apply (kube's apply patcher): merges `config` into the object for
   * `options.manager`, which records its ownership, or — if there is no object and the apply
   * is not to a subresource (404 then) — creates one from `config` alone. `created` says which.
   * A `metadata.resourceVersion` in `config` makes an update conditional (409 if stale; ignored
   * on a create, as kube does); conflicts with other managers are 409 unless `force`; the name
   * and namespace of what would be written must be the URL's (400).
   */
  async apply(
    served: ServedResource,
    namespace: string,
    name: string,
    config: KubeObject,
    options: ApplyOptions,
  ): Promise<{ object: KubeObject; created: boolean }> {
    const fm = this.of(served);
    const store = served.store;
    const checkTarget = (o: KubeObject) => checkApplyTarget(store, namespace, name, o);
    const { manager, force, subresource, ...rest } = options;
    const write: WriteOptions = { ...rest, managedFieldsSet: true };
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
          // A write to `scale` is one to the object, recorded under the subresource.
          subresource === undefined || subresource === "scale" ? write : { ...write, subresource },
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
      // No resourceVersion on a create (kube ignores the applied one there); the create wipes
      // the other system fields itself (timestamps, deletion fields, selfLink).
      delete m.resourceVersion;
      try {
        return { object: await store.create(namespace, fresh, write), created: true };
      } catch (err) {
        if (!isAlreadyExists(err) || attempt >= MAX_APPLY_ATTEMPTS) throw err;
      }
    }
  }

  #builtin(served: ServedResource): FieldManager {
    const typeOf = (s: ServedResource) =>
      builtinType(s.def.group, s.def.version, s.def.kind) ?? crdType(undefined);
    const id = (o: KubeObject) => o;
    const own = served.store.conversion;
    const views = new Map<string, VersionView>();
    for (const other of this.#o.registry.all()) {
      if (other === served || other.store.prefix !== served.store.prefix) continue;
      const theirs = other.store.conversion;
      const toStored = own.toStorage ?? id;
      const fromStored = own.fromStorage ?? id;
      views.set(apiVersionOf(other.def), {
        type: typeOf(other),
        toVersion: (o) => (theirs.fromStorage ?? id)(toStored(o)) as JsonObject,
        fromVersion: (o) => fromStored((theirs.toStorage ?? id)(o)) as JsonObject,
      });
    }
    return new FieldManager({
      apiVersion: apiVersionOf(served.def),
      kind: served.def.kind,
      type: typeOf(served),
      views: (v) => views.get(v),
      statusSubresource: served.store.strategy.statusSubresource ?? false,
      resetFields: served.store.strategy.resetFields ?? [],
      clock: this.#o.clock,
    });
  }
}

/** 400 unless what an apply would write names the URL's object (name, and namespace if any). */
function checkApplyTarget(store: Store, namespace: string, name: string, o: KubeObject): void {
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
}
