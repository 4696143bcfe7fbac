import {
  ApiError,
  type Clock,
  cloneJson,
  errorMessage,
  errors,
  type KubeObject,
} from "../../core/index.ts";
import { timestamp } from "../registry/deletion.ts";
import { applyConflictError } from "./conflict.ts";
import { createdFieldsV1, UNOWNED_METADATA_FIELDS } from "./created-fields.ts";
import { emptySet, FieldSet } from "./field-set.ts";
import { lastAppliedOwns, notAllowed, syncLastApplied } from "./last-applied.ts";
import { SchemaError } from "./list-items.ts";
import {
  capUpdateManagers,
  decodeManagedFields,
  emptyManaged,
  encodeManagedFields,
  isResetManagedFields,
  type Managed,
  managerId,
} from "./managed-fields.ts";
import { fieldElement } from "./path-element.ts";
import type { JsonObject, TypeNode } from "./schema.ts";
import { toFieldSet } from "./to-field-set.ts";
import { ApplyConflicts, type ManagedSets, Updater, type VersionView } from "./updater.ts";

/** Options of {@link FieldManager}. */
export interface FieldManagerOptions {
  /** The group/version of the objects it sees (`v1`, `apps/v1`, `example.com/v1`). */
  readonly apiVersion: string;
  readonly kind: string;
  /** The schema of objects at `apiVersion`. */
  readonly type: TypeNode;
  /**
   * The resource at its other apiVersions, converted from and to `apiVersion`; undefined for a
   * version it does not have (entries at it are dropped). @default no other versions
   */
  readonly views?: (apiVersion: string) => VersionView | undefined;
  /** The kind has a `status` subresource: the main resource ignores status, /status spec. */
  readonly statusSubresource?: boolean;
  /**
   * Top-level fields the main resource ignores besides `status`: its strategy resets them, so
   * no writer of the object itself owns them (kube's `GetResetFields`). @default none
   */
  readonly resetFields?: readonly string[];
  /** Stamps entries' `time`. */
  readonly clock: Clock;
}

/** What kube's `stripMetaManager` keeps out of every manager's fields. */
export const UNOWNED_FIELDS: FieldSet = FieldSet.of(
  [fieldElement("apiVersion")],
  [fieldElement("kind")],
  [fieldElement("metadata")],
  ...UNOWNED_METADATA_FIELDS.map((f) => [fieldElement("metadata"), fieldElement(f)]),
);

const SPEC = FieldSet.of([fieldElement("spec")]);

/** The manager name an update is tracked under while its changes are worked out. */
const SELF = "current-operation";

/**
 * Maintains `metadata.managedFields` of one resource at one apiVersion, as kube's default field
 * manager does, and merges server-side applies. Works on objects of its apiVersion.
 *
 * - {@link update}: a create, replace or patch by `manager` — it owns what it changed, everyone
 *   loses what it removed. The request's own managedFields, if decodable, are the starting point
 *   (a client may rewrite them); an empty list clears them. An object that has none is not
 *   tracked by updates until it is applied to (kube's skip-non-applied rule); creates are.
 * - {@link apply}: merges an applied configuration (409 on conflicts unless forced).
 *
 * Entries: at most 10 update managers (older ones merge into `ancient-changes`); no one owns
 * apiVersion, kind or the system fields of metadata; `time` is when a manager last changed
 * something.
 */
export class FieldManager {
  readonly #o: FieldManagerOptions;
  readonly #own: VersionView;
  readonly #updaters = new Map<string, Updater>();
  /** The top-level fields nobody owns through the main resource. */
  readonly #mainIgnored: ReadonlySet<string>;

