import { randomUUID } from "node:crypto";
import {
  ApiError,
  type Clock,
  deepEqual,
  errors,
  type FieldSelector,
  type GroupResource,
  type KubeObject,
  type LabelSelector,
  type StatusCause,
} from "../../core/index.ts";
import { apiVersionOf, isNamespaced, type ResourceDefinition } from "../../resources/index.ts";
import type { FieldManager } from "../managedfields/field-manager.ts";
import type { KeyValue, Storage } from "../storage/storage.ts";
import { isStorageError } from "../storage/storage-error.ts";
import type { CacheEntry, ObjectAttrs, WatchEncoder } from "../watchcache/cache-event.ts";
import type { CacheFilter, CacheWatcher } from "../watchcache/cache-watcher.ts";
import type { WatchCache } from "../watchcache/watch-cache.ts";
import { type ApplyOptions, applyToStore } from "./apply.ts";
import { cloneObject, decodeFromStorage, encodeForStorage, metaOf } from "./codec.ts";
import { type DeleteOptions, finalizersForDeletion, timestamp } from "./deletion.ts";
import { validateObjectMeta, validateObjectMetaUpdate } from "./object-meta.ts";
import { listFromStorage } from "./paged-list.ts";
import type { Strategy } from "./strategy.ts";

/** Options of {@link Store}. */
export interface StoreOptions {
  /** The kind at the version this store serves. */
  readonly def: ResourceDefinition;
  readonly storage: Storage;
  /** The watch cache over `prefix` (shared by the versions of one resource). */
  readonly cache: WatchCache;
  /** Storage prefix, ending in `/`. */
  readonly prefix: string;
  readonly strategy: Strategy;
  readonly clock: Clock;
  /** The apiVersion objects are stored at. @default the served apiVersion */
  readonly storageApiVersion?: string;
  /** Admission for writes into a namespace (existence, Terminating). */
  readonly admitNamespace?: (namespace: string, gr: GroupResource, name: string) => Promise<void>;
  /**
   * Called once a DELETE has written its effect to storage — the object marked for deletion or
   * gone — with the revision of that write.
   */
  readonly onDeletionWritten?: (name: string, revision: number) => void;
  /** Extra validation (a custom resource's schema), run after the strategy's. */
  readonly validate?: (object: KubeObject) => StatusCause[];
  /**
   * Normalizes an object on write as kube's decoding does: drops the fields its schema does not
   * have (a built-in kind's Go type, a custom resource's structural schema) and applies
   * defaults. Returns the paths of the fields dropped; the store turns them into warnings, or a
   * 400 with fieldValidation=Strict.
   */
  readonly normalize?: (object: KubeObject) => string[];
  /** The encoder for this version's output (rewrites apiVersion for other versions). */
  readonly encoder: WatchEncoder;
  /**
   * How a stored value becomes the object — for custom resources, pruned and defaulted with the
   * storage version's schema, as kube reads them from etcd. The watch cache must decode the same
   * way. @default decodeFromStorage
   */
  readonly decode?: (kv: KeyValue) => KubeObject;
  /** Converts a stored object to this version (the inverse of `toStorage`). */
  readonly fromStorage?: (object: KubeObject) => KubeObject;
  /** Converts an object of this version to the stored form. */
  readonly toStorage?: (object: KubeObject) => KubeObject;
  /**
   * Keeps `metadata.managedFields` and merges server-side applies (objects of this version).
   * Without one, writes leave managedFields as they come and {@link Store.apply} is refused.
   */
  readonly fieldManager?: FieldManager;
}

/** List parameters after parsing and validation. */
export interface ListQuery {
  readonly label: LabelSelector;
  readonly field: FieldSelector;
  readonly resourceVersion?: string;
  readonly resourceVersionMatch?: "Exact" | "NotOlderThan";
  readonly limit?: number;
  readonly continue?: string;
}

/** A list read: the items (with memoized JSON), its resourceVersion and paging. */
export interface ListResult {
  readonly items: readonly CacheEntry[];
  readonly resourceVersion: number;
  readonly continue?: string;
  readonly remainingItemCount?: number;
}

/** The outcome of a DELETE. */
export interface DeleteOutcome {
  /** The object: still there (finalizers pending) or its last state. */
  readonly object: KubeObject;
  /** True if the object is gone; false if it is only marked for deletion. */
  readonly deleted: boolean;
}

