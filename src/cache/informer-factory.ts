/**
 * The informer factory: one shared informer per resource, namespace and selector set, however
 * many consumers ask for it (client-go's `SharedInformerFactory`).
 */
import type { Client } from "../client/index.ts";
import {
  type Clock,
  checkMetrics,
  type FieldSelector,
  InvalidOptionError,
  type KubeObject,
  type LabelSelector,
  parseFieldSelector,
  parseLabelSelector,
} from "../core/index.ts";
import type { ResourceDefinition } from "../resources/index.ts";
import { Lister } from "./lister.ts";
import { listerWatcherFor } from "./lister-watcher.ts";
import type { Logger } from "./logger.ts";
import { SharedInformer, type SharedInformerOptions } from "./shared-informer.ts";
import type { Indexers } from "./store.ts";

/** Reflector and informer settings the factory applies to every informer it makes. */
type SharedSettings = Omit<
  SharedInformerOptions<KubeObject>,
  "listerWatcher" | "name" | "indexers" | "transform" | "clock" | "logger"
>;

/** Options for {@link InformerFactory}. */
export interface InformerFactoryOptions extends SharedSettings {
  /** Lists and watches go through this client. */
  client: Client;
  /** Informers watch this namespace unless asked for another. @default all namespaces */
  namespace?: string;
  /** Applied to every object of every informer (e.g. drop managedFields). */
  transform?: (obj: KubeObject) => KubeObject;
  /** @default realClock */
  clock?: Clock;
  /** @default stderrLogger */
  logger?: Logger;
}

/** Which informer: a namespace and server-side selectors. */
export interface InformerFor<T extends KubeObject> {
  /** @default the factory's namespace (all namespaces if none) */
  namespace?: string;
  labelSelector?: string | LabelSelector;
  fieldSelector?: string | FieldSelector;
  /** Indexes to add to the (possibly shared) informer; names already present are skipped. */
  indexers?: Indexers<T>;
}

/**
 * Makes and shares informers. `informer` returns the same informer for the same resource,
 * namespace and selectors; {@link start} runs those not yet running (call it again after asking
 * for more); {@link waitForCacheSync} waits for the running ones.
 *
 * @example
 * ```ts
 * await using factory = new InformerFactory({ client });
 * const pods = factory.informer(podsDef, { namespace: "default" });
 * factory.start(signal);
 * await factory.waitForCacheSync(signal);
 * const web = factory.lister(podsDef, { namespace: "default" }).namespace("default").get("web");
 * ```
 */
export class InformerFactory {
  readonly #options: InformerFactoryOptions;
  readonly #informers = new Map<string, SharedInformer<KubeObject>>();
  readonly #running = new Map<string, Promise<void>>();
  #stopped = false;

  constructor(options: InformerFactoryOptions) {
    if (typeof options?.client?.resource !== "function") {
      throw new InvalidOptionError(
        "InformerFactory",
        "client",
        options?.client,
        "must be a Client",
      );
    }
    checkMetrics("InformerFactory", options.metrics, ["newInformerMetrics"]);
    this.#options = options;
  }

  /** The shared informer for `definition` in a namespace, with selectors. */
  informer<T extends KubeObject>(
    definition: ResourceDefinition<T>,
    options: InformerFor<T> = {},
  ): SharedInformer<T> {
    if (this.#stopped) throw new Error("the informer factory has shut down");
    const namespace = options.namespace ?? this.#options.namespace;
    const labels =
      options.labelSelector === undefined
        ? ""
        : String(normalize(options.labelSelector, parseLabelSelector));
    const fields =
      options.fieldSelector === undefined
        ? ""
        : String(normalize(options.fieldSelector, parseFieldSelector));
    const api =
      definition.group === "" ? definition.version : `${definition.group}/${definition.version}`;
    const name = `${api}/${definition.plural}${namespace ? ` in ${namespace}` : ""}${labels ? ` labels ${labels}` : ""}${fields ? ` fields ${fields}` : ""}`;
    let informer = this.#informers.get(name) as SharedInformer<T> | undefined;
    if (informer === undefined) {
      const { client, namespace: _ns, transform, ...settings } = this.#options;
      const resource = client.resource(definition, namespace === undefined ? {} : { namespace });
      informer = new SharedInformer<T>({
        ...settings,
        name,
        listerWatcher: listerWatcherFor(resource, {
          ...(labels ? { labelSelector: labels } : {}),
          ...(fields ? { fieldSelector: fields } : {}),
        }),
        ...(transform === undefined ? {} : { transform: transform as unknown as (obj: T) => T }),
      });
      this.#informers.set(name, informer as unknown as SharedInformer<KubeObject>);
    }
    if (options.indexers !== undefined) {
      const fresh = Object.entries(options.indexers).filter(([k]) => !informer.hasIndex(k));
      informer.addIndexers(Object.fromEntries(fresh));
    }
    return informer;
  }

  /** A lister over the shared informer for the same arguments. */
  lister<T extends KubeObject>(
    definition: ResourceDefinition<T>,
    options: InformerFor<T> = {},
  ): Lister<T> {
    return new Lister({ store: this.informer(definition, options).store, definition });
  }

  /** Runs every informer not running yet; they stop when `signal` aborts or on {@link shutdown}. */
  start(signal?: AbortSignal): void {
    if (this.#stopped) throw new Error("the informer factory has shut down");
    for (const [name, informer] of this.#informers) {
      if (this.#running.has(name)) continue;
      this.#running.set(name, informer.run(signal));
    }
  }

  /**
   * Resolves when every started informer has synced; rejects with `signal.reason` on abort.
   * Returns the names of the informers it waited for.
   */
  async waitForCacheSync(signal?: AbortSignal): Promise<string[]> {
    const names = [...this.#running.keys()];
    await Promise.all(names.map((n) => this.#informers.get(n)!.waitForSync(signal)));
    return names;
  }

  /** Stops every informer and waits for them to end. Idempotent. */
  async shutdown(): Promise<void> {
    this.#stopped = true;
    await Promise.all([...this.#informers.values()].map((i) => i.stop()));
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.shutdown();
  }
}

function normalize<S>(value: string | S, parse: (text: string) => S): S {
  return typeof value === "string" ? parse(value) : value;
}
