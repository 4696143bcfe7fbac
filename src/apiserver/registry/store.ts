import { randomUUID } from "node:crypto";
import { errors, type GroupResource, type KubeObject, type StatusCause } from "../../core/index.ts";
import { apiVersionOf, isNamespaced, type ResourceDefinition } from "../../resources/index.ts";
import type { KeyValue, Storage } from "../storage/storage.ts";
import { isStorageError } from "../storage/storage-error.ts";
import type { ObjectAttrs, WatchEncoder } from "../watchcache/cache-event.ts";
import type { CacheWatcher } from "../watchcache/cache-watcher.ts";
import type { WatchCache } from "../watchcache/watch-cache.ts";
import { cloneObject, decodeFromStorage, encodeForStorage, metaOf } from "./codec.ts";
import {
  toServedForm,
  toStoredForm,
  transformInServedForm,
  type VersionConversion,
} from "./conversion.ts";
import { checkPreconditions, type DeleteOptions } from "./deletion.ts";
import { planDeletion } from "./deletion-plan.ts";
import { fieldValidationWarnings } from "./field-validation.ts";
import { GENERATE_NAME_ATTEMPTS, generateName } from "./generate-name.ts";
import { throwIfInvalid, validateMetaUpdate, validateWithMeta } from "./object-meta.ts";
import { listObjects } from "./paged-list.ts";
import { retryOnConflict } from "./retry.ts";
import { finishing, type StoreOptions } from "./store-options.ts";
import { attrsOf, type Strategy } from "./strategy.ts";
import { subresourceKind } from "./subresource-kind.ts";
import {
  checkNamespace,
  keepStoredStatus,
  keepSystemFields,
  prepareCreateMeta,
  specChanged,
  withStatusOf,
} from "./system-fields.ts";
import type { DeleteOutcome, ListQuery, ListResult, UpdateOptions, WriteOptions } from "./types.ts";

/**
 * The generic registry of one resource at one version (kube's generic `registry.Store`): a
 * thin shell over {@link Storage} and its {@link WatchCache}. Each write reads the stored
 * object, applies the rules — version conversion (conversion.ts), system fields
 * (system-fields.ts), field validation (field-validation.ts), the kind's strategy, metadata
 * validation (object-meta.ts) — and compare-and-swaps the result, again from the read on a
 * conflict ({@link retryOnConflict}). Field management is the caller's: it comes with each
 * write as a transform ({@link WriteOptions.transform}).
 */
export class Store {
  readonly def: ResourceDefinition;
  readonly #o: StoreOptions;
  readonly #gr: GroupResource;
  readonly #namespaced: boolean;
  readonly #conversion: VersionConversion;

