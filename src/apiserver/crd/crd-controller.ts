import { FieldSelector, type KubeObject, LabelSelector } from "../../core/index.ts";
import { customResourceDefinitions } from "../../resources/index.ts";
import type { FieldManagers } from "../managedfields/field-managers.ts";
import { timestamp } from "../registry/deletion.ts";
import { pruneBuiltin } from "../registry/known-fields.ts";
import { ALL_VERBS, type Registry, type ServedResource } from "../registry/registry.ts";
import { jsonEncoder } from "../watchcache/cache-event.ts";
import type { CacheWatcher } from "../watchcache/cache-watcher.ts";
import { type Crd, conditionOf, crdVersionSpecs, setCondition, storageSchemaOf } from "./crd.ts";
import { acceptNames, type CrdNames, requestedNames } from "./crd-names.ts";
import { CRD_CLEANUP_FINALIZER, crdStrategy } from "./crd-strategy.ts";
import { InstanceCleanup } from "./instance-cleanup.ts";

const CRD_PREFIX = "/registry/apiextensions.k8s.io/customresourcedefinitions/";
const ALL = { label: LabelSelector.everything(), field: FieldSelector.everything() };
/** What a terminating CRD's resources still offer (kube's discovery controller). */
const TERMINATING_VERBS = ["delete", "deletecollection", "get", "list", "watch"];
/** A custom resource's verbs, in the order kube-apiserver's discovery lists them. */
const CUSTOM_RESOURCE_VERBS = [
  "delete",
  "deletecollection",
  "get",
  "list",
  "patch",
  "create",
  "update",
  "watch",
];

/** What is served for one CRD. */
interface Installed {
  readonly group: string;
  readonly plural: string;
  readonly versions: readonly string[];
  /**
   * What the shared watch cache bakes into its entries: the versions' selectable fields (their
   * values) and the storage schema (the pruning and defaults objects are read with).
   */
  readonly cacheKey: string;
  readonly terminating: boolean;
}

/**
 * Serves custom resources for CustomResourceDefinitions, as apiextensions-apiserver's
 * controllers do. It follows the CRD watch cache, one event at a time:
 * - names (naming controller): a CRD gets the requested names no other CRD of its group holds;
 *   NamesAccepted and Established follow. It is served (under its accepted names) once its
 *   names are accepted, and stays served once Established; a CRD that never got its names is
 *   not served (404). A CRD that goes, or changes its names, frees them for the others.
 * - serving: every served version, with validation, pruning, defaults, status and scale
 *   subresources, printer columns and selectable fields (see crd-version.ts).
 * - deletion (finalizer controller): a deleting CRD is Terminating — creates of its resources
 *   are refused, discovery lists only reading and deleting verbs — while its custom resources
 *   are deleted through their store (their own finalizers hold them); once none is left, the
 *   cleanup finalizer is removed and the CRD goes.
 *
 * Invariants: `#accepted` holds every known CRD's accepted names, updated as this controller
 * writes them (it is the mutation cache kube's naming controller keeps, so back-to-back CRDs
 * see each other's names before the watch echoes them); `#installed` is what the registry
 * serves per CRD name. Not done: webhook conversion, CEL rules.
 */
export class CrdController {
  readonly #registry: Registry;
  readonly #fields: FieldManagers;
  /** The served `customresourcedefinitions`, once started. */
  #served: ServedResource | undefined;
  #watcher: CacheWatcher | undefined;
  #loop: Promise<void> | undefined;
  readonly #installed = new Map<string, Installed>();
  readonly #accepted = new Map<string, { group: string; names: CrdNames }>();
  readonly #cleanups = new Map<string, InstanceCleanup>();

  /** Serves the CRDs of `registry`; `fields` manages the fields of their writes. */
  constructor(registry: Registry, fields: FieldManagers) {
    this.#registry = registry;
    this.#fields = fields;
  }

