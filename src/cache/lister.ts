/**
 * Listers: typed, read-only access to an informer's cache by namespace, name and label
 * selector, the way reconcilers read (client-go's generated listers).
 */
import {
  errors,
  InvalidOptionError,
  type KubeObject,
  keyOf,
  LabelSelector,
  parseLabelSelector,
} from "../core/index.ts";
import type { ResourceDefinition } from "../resources/index.ts";
import { NAMESPACE_INDEX, type Store } from "./store.ts";

/** A label selector as text (`app=web,tier!=db`) or parsed; absent selects everything. */
export type SelectorInput = string | LabelSelector | undefined;

function toSelector(selector: SelectorInput): LabelSelector {
  if (selector === undefined) return LabelSelector.everything();
  return typeof selector === "string" ? parseLabelSelector(selector) : selector;
}

function select<T extends KubeObject>(objects: Iterable<T>, selector: LabelSelector): T[] {
  const out: T[] = [];
  for (const o of objects) if (selector.matches(o.metadata?.labels)) out.push(o);
  return out;
}

/** A lister bound to one namespace. */
export interface NamespaceLister<T extends KubeObject> {
  /** The object `name` in this namespace; throws a NotFound `ApiError` if it is not cached. */
  get(name: string): T;
  /** The object `name` in this namespace, or undefined if it is not cached. */
  tryGet(name: string): T | undefined;
  /** The cached objects in this namespace matching `selector`. */
  list(selector?: SelectorInput): T[];
}

/** Options for {@link Lister}. */
export interface ListerOptions<T extends KubeObject> {
  /** The cache to read (an informer's `store`). */
  store: Store<T>;
  /** The resource the cache holds, for NotFound errors. */
  definition: Pick<ResourceDefinition, "group" | "plural">;
}

/**
 * Typed reads from an informer's cache. `get` throws a NotFound `ApiError` (as the API server
 * would), so that reconcilers handle "gone" one way whether they read the cache or the server;
 * `tryGet` returns undefined instead, for code that checks (an `=== undefined` test after `get`
 * compiles, and never fires). Objects are shared with the cache: copy before changing them.
 */
export class Lister<T extends KubeObject> {
  readonly #store: Store<T>;
  readonly #resource: { group: string; resource: string };

  constructor(options: ListerOptions<T>) {
    const { store, definition } = options;
    if (typeof store?.byIndex !== "function") {
      throw new InvalidOptionError("Lister", "store", store, "must be a Store");
    }
    if (typeof definition?.plural !== "string") {
      throw new InvalidOptionError("Lister", "definition", definition, "must be a resource");
    }
    this.#store = store;
    this.#resource = { group: definition.group, resource: definition.plural };
  }

  /**
   * The cached object `namespace/name` (or `name`, for a cluster-scoped kind). Throws a
   * NotFound `ApiError` if it is not cached.
   */
  get(namespace: string, name: string): T;
  get(name: string): T;
  get(namespaceOrName: string, name?: string): T {
    const obj = this.#lookup(namespaceOrName, name);
    if (obj === undefined) throw errors.notFound(this.#resource, name ?? namespaceOrName);
    return obj;
  }

  /**
   * The cached object `namespace/name` (or `name`, for a cluster-scoped kind), or undefined if
   * it is not cached.
   */
  tryGet(namespace: string, name: string): T | undefined;
  tryGet(name: string): T | undefined;
  tryGet(namespaceOrName: string, name?: string): T | undefined {
    return this.#lookup(namespaceOrName, name);
  }

  #lookup(namespaceOrName: string, name: string | undefined): T | undefined {
    return this.#store.get(name === undefined ? namespaceOrName : keyOf(namespaceOrName, name));
  }

  /** Every cached object matching `selector`, in every namespace. */
  list(selector?: SelectorInput): T[] {
    const s = toSelector(selector);
    const all = this.#store.list();
    return s.empty ? all : select(all, s);
  }

  /** A lister for one namespace (reads through the namespace index). */
  namespace(namespace: string): NamespaceLister<T> {
    return {
      get: (name) => this.get(namespace, name),
      tryGet: (name) => this.tryGet(namespace, name),
      list: (selector) => {
        const s = toSelector(selector);
        const inNs = this.#store.byIndex(NAMESPACE_INDEX, namespace);
        return s.empty ? inNs : select(inNs, s);
      },
    };
  }
}