  constructor(options: FieldManagerOptions) {
    this.#o = options;
    this.#mainIgnored = new Set([
      ...(options.statusSubresource ? ["status"] : []),
      ...(options.resetFields ?? []),
    ]);
    this.#own = { type: options.type, toVersion: (o) => o, fromVersion: (o) => o };
  }

  /** The schema objects are read with. */
  get type(): TypeNode {
    return this.#o.type;
  }

  /**
   * Sets `next.metadata.managedFields` for a non-apply write of `live` (undefined for a create)
   * into `next`. Never fails the write: if ownership cannot be worked out (an object the schema
   * does not describe), the stored managedFields are kept, as kube's `UpdateNoErrors`.
   */
  update(
    live: KubeObject | undefined,
    next: KubeObject,
    manager: string,
    subresource?: string,
  ): void {
    next.metadata ??= {};
    const meta = next.metadata as Record<string, unknown>;
    try {
      const requested = meta.managedFields;
      const fresh =
        requested === undefined || requested === null || isResetManagedFields(requested);
      if (live === undefined && fresh) {
        delete meta.managedFields;
        if (this.#created(next, manager, subresource)) return;
      }
      const managed = this.#startingPoint(live, next, subresource !== undefined);
      delete meta.managedFields;
      if (managed.sets.size === 0 && live !== undefined) return;
      this.#track(
        managed,
        live === undefined ? {} : strip(live),
        strip(next),
        manager,
        subresource,
      );
      setManagedFields(next, managed);
    } catch (err) {
      if (!(err instanceof SchemaError)) throw err;
      const stored = live?.metadata?.managedFields;
      if (stored === undefined) delete meta.managedFields;
      else meta.managedFields = stored;
    }
  }

  /**
   * Applies `config` for `manager` to `live` (undefined: the object does not exist yet) and
   * returns the object to store, managedFields included. 400 for a configuration of another
   * kind or version, one that sets managedFields, or one the schema does not allow; 409 with a
   * cause per field on conflicts (unless `force`).
   */
  apply(
    live: KubeObject | undefined,
    config: KubeObject,
    manager: string,
    force: boolean,
    subresource?: string,
  ): KubeObject {
    if (config.apiVersion !== this.#o.apiVersion || config.kind !== this.#o.kind) {
      const [group, version] = splitApiVersion(config.apiVersion ?? "");
      throw errors.badRequest(
        `invalid object type: ${group}/${version}, Kind=${config.kind ?? ""}`,
      );
    }
    let managed: Managed;
    try {
      managed = decodeManagedFields(live?.metadata?.managedFields);
    } catch (err) {
      throw ApiError.of("InternalError", `failed to decode managed fields: ${errorMessage(err)}`);
    }
    const current: JsonObject = live === undefined ? this.#newObject() : strip(live);
    if (managed.sets.size === 0 && live !== undefined)
      this.#track(managed, this.#newObject(), current, "before-first-apply", subresource);
    if (config.metadata?.managedFields !== undefined && config.metadata.managedFields !== null)
      throw errors.badRequest("metadata.managedFields must be nil");
    const id = managerId({ manager: manager || "unknown", operation: "Apply", subresource });
    try {
      toFieldSet(config, this.#o.type);
    } catch (err) {
      if (err instanceof SchemaError)
        throw errors.badRequest(
          `failed to create typed patch object (${this.#gvknn(config)}): ${err.message}`,
        );
      throw err;
    }
    let result: ReturnType<Updater["apply"]>;
    const updater = this.#updater(subresource);
    try {
      try {
        result = updater.apply(current, config as JsonObject, managed.sets, id, force);
      } catch (err) {
        // kubectl's first server-side apply of what it applied client-side takes the fields its
        // last-applied annotation still describes (kube's lastAppliedManager).
        if (!(err instanceof ApplyConflicts) || manager !== "kubectl") throw err;
        const allowed = lastAppliedOwns(current, this.#o.apiVersion, this.#o.type);
        if (allowed === undefined) throw err;
        const left = notAllowed(err.conflicts, allowed);
        if (left.length > 0) throw new ApplyConflicts(left);
        result = updater.apply(current, config as JsonObject, managed.sets, id, true);
      }
    } catch (err) {
      if (err instanceof ApplyConflicts) throw applyConflictError(err.conflicts);
      if (err instanceof SchemaError)
        throw ApiError.of(
          "InternalError",
          `failed to create typed live object (${this.#gvknn(current)}): ${err.message}`,
        );
      throw err;
    }
    const sets = result.managers;
    stripMeta(sets, id);
    const out: Managed = { sets, times: managed.times };
    if (result.object !== undefined) this.#stamp(out, id, subresource);
    const object = (result.object ?? cloneJson(current)) as KubeObject;
    if (manager === "kubectl") syncLastApplied(config, object);
    capUpdateManagers(out);
    setManagedFields(object, out);
    return object;
  }

  /**
   * The fast path of a create that starts from no managers: the one entry, built directly.
   * False (nothing set) when the object needs the general path to decide.
   */
  #created(next: KubeObject, manager: string, subresource: string | undefined): boolean {
    let fields: ReturnType<typeof createdFieldsV1>;
    try {
      fields = createdFieldsV1(next as JsonObject, this.#o.type, this.#mainIgnored);
    } catch {
      return false;
    }
    if (fields === undefined) return true;
    (next.metadata as Record<string, unknown>).managedFields = [
      {
        manager: manager || "unknown",
        operation: "Update",
        apiVersion: this.#o.apiVersion,
        time: timestamp(this.#o.clock.now()),
        fieldsType: "FieldsV1",
        fieldsV1: fields,
        ...(subresource ? { subresource } : {}),
      },
    ];
    return true;
  }

  /** The managers to start from: the request's (if it sets valid ones), else the stored ones. */
  #startingPoint(live: KubeObject | undefined, next: KubeObject, subresource: boolean): Managed {
    const stored = () => {
      try {
        return decodeManagedFields(live?.metadata?.managedFields);
      } catch {
        return emptyManaged();
      }
    };
    if (subresource) return stored();
    const requested = next.metadata?.managedFields;
    if (isResetManagedFields(requested)) return emptyManaged();
    try {
      const decoded = decodeManagedFields(requested);
      return decoded.sets.size > 0 ? decoded : stored();
    } catch {
      return stored();
    }
  }

  /** Records in `managed` that `manager` changed `live` into `next` (not an apply). */
  #track(
    managed: Managed,
    live: JsonObject,
    next: JsonObject,
    manager: string,
    subresource?: string,
  ): void {
    const id = managerId({
      manager: manager || "unknown",
      operation: "Update",
      apiVersion: this.#o.apiVersion,
      subresource,
    });
    const sets = this.#updater(subresource).update(live, next, managed.sets, SELF);
    stripMeta(sets, SELF);
    const mine = sets.get(SELF);
    sets.delete(SELF);
    if (mine !== undefined) {
      const previous = sets.get(id)?.set ?? emptySet;
      sets.set(id, { ...mine, set: mine.set.union(previous) });
      this.#stamp(managed, id, subresource);
    }
    managed.sets.clear();
    for (const [k, v] of sets) managed.sets.set(k, v);
    capUpdateManagers(managed);
  }

  /**
   * Stamps the time `id` changed fields. A write through `scale` is not stamped: kube records
   * it on the Scale and carries only the fields over to the object, each manager with the time
   * the object's own entry had (none for a manager new to it).
   */
  #stamp(managed: Managed, id: string, subresource: string | undefined): void {
    if (subresource !== "scale") managed.times.set(id, timestamp(this.#o.clock.now()));
  }

  #updater(subresource: string | undefined): Updater {
    const key = subresource ?? "";
    let u = this.#updaters.get(key);
    if (u === undefined) {
      const ignored =
        subresource === undefined
          ? this.#mainIgnored.size > 0
            ? FieldSet.of(...[...this.#mainIgnored].map((f) => [fieldElement(f)]))
            : undefined
          : subresource === "status" && this.#o.statusSubresource
            ? SPEC
            : undefined;
      u = new Updater({
        version: this.#o.apiVersion,
        views: (v) => (v === this.#o.apiVersion ? this.#own : this.#o.views?.(v)),
        ...(ignored ? { ignored } : {}),
      });
      this.#updaters.set(key, u);
    }
    return u;
  }

  #newObject(): JsonObject {
    return { apiVersion: this.#o.apiVersion, kind: this.#o.kind };
  }

  #gvknn(o: KubeObject): string {
    const [group, version] = splitApiVersion(this.#o.apiVersion);
    const ns = o.metadata?.namespace ?? "";
    return `${ns}/${o.metadata?.name ?? ""}; ${group}/${version}, Kind=${this.#o.kind}`;
  }
}

function splitApiVersion(apiVersion: string): [group: string, version: string] {
  const slash = apiVersion.indexOf("/");
  return slash < 0 ? ["", apiVersion] : [apiVersion.slice(0, slash), apiVersion.slice(slash + 1)];
}

/** The object without managedFields (a shallow copy; the input is not modified). */
function strip(o: KubeObject): JsonObject {
  const meta = o.metadata as Record<string, unknown> | undefined;
  if (meta?.managedFields === undefined) return o as JsonObject;
  const { managedFields: _, ...rest } = meta;
  return { ...(o as JsonObject), metadata: rest };
}

/** Takes the fields no manager owns out of `id`'s set (kube's `stripMetaManager`). */
function stripMeta(sets: ManagedSets, id: string): void {
  const vs = sets.get(id);
  if (vs === undefined) return;
  const set = vs.set.difference(UNOWNED_FIELDS);
  if (set.isEmpty()) sets.delete(id);
  else sets.set(id, { ...vs, set });
}

function setManagedFields(object: KubeObject, managed: Managed): void {
  object.metadata ??= {};
  const meta = object.metadata as Record<string, unknown>;
  const entries = encodeManagedFields(managed);
  if (entries === undefined) delete meta.managedFields;
  else meta.managedFields = entries;
}