  constructor(options: StoreOptions) {
    this.#o = options;
    this.def = options.def;
    this.#gr = { group: options.def.group, resource: options.def.plural };
    this.#namespaced = isNamespaced(options.def);
    this.#conversion = {
      apiVersion: apiVersionOf(options.def),
      kind: options.def.kind,
      ...(options.storageApiVersion ? { storageApiVersion: options.storageApiVersion } : {}),
      ...(options.fromStorage ? { fromStorage: options.fromStorage } : {}),
      ...(options.toStorage ? { toStorage: options.toStorage } : {}),
    };
  }

  get strategy(): Strategy {
    return this.#o.strategy;
  }

  get encoder(): WatchEncoder {
    return this.#o.encoder;
  }

  get cache(): WatchCache {
    return this.#o.cache;
  }

  /** Storage prefix, ending in `/`: versions with the same prefix are one resource. */
  get prefix(): string {
    return this.#o.prefix;
  }

  /** How this version converts to and from the stored form. */
  get conversion(): VersionConversion {
    return this.#conversion;
  }

  /** Label and field values of an object (stored form), for selectors. */
  attrs(object: KubeObject): ObjectAttrs {
    return attrsOf(this.#o.strategy, object);
  }

  /** Field selectors this resource supports. */
  get fieldSelectors(): readonly string[] {
    const base = this.#namespaced ? ["metadata.name", "metadata.namespace"] : ["metadata.name"];
    return [...base, ...(this.#o.strategy.fieldSelectors ?? [])];
  }

  key(namespace: string, name: string): string {
    return this.#namespaced ? `${this.#o.prefix}${namespace}/${name}` : `${this.#o.prefix}${name}`;
  }

  /** The object, at the latest revision (or any, for resourceVersion "0"). */
  async get(namespace: string, name: string, resourceVersion?: string): Promise<KubeObject> {
    const key = this.key(namespace, name);
    if (resourceVersion !== undefined && resourceVersion !== "") {
      await this.#o.cache.waitUntilFresh(Number(resourceVersion));
      const e = this.#o.cache.get(key);
      if (e === undefined) throw errors.notFound(this.#gr, name);
      return this.#out(e.object);
    }
    const kv = await this.#o.storage.get(key);
    if (kv === undefined) throw errors.notFound(this.#gr, name);
    return this.#out(this.#decode(kv));
  }

  /** Lists objects (see kube's list semantics for resourceVersion, limit and continue). */
  list(namespace: string, q: ListQuery, signal?: AbortSignal): Promise<ListResult> {
    const source = {
      storage: this.#o.storage,
      cache: this.#o.cache,
      prefix: this.#namespaced && namespace ? `${this.#o.prefix}${namespace}/` : this.#o.prefix,
      attrs: (o: KubeObject) => this.attrs(o),
      decode: (kv: KeyValue) => this.#decode(kv),
    };
    return listObjects(source, namespace, q, signal);
  }

  /** A watch on the cache; see {@link WatchCache.watch}. */
  watch(request: Parameters<WatchCache["watch"]>[0]): CacheWatcher {
    return this.#o.cache.watch({ ...request, encoder: request.encoder ?? this.#o.encoder });
  }

  /**
   * Creates an object (POST). With `generateName` and no name, names are generated until one
   * is free (409 AlreadyExists after {@link GENERATE_NAME_ATTEMPTS}).
   */
  async create(
    namespace: string,
    body: KubeObject,
    options: WriteOptions = {},
  ): Promise<KubeObject> {
    const strategy = this.#o.strategy;
    const object = this.#in(body);
    const meta = metaOf(object);
    checkNamespace(this.#namespaced, namespace, meta.namespace);
    prepareCreateMeta(meta, {
      namespace,
      namespaced: this.#namespaced,
      trackGeneration: strategy.trackGeneration ?? false,
      uid: randomUUID(),
      nowMs: this.#o.clock.now(),
    });
    const warnings = this.#normalize(object, options);
    this.#transform(undefined, object, options, undefined);
    // The name is generated before the kind's own preparation, which may use it (a Job's labels).
    const generate = !meta.name && Boolean(meta.generateName);
    const random = strategy.nameIsGenerateName ? undefined : (this.#o.random ?? Math.random);
    const nextName = () => generateName(meta.generateName!, random);
    if (generate) meta.name = nextName();
    strategy.prepareForCreate?.(object, options.requester);
    this.#validate(
      object,
      (kind) => validateWithMeta(object, strategy.nameRule ?? "subdomain", this.#namespaced, kind),
      strategy.validate?.(object),
      strategy.validateCreate?.(object),
    );
    if (this.#namespaced) await this.#o.admitNamespace?.(namespace, this.#gr, meta.name ?? "");
    const dryRun = options.dryRun ?? false;
    const begun = await this.#o.lifecycle?.beginCreate?.(object, dryRun);
    return finishing(begun, async (stored) => {
      for (let attempt = 1; ; attempt++) {
        const key = this.key(namespace, meta.name!);
        if (await this.#tryCreate(key, object, options)) {
          if (!dryRun) stored();
          options.warnings?.push(...warnings);
          return this.#out(object);
        }
        if (!generate || attempt >= GENERATE_NAME_ATTEMPTS) {
          const existing = await this.#o.storage.get(key);
          const deleting =
            existing !== undefined && Boolean(this.#decode(existing).metadata?.deletionTimestamp);
          throw errors.alreadyExists(this.#gr, meta.name!, deleting);
        }
        meta.name = nextName();
      }
    });
  }

  /** Writes a new object under `key` (checks only, for a dry run); false if the key is taken. */
  async #tryCreate(key: string, object: KubeObject, options: WriteOptions): Promise<boolean> {
    if (options.dryRun) return (await this.#o.storage.get(key)) === undefined;
    try {
      const kv = await this.#o.storage.create(key, encodeForStorage(object));
      metaOf(object).resourceVersion = String(kv.modRevision);
      return true;
    } catch (err) {
      if (!isStorageError(err, "KeyExists")) throw err;
      return false;
    }
  }

  /**
   * Replaces an object (PUT), or its status (`subresource: "status"`), with optimistic
   * concurrency on `metadata.resourceVersion`.
   */
  async update(
    namespace: string,
    name: string,
    body: KubeObject,
    options: UpdateOptions = {},
  ): Promise<KubeObject> {
    const input = this.#in(body);
    const meta = input.metadata ?? {};
    checkNamespace(this.#namespaced, namespace, meta.namespace);
    if (meta.name !== undefined && meta.name !== name) {
      throw errors.badRequest(
        `the name of the object (${meta.name}) does not match the name on the URL (${name})`,
      );
    }
    if (!meta.resourceVersion && !(this.#o.strategy.allowUnconditionalUpdate ?? true)) {
      throw errors.invalid(this.def.kind, this.def.group, name, [
        {
          reason: "FieldValueInvalid",
          field: "metadata.resourceVersion",
          message: "Invalid value: 0x0: must be specified for an update",
        },
      ]);
    }
    return this.guaranteedUpdate(namespace, name, () => cloneObject(input), options);
  }

  /**
   * Reads the stored object, applies `mutate` to a copy (in this version's form) and writes the
   * result if it changed, retrying on concurrent writes. A `metadata.resourceVersion` in the
   * result that is not the stored one is a 409 Conflict. A deleting object left with no
   * finalizers is removed.
   */
  guaranteedUpdate(
    namespace: string,
    name: string,
    mutate: (current: KubeObject) => KubeObject,
    options: UpdateOptions = {},
  ): Promise<KubeObject> {
    const key = this.key(namespace, name);
    return retryOnConflict(this.#gr, name, async () => {
      const { kv, stored } = await this.#read(key, name);
      const next = this.#in(mutate(this.#out(cloneObject(stored))));
      const rv = metaOf(next).resourceVersion;
      if (rv && rv !== String(kv.modRevision)) throw errors.staleResourceVersion(this.#gr, name);
      const warnings: string[] = [];
      const object = this.#prepareUpdate(next, stored, options, warnings);
      const done = (o: KubeObject) => {
        options.warnings?.push(...warnings);
        return this.#out(o);
      };
      const meta = metaOf(object);
      const blocked = this.#o.strategy.blocksDeletion?.(object) ?? false;
      if (meta.deletionTimestamp && (meta.finalizers ?? []).length === 0 && !blocked) {
        if (!options.dryRun) {
          const { revision } = await this.#o.storage.delete(key, kv.modRevision);
          meta.resourceVersion = String(revision);
          await this.#o.lifecycle?.afterDelete?.(object);
        }
        return done(object);
      }
      const begun = await this.#o.lifecycle?.beginUpdate?.(object, stored, options.dryRun ?? false);
      return finishing(begun, async (written) => {
        const encoded = encodeForStorage(object);
        if (encoded === kv.value) {
          written(); // what is stored stays, claims and all
          return done(stored); // no-op: no new revision, no event
        }
        if (options.dryRun) meta.resourceVersion = stored.metadata!.resourceVersion!;
        else {
          const kvWritten = await this.#o.storage.update(key, encoded, kv.modRevision);
          meta.resourceVersion = String(kvWritten.modRevision);
          written();
        }
        return done(object);
      });
    });
  }

  /** POST to a subresource of object `name` (a pod's `binding`): see `prepareSubresource`. */
  createSubresource(
    namespace: string,
    name: string,
    subresource: string,
    body: KubeObject,
    options: WriteOptions = {},
  ): Promise<KubeObject> {
    return this.guaranteedUpdate(namespace, name, () => cloneObject(body), {
      ...options,
      subresource,
    });
  }

  /**
   * Deletes an object, or marks it for deletion while it has finalizers (or its strategy
   * blocks the deletion), checking the preconditions against the stored object.
   */
  delete(
    namespace: string,
    name: string,
    options: DeleteOptions = {},
    write: WriteOptions = {},
  ): Promise<DeleteOutcome> {
    const key = this.key(namespace, name);
    return retryOnConflict(this.#gr, name, async () => {
      const { kv, stored } = await this.#read(key, name);
      const meta = metaOf(stored);
      checkPreconditions(this.#gr, name, meta, options);
      this.#o.strategy.beforeDelete?.(stored);
      const plan = planDeletion(stored, this.#o.strategy, options, this.#o.clock.now());
      let current = stored;
      let revision = kv.modRevision;
      const encoded = plan.write && encodeForStorage(plan.write);
      if (plan.write !== undefined && encoded !== kv.value) {
        current = plan.write;
        if (!write.dryRun) {
          revision = (await this.#o.storage.update(key, encoded!, kv.modRevision)).modRevision;
          metaOf(current).resourceVersion = String(revision);
          this.#o.onDeletionWritten?.(name, revision);
        }
      }
      if (!plan.remove || write.dryRun) return { object: this.#out(current), deleted: plan.remove };
      const removed = await this.#o.storage.delete(key, revision);
      metaOf(current).resourceVersion = String(removed.revision);
      this.#o.onDeletionWritten?.(name, removed.revision);
      await this.#o.lifecycle?.afterDelete?.(current);
      return { object: this.#out(current), deleted: true };
    });
  }

  /** Runs the write's transform (field management) in this version's terms. */
  #transform(
    stored: KubeObject | undefined,
    object: KubeObject,
    options: WriteOptions,
    subresource: string | undefined,
  ): void {
    if (options.transform === undefined) return;
    transformInServedForm(this.#conversion, options.transform, stored, object, subresource);
  }

  /** The stored object under `key` (404 for `name` if there is none), decoded. */
  async #read(key: string, name: string): Promise<{ kv: KeyValue; stored: KubeObject }> {
    const kv = await this.#o.storage.get(key);
    if (kv === undefined) throw errors.notFound(this.#gr, name);
    return { kv, stored: this.#decode(kv) };
  }

  #decode(kv: KeyValue): KubeObject {
    return this.#o.decode ? this.#o.decode(kv) : decodeFromStorage(kv);
  }

  /** The object an update stores, from the mutated `next` and the `stored` one. */
  #prepareUpdate(
    next: KubeObject,
    stored: KubeObject,
    options: UpdateOptions,
    warnings: string[],
  ): KubeObject {
    const subresource = options.subresource;
    const strategy = this.#o.strategy;
    let object: KubeObject;
    if (subresource === "status") {
      // kube decodes the whole body (pruning, defaults) before taking its status.
      warnings.push(...this.#normalize(next, options));
      // An apply to /status worked out the managedFields; the rest of metadata stays stored.
      object = withStatusOf(
        cloneObject(stored),
        next,
        options.managedFieldsSet ? { entries: next.metadata?.managedFields } : undefined,
      );
    } else if (subresource !== undefined) {
      // A body of the kind itself (a pod's ephemeral containers) is decoded as any other.
      if (subresourceKind(subresource) === undefined)
        warnings.push(...this.#normalize(next, options));
      object =
        strategy.prepareSubresource?.(
          subresource,
          next,
          cloneObject(stored),
          this.#o.clock.now(),
        ) ?? next;
    } else {
      object = next;
      warnings.push(...this.#normalize(object, options));
      if (strategy.statusSubresource) keepStoredStatus(object, stored);
    }
    // A pod's binding is written without a field manager, as kube's BindingREST does.
    if (subresource !== "binding") this.#transform(stored, object, options, subresource);
    const meta = metaOf(object);
    const old = stored.metadata!;
    keepSystemFields(meta, old, this.#namespaced);
    if (subresource === undefined) strategy.prepareForUpdate?.(object, stored);
    if (
      strategy.trackGeneration &&
      specChanged(object, stored, strategy.statusSubresource ?? false)
    )
      meta.generation = (old.generation ?? 0) + 1;
    this.#validate(
      object,
      (kind) => [
        ...validateMetaUpdate(object, stored, strategy.nameRule, this.#namespaced),
        ...kind,
      ],
      strategy.validate?.(object),
      strategy.validateUpdate?.(object, stored, subresource),
    );
    return object;
  }

  /**
   * Drops unknown fields and applies the defaults of the schema and of the kind, as kube's
   * decoding of a body does; see {@link fieldValidationWarnings}.
   */
  #normalize(object: KubeObject, options: WriteOptions): string[] {
    const removed = this.#o.normalize?.(object) ?? [];
    this.#o.strategy.defaults?.(object);
    return fieldValidationWarnings(
      removed,
      options.duplicateFields ?? [],
      options.fieldValidation,
      this.def,
    );
  }

  /** Throws kube's 422 for the kind's causes (`lists`, the schema's) and `withMeta`'s. */
  #validate(
    object: KubeObject,
    withMeta: (kind: StatusCause[]) => StatusCause[],
    ...lists: (StatusCause[] | undefined)[]
  ): void {
    const kind = [...lists.flatMap((l) => l ?? []), ...(this.#o.validate?.(object) ?? [])];
    const c = this.#conversion;
    throwIfInvalid(c.kind, c.storageApiVersion ?? c.apiVersion, object, withMeta(kind));
  }

  #in(body: KubeObject): KubeObject {
    return toStoredForm(this.#conversion, body);
  }

  #out(object: KubeObject): KubeObject {
    return toServedForm(this.#conversion, object);
  }
}