/** How unknown fields in a write are treated (kube's `fieldValidation`). */
export type FieldValidation = "Ignore" | "Warn" | "Strict";

/** Whether a write is real or only checked (`dryRun=All`), and how unknown fields count. */
export interface WriteOptions {
  readonly dryRun?: boolean;
  /**
   * Unknown fields are dropped silently (Ignore), dropped with a warning (Warn: kube's default),
   * or refused with 400 BadRequest (Strict).
   * @default "Warn"
   */
  readonly fieldValidation?: FieldValidation;
  /** Receives the warnings of a successful write (`unknown field "spec.x"`). */
  readonly warnings?: string[];
  /**
   * Keys the request body had twice in one object (the HTTP layer finds them in the raw
   * text): under `fieldValidation` they count as unknown fields do, as `duplicate field "x"`.
   */
  readonly duplicateFields?: readonly string[];
  /**
   * Who writes, for `metadata.managedFields`: the request's `fieldManager`, else its
   * User-Agent's product (an empty one is recorded as `unknown`, as kube does).
   * @default "kube-apiserver" (a write the server makes itself)
   */
  readonly manager?: string;
  /**
   * The subresource the managedFields entry of this write names when the write itself is one
   * to the main resource (a custom resource's `/scale`).
   */
  readonly managerSubresource?: string;
  /**
   * The object's managedFields are already worked out (a server-side apply): the write keeps
   * them instead of being recorded as an update.
   */
  readonly managedFieldsSet?: boolean;
}

const MAX_UPDATE_ATTEMPTS = 16;
const GENERATE_NAME_ATTEMPTS = 8;
const NAME_CHARS = "bcdfghjklmnpqrstvwxz2456789";

/**
 * The generic registry of one resource at one version (kube's generic `registry.Store`):
 * metadata, validation, optimistic concurrency, subresources, finalizers and deletion, on top
 * of the {@link Storage} and its {@link WatchCache}. (Over 400 lines because create, update and
 * delete share the system-field and concurrency rules written down here; kind-specific rules
 * live in strategies, paged reads in paged-list.ts.)
 */
export class Store {
  readonly def: ResourceDefinition;
  readonly #o: StoreOptions;
  readonly #gr: GroupResource;
  readonly #apiVersion: string;