  /** Serves `customresourcedefinitions` and starts following them. */
  async start(): Promise<void> {
    if (this.#served !== undefined) return;
    const served = await this.#registry.install(
      customResourceDefinitions,
      crdStrategy,
      CRD_PREFIX,
      {
        subresources: ["status"],
        verbs: ALL_VERBS,
        strategicMerge: true,
        encoder: jsonEncoder,
        normalize: (o) => pruneBuiltin("apiextensions.k8s.io", "v1", "CustomResourceDefinition", o),
      },
    );
    this.#served = served;
    // Names already accepted (a restart on stored CRDs) hold before any CRD is looked at.
    for (const e of served.store.cache.list(ALL).entries) this.#remember(e.object as Crd);
    const watcher = served.store.watch({ filter: ALL });
    this.#watcher = watcher;
    this.#loop = (async () => {
      for await (const lines of watcher) {
        for (const line of lines) {
          const event = JSON.parse(line.toString()) as { type: string; object: Crd };
          try {
            if (event.type === "DELETED") await this.#removed(event.object);
            else await this.#sync(event.object);
          } catch {
            // A CRD that cannot be served stays unserved; the next change retries.
          }
        }
      }
    })();
  }

  async close(): Promise<void> {
    for (const c of this.#cleanups.values()) c.close();
    this.#watcher?.close("cache-closed");
    await this.#loop;
  }

  /** A CRD as stored: accepted names from its status (if it has any). */
  #remember(crd: Crd): void {
    const a = crd.status?.acceptedNames;
    if (a?.kind || a?.plural) {
      this.#accepted.set(crd.metadata?.name ?? "", {
        group: crd.spec.group,
        names: {
          plural: a.plural ?? "",
          singular: a.singular ?? "",
          shortNames: a.shortNames ?? [],
          kind: a.kind ?? "",
          listKind: a.listKind ?? "",
          categories: a.categories ?? [],
        },
      });
    }
  }

  async #sync(crd: Crd): Promise<void> {
    const name = crd.metadata?.name ?? "";
    if (crd.metadata?.deletionTimestamp) return this.#finalize(crd);
    const group = crd.spec.group;
    const others = [...this.#accepted]
      .filter(([n, a]) => n !== name && a.group === group)
      .map(([, a]) => a.names);
    const previous = this.#accepted.get(name)?.names;
    const verdict = acceptNames(requestedNames(crd.spec.names), previous, others);
    const now = timestamp(this.#registry.clock.now());
    let status = crd.status ?? {};
    status = setCondition(status, {
      type: "NamesAccepted",
      status: verdict.ok ? "True" : "False",
      reason: verdict.reason,
      message: verdict.message,
      now,
    });
    const wasEstablished = conditionOf(crd, "Established")?.status === "True";
    if (verdict.ok && !wasEstablished) {
      // As kube's naming controller: Installing until the resource is served.
      status = setCondition(status, {
        type: "Established",
        status: "False",
        reason: "Installing",
        message: "the initial names have been accepted",
        now,
      });
    } else if (conditionOf(crd, "Established") === undefined) {
      status = setCondition(status, {
        type: "Established",
        status: "False",
        reason: "NotAccepted",
        message: "not all names are accepted",
        now,
      });
    }
    // storedVersions is the CRD strategy's, as in kube.
    status = { ...status, acceptedNames: asStatus(verdict.accepted) };
    const changedNames = JSON.stringify(previous) !== JSON.stringify(verdict.accepted);
    this.#accepted.set(name, { group, names: verdict.accepted });
    await this.#writeStatus(crd, status);
    // kube serves a CRD whose names are accepted, or that was established before; its
    // establishing controller then marks it Established.
    if (verdict.ok || wasEstablished) await this.#install(crd, verdict.accepted, false);
    if (verdict.ok && !wasEstablished) await this.#establish(name, now);
    if (changedNames) await this.#resyncGroup(group, name);
  }

  /** Writes `status` through the CRD's status subresource, unless it is what `crd` has. */
  async #writeStatus(crd: Crd, status: Crd["status"]): Promise<void> {
    if (JSON.stringify(status) === JSON.stringify(crd.status)) return;
    const served = this.#served!;
    await served.store.guaranteedUpdate(
      "",
      crd.metadata?.name ?? "",
      (current) => ({ ...current, status }) as KubeObject,
      this.#fields.managed(served, { subresource: "status" }),
    );
  }

  /** Marks the stored CRD `name` Established, now that it is served (unless it already is). */
  async #establish(name: string, now: string): Promise<void> {
    const served = this.#served!;
    await served.store.guaranteedUpdate(
      "",
      name,
      (current) => {
        const crd = current as Crd;
        if (conditionOf(crd, "Established")?.status === "True") return current;
        const status = setCondition(crd.status ?? {}, {
          type: "Established",
          status: "True",
          reason: "InitialNamesAccepted",
          message: "the initial names have been accepted",
          now,
        });
        return { ...current, status } as KubeObject;
      },
      this.#fields.managed(served, { subresource: "status" }),
    );
  }

  /** Looks again at the group's CRDs whose names are not all accepted (a name may be free). */
  async #resyncGroup(group: string, except: string): Promise<void> {
    for (const e of this.#served!.store.cache.list(ALL).entries) {
      const other = e.object as Crd;
      if (other.spec.group !== group || other.metadata?.name === except) continue;
      if (other.metadata?.deletionTimestamp) continue;
      if (conditionOf(other, "NamesAccepted")?.status === "True") continue;
      await this.#sync(other);
    }
  }

  /** Serves the CRD's served versions under `names` (replacing what was served for it). */
  async #install(crd: Crd, names: CrdNames, terminating: boolean): Promise<void> {
    const name = crd.metadata?.name ?? "";
    const previous = this.#installed.get(name);
    const specs = crdVersionSpecs(crd, names, terminating, this.#registry.clock);
    const cacheKey = JSON.stringify([specs.map((s) => s.selectable), storageSchemaOf(crd)]);
    // The watch cache decodes each object, and computes its selectable values, once: a change
    // to either needs a new cache (kube, too, recreates a CRD's storage when its spec changes).
    let fresh = previous !== undefined && previous.cacheKey !== cacheKey;
    for (const s of specs) {
      this.#fields.set(s.def, s.fieldManager);
      await this.#registry.install(s.def, s.strategy, s.prefix, {
        ...s.serving,
        verbs: terminating ? TERMINATING_VERBS : CUSTOM_RESOURCE_VERBS,
        freshCache: fresh,
      });
      fresh = false;
    }
    const now = specs.map((s) => s.def.version);
    for (const v of previous?.versions ?? []) {
      if (!now.includes(v)) await this.#registry.uninstall(previous!.group, v, previous!.plural);
    }
    this.#installed.set(name, {
      group: crd.spec.group,
      plural: crd.spec.names.plural,
      versions: now,
      cacheKey,
      terminating,
    });
  }

  async #uninstall(name: string): Promise<void> {
    const info = this.#installed.get(name);
    if (info === undefined) return;
    this.#installed.delete(name);
    for (const v of info.versions) await this.#registry.uninstall(info.group, v, info.plural);
  }

  /**
   * A deleting CRD: Terminating while its custom resources are deleted, then the cleanup
   * finalizer goes. A CRD that was never served had none and goes at once.
   */
  async #finalize(crd: Crd): Promise<void> {
    const name = crd.metadata?.name ?? "";
    if (!(crd.metadata?.finalizers ?? []).includes(CRD_CLEANUP_FINALIZER)) return;
    if (this.#cleanups.get(name)?.active) return;
    const served =
      conditionOf(crd, "Established")?.status === "True" ||
      conditionOf(crd, "NamesAccepted")?.status === "True";
    if (!served) return this.#removeFinalizer(name);
    const names = this.#accepted.get(name)?.names ?? requestedNames(crd.spec.names);
    if (!this.#installed.get(name)?.terminating) await this.#install(crd, names, true);
    const status = setCondition(crd.status ?? {}, {
      type: "Terminating",
      status: "True",
      reason: "InstanceDeletionInProgress",
      message: "CustomResource deletion is in progress",
      now: timestamp(this.#registry.clock.now()),
    });
    await this.#writeStatus(crd, status);
    const storageVersion = crd.spec.versions.find((v) => v.storage)?.name ?? "";
    const store = this.#registry.lookup(
      crd.spec.group,
      storageVersion,
      crd.spec.names.plural,
    )?.store;
    if (store === undefined) return this.#removeFinalizer(name);
    const cleanup = new InstanceCleanup(store, () => this.#removeFinalizer(name));
    this.#cleanups.set(name, cleanup);
    try {
      await cleanup.start();
    } catch (err) {
      // Not all deletes went out: the CRD's next event starts over.
      cleanup.close();
      this.#cleanups.delete(name);
      throw err;
    }
  }

  async #removeFinalizer(name: string): Promise<void> {
    const served = this.#served!;
    await served.store.guaranteedUpdate(
      "",
      name,
      (current) => {
        const meta = current.metadata ?? {};
        return {
          ...current,
          metadata: {
            ...meta,
            finalizers: (meta.finalizers ?? []).filter((f) => f !== CRD_CLEANUP_FINALIZER),
          },
        };
      },
      this.#fields.managed(served, {}),
    );
  }

  /** A CRD is gone: stop serving it and free its names for the rest of its group. */
  async #removed(crd: Crd): Promise<void> {
    const name = crd.metadata?.name ?? "";
    this.#cleanups.get(name)?.close();
    this.#cleanups.delete(name);
    await this.#uninstall(name);
    this.#accepted.delete(name);
    await this.#resyncGroup(crd.spec.group, name);
  }
}

/** Accepted names as kube writes them: empty optional names left out. */
function asStatus(n: CrdNames): NonNullable<Crd["status"]>["acceptedNames"] {
  return {
    plural: n.plural,
    ...(n.singular ? { singular: n.singular } : {}),
    ...(n.shortNames.length > 0 ? { shortNames: [...n.shortNames] } : {}),
    kind: n.kind,
    ...(n.listKind ? { listKind: n.listKind } : {}),
    ...(n.categories.length > 0 ? { categories: [...n.categories] } : {}),
  };
}
