import {
  deepEqual,
  type KubeObject,
  type LabelSelector,
  parseLabelSelector,
} from "../core/index.ts";

/**
 * Filters the events that reach a controller's queue (controller-runtime's predicates). A
 * missing method lets every event of that type through. A predicate that throws is reported by
 * the controller and counts as `false`.
 */
export interface Predicate<T extends KubeObject = KubeObject> {
  create?(obj: T): boolean;
  update?(oldObj: T, newObj: T): boolean;
  delete?(obj: T): boolean;
}

/** Passes updates whose `metadata.generation` changed (spec changes), ignoring status-only and metadata-only ones. */
export const generationChanged: Predicate = {
  update: (o, n) => o.metadata?.generation !== n.metadata?.generation,
};

/** Passes updates whose resourceVersion changed: drops the no-op updates of a resync. */
export const resourceVersionChanged: Predicate = {
  update: (o, n) => o.metadata?.resourceVersion !== n.metadata?.resourceVersion,
};

/** Passes updates whose labels changed. */
export const labelsChanged: Predicate = {
  update: (o, n) => !deepEqual(o.metadata?.labels ?? {}, n.metadata?.labels ?? {}),
};

/** Passes updates whose annotations changed. */
export const annotationsChanged: Predicate = {
  update: (o, n) => !deepEqual(o.metadata?.annotations ?? {}, n.metadata?.annotations ?? {}),
};

/**
 * Passes events of objects whose labels match `selector` (for an update, the new object).
 * Throws a `SelectorError` at once for a selector that does not parse.
 */
export function labelSelector(selector: string | LabelSelector): Predicate {
  const s = typeof selector === "string" ? parseLabelSelector(selector) : selector;
  const matches = (obj: KubeObject) => s.matches(obj.metadata?.labels);
  return { create: matches, update: (_o, n) => matches(n), delete: matches };
}

type Kind = "create" | "update" | "delete";

function run<T extends KubeObject>(p: Predicate<T>, kind: Kind, args: [T] | [T, T]): boolean {
  const f = p[kind] as ((...a: T[]) => boolean) | undefined;
  return f === undefined ? true : f.apply(p, args);
}

function combine<T extends KubeObject>(
  test: (kind: Kind, args: [T] | [T, T]) => boolean,
): Predicate<T> {
  return {
    create: (o) => test("create", [o]),
    update: (o, n) => test("update", [o, n]),
    delete: (o) => test("delete", [o]),
  };
}

/** Passes an event only if every predicate passes it. */
export function and<T extends KubeObject>(...ps: Predicate<T>[]): Predicate<T> {
  return combine((kind, args) => ps.every((p) => run(p, kind, args)));
}

/** Passes an event if any predicate passes it (none given: passes nothing). */
export function or<T extends KubeObject>(...ps: Predicate<T>[]): Predicate<T> {
  return combine((kind, args) => ps.some((p) => run(p, kind, args)));
}

/** Passes exactly the events `p` drops. */
export function not<T extends KubeObject>(p: Predicate<T>): Predicate<T> {
  return combine((kind, args) => !run(p, kind, args));
}

/** Evaluates `p` for one event. */
export function evaluate<T extends KubeObject>(
  p: Predicate<T>,
  kind: Kind,
  obj: T,
  oldObj?: T,
): boolean {
  return run(p, kind, kind === "update" ? [oldObj ?? obj, obj] : [obj]);
}