  constructor(options: StoreOptions) {
    this.#o = options;
    this.def = options.def;
    this.#gr = { group: options.def.group, resource: options.def.plural };
    this.#apiVersion = apiVersionOf(options.def);
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

  /** Label and field values of an object (stored form), for selectors. */
  attrs(object: KubeObject): ObjectAttrs {
    return attrsOf(this.#o.strategy, object);
  }

  /** Field selectors this resource supports. */
  get fieldSelectors(): readonly string[] {
    const base = isNamespaced(this.def)
      ? ["metadata.name", "metadata.namespace"]
      : ["metadata.name"];
    return [...base, ...(this.#o.strategy.fieldSelectors ?? [])];
  }

  key(namespace: string, name: string): string {
    return isNamespaced(this.def)
      ? `${this.#o.prefix}${namespace}/${name}`
      : `${this.#o.prefix}${name}`;
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
  async list(namespace: string, q: ListQuery, signal?: AbortSignal): Promise<ListResult> {
    const filter: CacheFilter = { namespace, label: q.label, field: q.field };
    const rv = q.resourceVersion ?? "";
    const paged = (q.limit ?? 0) > 0 && rv !== "0";
    const exact =
      q.resourceVersionMatch === "Exact" ||
      (rv !== "" && rv !== "0" && paged && q.resourceVersionMatch === undefined);
    if (q.continue !== undefined || exact || (paged && q.resourceVersionMatch !== "NotOlderThan")) {
      const prefix =
        isNamespaced(this.def) && namespace ? `${this.#o.prefix}${namespace}/` : this.#o.prefix;
      return listFromStorage(
        this.#o.storage,
        prefix,
        filter,
        q,
        (o) => this.attrs(o),
        (kv) => this.#decode(kv),
      );
    }
    const cache = this.#o.cache;
    if (rv === "") await cache.waitUntilFresh(await this.#o.storage.currentRevision(), signal);
    else if (rv !== "0") await cache.waitUntilFresh(Number(rv), signal);
    const { entries, rv: listRv } = cache.list(filter);
    return { items: entries, resourceVersion: listRv };
  }

  /** A watch on the cache; see {@link WatchCache.watch}. */
  watch(request: Parameters<WatchCache["watch"]>[0]): CacheWatcher {
    return this.#o.cache.watch({ ...request, encoder: request.encoder ?? this.#o.encoder });
  }

  /** Creates an object (POST). */
  async create(
    namespace: string,
    body: KubeObject,
    options: WriteOptions = {},
  ): Promise<KubeObject> {
    const object = this.#in(body);
    const meta = metaOf(object);
    this.#checkNamespace(namespace, meta.namespace);
    if (isNamespaced(this.def)) meta.namespace = namespace;
    else delete meta.namespace;
    if (meta.resourceVersion !== undefined && meta.resourceVersion !== "") {
      throw errors.internal("resourceVersion should not be set on objects to be created");
    }
    delete meta.resourceVersion;
    meta.uid = randomUUID();
    meta.creationTimestamp = timestamp(this.#o.clock.now());
    delete meta.deletionTimestamp;
    delete meta.deletionGracePeriodSeconds;
    delete meta.selfLink;
    if (this.#o.strategy.trackGeneration) meta.generation = 1;
    else delete meta.generation;
    const warnings = this.#normalize(object, options);
    if (!options.managedFieldsSet) this.#track(undefined, object, options, undefined);
    this.#o.strategy.prepareForCreate?.(object);
    const generate = !meta.name && Boolean(meta.generateName);
    if (generate) meta.name = this.#generateName(meta.generateName!);
    this.#validate(
      object,
      validateObjectMeta(meta, this.#o.strategy.nameRule ?? "subdomain", isNamespaced(this.def)),
      this.#o.strategy.validate?.(object),
      this.#o.strategy.validateCreate?.(object),
    );
    if (isNamespaced(this.def))
      await this.#o.admitNamespace?.(namespace, this.#gr, meta.name ?? "");
    const done = () => {
      options.warnings?.push(...warnings);
      return this.#out(object);
    };
    for (let attempt = 1; ; attempt++) {
      const key = this.key(namespace, meta.name!);
      if (options.dryRun) {
        const existing = await this.#o.storage.get(key);
        if (existing === undefined) return done();
      } else {
        try {
          const kv = await this.#o.storage.create(key, encodeForStorage(object));
          meta.resourceVersion = String(kv.modRevision);
          return done();
        } catch (err) {
          if (!isStorageError(err, "KeyExists")) throw err;
        }
      }
      if (!generate || attempt >= GENERATE_NAME_ATTEMPTS) {
        const existing = await this.#o.storage.get(key);
        const deleting =
          existing !== undefined && Boolean(this.#decode(existing).metadata?.deletionTimestamp);
        throw errors.alreadyExists(this.#gr, meta.name!, deleting);
      }
      meta.name = this.#generateName(meta.generateName!);
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
    options: WriteOptions & { subresource?: string } = {},
  ): Promise<KubeObject> {
    const input = this.#in(body);
    const meta = input.metadata ?? {};
    this.#checkNamespace(namespace, meta.namespace);
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
   * result that is not the stored one is a 409 Conflict.
   */
  async guaranteedUpdate(
    namespace: string,
    name: string,
    mutate: (current: KubeObject) => KubeObject,
    options: WriteOptions & { subresource?: string } = {},
  ): Promise<KubeObject> {
    const key = this.key(namespace, name);
    for (let attempt = 0; ; attempt++) {
      const kv = await this.#o.storage.get(key);
      if (kv === undefined) throw errors.notFound(this.#gr, name);
      const stored = this.#decode(kv);
      const current = this.#out(cloneObject(stored));
      const next = this.#in(mutate(current));
      const meta = metaOf(next);
      if (meta.resourceVersion && meta.resourceVersion !== String(kv.modRevision)) {
        throw errors.staleResourceVersion(this.#gr, name);
      }
      const warnings: string[] = [];
      const object = this.#prepareUpdate(next, stored, options, warnings);
      const done = (o: KubeObject) => {
        options.warnings?.push(...warnings);
        return this.#out(o);
      };
      const old = stored.metadata!;
      if (
        metaOf(object).deletionTimestamp &&
        (metaOf(object).finalizers ?? []).length === 0 &&
        !this.#blocksDeletion(object)
      ) {
        if (options.dryRun) return done(object);
        try {
          const { revision } = await this.#o.storage.delete(key, kv.modRevision);
          metaOf(object).resourceVersion = String(revision);
          return done(object);
        } catch (err) {
          if (isStorageError(err, "Conflict") && attempt < MAX_UPDATE_ATTEMPTS) continue;
          throw this.#storageError(err, name);
        }
      }
      const encoded = encodeForStorage(object);
      if (encoded === kv.value) return done(stored); // no-op: no new revision, no event
      if (options.dryRun) {
        metaOf(object).resourceVersion = old.resourceVersion!;
        return done(object);
      }
      try {
        const written = await this.#o.storage.update(key, encoded, kv.modRevision);
        metaOf(object).resourceVersion = String(written.modRevision);
        return done(object);
      } catch (err) {
        if (isStorageError(err, "Conflict") && attempt < MAX_UPDATE_ATTEMPTS) continue;
        throw this.#storageError(err, name);
      }
    }
  }

  /**
   * POST to a subresource of object `name` (a pod's `binding`): the strategy's
   * `prepareSubresource` turns `body` and the stored object into the object to store; a
   * `metadata.resourceVersion` in `body` must be the stored one (409 otherwise).
   */
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

  /** Deletes an object, or marks it for deletion while it has finalizers. */
  async delete(
    namespace: string,
    name: string,
    options: DeleteOptions = {},
    write: WriteOptions = {},
  ): Promise<DeleteOutcome> {
    const key = this.key(namespace, name);
    for (let attempt = 0; ; attempt++) {
      const kv = await this.#o.storage.get(key);
      if (kv === undefined) throw errors.notFound(this.#gr, name);
      const stored = this.#decode(kv);
      const meta = metaOf(stored);
      const pre = options.preconditions;
      if (pre?.uid && pre.uid !== meta.uid) {
        throw errors.conflict(
          this.#gr,
          name,
          `Precondition failed: UID in precondition: ${pre.uid}, UID in object meta: ${meta.uid}`,
        );
      }
      if (pre?.resourceVersion && pre.resourceVersion !== meta.resourceVersion) {
        throw errors.conflict(
          this.#gr,
          name,
          `Precondition failed: ResourceVersion in precondition: ${pre.resourceVersion}, ResourceVersion in object meta: ${meta.resourceVersion}`,
        );
      }
      this.#o.strategy.beforeDelete?.(stored);
      const finalizers = finalizersForDeletion(meta.finalizers ?? [], options);
      const graceful = finalizers.length > 0 || this.#blocksDeletion(stored);
      if (graceful) {
        const marked = cloneObject(stored);
        const m = metaOf(marked);
        if (finalizers.length > 0) m.finalizers = finalizers;
        else delete m.finalizers;
        if (!m.deletionTimestamp) {
          m.deletionTimestamp = timestamp(this.#o.clock.now());
          m.deletionGracePeriodSeconds = 0;
          if ((m.generation ?? 0) > 0) m.generation = m.generation! + 1;
        }
        this.#o.strategy.markDeleting?.(marked);
        const encoded = encodeForStorage(marked);
        if (encoded === kv.value || write.dryRun)
          return { object: this.#out(encoded === kv.value ? stored : marked), deleted: false };
        try {
          const written = await this.#o.storage.update(key, encoded, kv.modRevision);
          m.resourceVersion = String(written.modRevision);
          this.#o.onDeletionWritten?.(name, written.modRevision);
          return { object: this.#out(marked), deleted: false };
        } catch (err) {
          if (isStorageError(err, "Conflict") && attempt < MAX_UPDATE_ATTEMPTS) continue;
          throw this.#storageError(err, name);
        }
      }
      if (write.dryRun) return { object: this.#out(stored), deleted: true };
      try {
        const { revision } = await this.#o.storage.delete(key, kv.modRevision);
        meta.resourceVersion = String(revision);
        this.#o.onDeletionWritten?.(name, revision);
        return { object: this.#out(stored), deleted: true };
      } catch (err) {
        if (
          (isStorageError(err, "Conflict") || isStorageError(err, "NotFound")) &&
          attempt < MAX_UPDATE_ATTEMPTS
        )
          continue;
        throw this.#storageError(err, name);
      }
    }
  }

  /**
   * Server-side apply (PATCH with `application/apply-patch+yaml`); see {@link applyToStore}.
   */
  apply(
    namespace: string,
    name: string,
    config: KubeObject,
    options: ApplyOptions,
  ): Promise<{ object: KubeObject; created: boolean }> {
    const fm = this.#o.fieldManager;
    if (fm === undefined)
      throw errors.methodNotAllowed(`server-side apply is not supported on ${this.#gr.resource}`);
    return applyToStore(this, fm, namespace, name, config, options);
  }

  /**
   * Sets the managedFields of `object` for a non-apply write by `options.manager` (the
   * subresource it went through, if any), in this version's terms.
   */
  #track(
    stored: KubeObject | undefined,
    object: KubeObject,
    options: WriteOptions,
    subresource: string | undefined,
  ): void {
    const fm = this.#o.fieldManager;
    if (fm === undefined) return;
    const from = this.#o.fromStorage;
    const next = from ? from(object) : object;
    fm.update(
      stored === undefined ? undefined : from ? from(stored) : stored,
      next,
      options.manager ?? "kube-apiserver",
      subresource,
    );
    if (next !== object) setManagedFields(object, next.metadata?.managedFields);
  }

  #decode(kv: KeyValue): KubeObject {
    return this.#o.decode ? this.#o.decode(kv) : decodeFromStorage(kv);
  }

  /** True while something other than metadata.finalizers keeps a deleting object (namespaces). */
  #blocksDeletion(object: KubeObject): boolean {
    return this.#o.strategy.blocksDeletion?.(object) ?? false;
  }

  #prepareUpdate(
    next: KubeObject,
    stored: KubeObject,
    options: WriteOptions & { subresource?: string },
    warnings: string[],
  ): KubeObject {
    const subresource = options.subresource;
    const strategy = this.#o.strategy;
    const old = stored.metadata!;
    let object: KubeObject;
    const applied = options.managedFieldsSet === true;
    if (subresource === "status") {
      // kube decodes the whole body (pruning, defaults) before taking its status.
      warnings.push(...this.#normalize(next, options));
      object = {
        ...cloneObject(stored),
        status: (next as { status?: unknown }).status,
      } as KubeObject;
      if ((next as { status?: unknown }).status === undefined)
        delete (object as { status?: unknown }).status;
      // An apply to /status worked out the managedFields; the rest of metadata stays stored.
      if (applied) setManagedFields(object, next.metadata?.managedFields);
    } else if (subresource !== undefined) {
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
      if (strategy.statusSubresource) {
        const s = (stored as { status?: unknown }).status;
        if (s === undefined) delete (object as { status?: unknown }).status;
        else (object as { status?: unknown }).status = s;
      }
    }
    // A pod's binding is written without a field manager, as kube's BindingREST does.
    if (!applied && subresource !== "binding")
      this.#track(stored, object, options, subresource ?? options.managerSubresource);
    const meta = metaOf(object);
    // System fields come from the stored object.
    meta.name = meta.name ?? old.name;
    if (isNamespaced(this.def)) meta.namespace = meta.namespace ?? old.namespace;
    else delete meta.namespace;
    meta.uid = meta.uid || old.uid;
    // As kube's BeforeUpdate: a client's creationTimestamp (`…00.000Z` from JavaScript clients)
    // is ignored for the stored one.
    meta.creationTimestamp = old.creationTimestamp ?? meta.creationTimestamp;
    if (old.deletionTimestamp) {
      meta.deletionTimestamp = old.deletionTimestamp;
      meta.deletionGracePeriodSeconds = old.deletionGracePeriodSeconds ?? 0;
    } else {
      delete meta.deletionTimestamp;
      delete meta.deletionGracePeriodSeconds;
    }
    delete meta.resourceVersion;
    meta.generation = old.generation;
    if (meta.generation === undefined) delete meta.generation;
    if (subresource === undefined) strategy.prepareForUpdate?.(object, stored);
    if (
      strategy.trackGeneration &&
      specChanged(object, stored, strategy.statusSubresource ?? false)
    ) {
      meta.generation = (old.generation ?? 0) + 1;
    }
    const causes = [
      ...validateObjectMeta(meta, strategy.nameRule ?? "subdomain", isNamespaced(this.def)),
      ...validateObjectMetaUpdate(meta, old),
    ];
    this.#validate(
      object,
      causes,
      strategy.validate?.(object),
      strategy.validateUpdate?.(object, stored, subresource),
    );
    return object;
  }

  /**
   * Drops unknown fields and applies defaults (see {@link StoreOptions.normalize}); returns the
   * warnings to send, or throws 400 for fieldValidation=Strict, with kube's wording.
   */
  #normalize(object: KubeObject, options: WriteOptions): string[] {
    const dropped = this.#o.normalize?.(object) ?? [];
    const duplicates = options.duplicateFields ?? [];
    const validation = options.fieldValidation;
    if ((dropped.length === 0 && duplicates.length === 0) || validation === "Ignore") return [];
    const problems = [
      ...dropped.map((d) => `unknown field ${JSON.stringify(d)}`),
      ...duplicates.map((d) => `duplicate field ${JSON.stringify(d)}`),
    ];
    if (validation === "Strict") {
      const { kind, version } = this.def;
      throw errors.badRequest(
        `${kind} in version ${JSON.stringify(version)} cannot be handled as a ${kind}: strict decoding error: ${problems.join(", ")}`,
      );
    }
    return problems;
  }

  #validate(object: KubeObject, ...lists: (StatusCause[] | undefined)[]): void {
    const causes = lists.flatMap((l) => l ?? []);
    causes.push(...(this.#o.validate?.(object) ?? []));
    if (causes.length > 0) {
      throw errors.invalid(
        this.def.kind,
        this.def.group,
        object.metadata?.name ?? object.metadata?.generateName ?? "",
        causes,
      );
    }
  }

  #checkNamespace(urlNamespace: string, bodyNamespace: string | undefined): void {
    if (isNamespaced(this.def) && bodyNamespace && bodyNamespace !== urlNamespace) {
      throw errors.badRequest(
        "the namespace of the provided object does not match the namespace sent on the request",
      );
    }
  }

  /** A request object in this version → the stored form (apiVersion/kind set). */
  #in(body: KubeObject): KubeObject {
    const object = this.#o.toStorage ? this.#o.toStorage(body) : body;
    const { apiVersion: _a, kind, ...rest } = object;
    return {
      apiVersion: this.#o.storageApiVersion ?? this.#apiVersion,
      kind: this.#o.toStorage ? kind : this.def.kind,
      ...rest,
    };
  }

  /** A stored object → this version. */
  #out(object: KubeObject): KubeObject {
    if (this.#o.fromStorage) return this.#o.fromStorage(object);
    if (object.apiVersion === this.#apiVersion) return object;
    return { ...object, apiVersion: this.#apiVersion };
  }

  #generateName(base: string): string {
    let suffix = "";
    for (let i = 0; i < 5; i++) suffix += NAME_CHARS[Math.floor(Math.random() * NAME_CHARS.length)];
    return `${base.slice(0, 58)}${suffix}`;
  }

  #storageError(err: unknown, name: string): unknown {
    if (isStorageError(err, "NotFound")) return errors.notFound(this.#gr, name);
    if (isStorageError(err, "Conflict")) return errors.staleResourceVersion(this.#gr, name);
    if (err instanceof ApiError) return err;
    return err;
  }
}

/** Label and field values of an object for a kind's strategy. */
export function attrsOf(strategy: Strategy, object: KubeObject): ObjectAttrs {
  const meta = object.metadata ?? {};
  const fields: Record<string, string | undefined> = {
    "metadata.name": meta.name,
    "metadata.namespace": meta.namespace ?? "",
    ...strategy.fields?.(object),
  };
  return { labels: meta.labels ?? {}, fields };
}

/** True if anything outside metadata (and status, with a status subresource) differs. */
function specChanged(a: KubeObject, b: KubeObject, ignoreStatus: boolean): boolean {
  const strip = (o: KubeObject) => {
    const {
      metadata: _m,
      apiVersion: _a,
      kind: _k,
      ...rest
    } = o as KubeObject & { status?: unknown };
    if (ignoreStatus) delete (rest as { status?: unknown }).status;
    return rest;
  };
  return !deepEqual(strip(a), strip(b));
}

/** Sets (or, for undefined, removes) an object's managedFields. */
function setManagedFields(object: KubeObject, entries: unknown): void {
  const meta = metaOf(object) as Record<string, unknown>;
  if (entries === undefined) delete meta.managedFields;
  else meta.managedFields = entries;
}
