/**
 * The shape of an object as server-side apply sees it (structured-merge-diff's schema): what
 * merges field by field and what is replaced whole. Built from a custom resource's structural
 * schema (`crd-schema.ts`) or from the built-in kinds' models (`builtin-schema.ts`).
 *
 * - a *map* is an object: named fields (a struct's, or a schema's `properties`) and/or entries of
 *   one element type (`additionalProperties`, a Go map); granular unless `atomic`;
 * - a *list* is atomic (replaced whole), a set (`x-kubernetes-list-type: set`: items are scalar
 *   values) or a map (`x-kubernetes-list-type: map`: items are objects told apart by their
 *   `keys`, whose `keyDefaults` stand in for a key field an item leaves out);
 * - a *scalar* is a leaf; `untyped` scalars (int-or-string) accept any value, as a leaf;
 * - *deduced* takes its shape from the value: an object is a granular map of deduced values, an
 *   array an atomic list, anything else a scalar (unknown fields that are preserved).
 */
export type TypeNode = MapType | ListType | ScalarType | DeducedType;

/** An object: a struct's named fields and/or a map's entries. */
export interface MapType {
  readonly kind: "map";
  /** The type of a named field, if `name` is one. */
  field(name: string): TypeNode | undefined;
  /** The type of entries that are not named fields; without it, other keys are unknown. */
  readonly elements?: TypeNode;
  /** Replaced whole (`x-kubernetes-map-type: atomic`, `+structType=atomic`). */
  readonly atomic: boolean;
  /**
   * Named fields Go always writes, with the value it writes when they are empty: `{}` for a
   * non-pointer struct (a Deployment's `spec.template`), null for a slice or pointer without
   * `omitempty` (a pod's `spec.containers`). In an object that exists, an absent one compares
   * as that value, so an update that fills it in adds its fields but not the field itself (no
   * `"."` in the entry), as kube's typed objects do.
   */
  readonly implicit?: ReadonlyMap<string, unknown>;
}

/** A list: replaced whole, or merged item by item (a set, or a map by key fields). */
export interface ListType {
  readonly kind: "list";
  readonly element: TypeNode;
  readonly listType: "atomic" | "set" | "map";
  /** Key fields of a `map` list. */
  readonly keys: readonly string[];
  /** Values of key fields an item may leave out (a container port's `protocol: TCP`). */
  readonly keyDefaults?: Readonly<Record<string, unknown>>;
}

/** A leaf value. */
export interface ScalarType {
  readonly kind: "scalar";
  /** Any value is accepted, as a leaf (int-or-string, arbitrary JSON). */
  readonly untyped?: boolean;
}

/** Whatever the value is (fields a schema preserves without describing). */
export interface DeducedType {
  readonly kind: "deduced";
}

/** The type of preserved unknown fields. */
export const DEDUCED: DeducedType = { kind: "deduced" };
/** A string, number or boolean (or null). */
export const SCALAR: ScalarType = { kind: "scalar" };
/** A leaf that may hold anything (int-or-string, arbitrary JSON). */
export const UNTYPED: ScalarType = { kind: "scalar", untyped: true };

/** A granular map with the given named fields and, optionally, entries of `elements`. */
export function mapType(
  fields: ReadonlyMap<string, TypeNode> | ((name: string) => TypeNode | undefined),
  options: { elements?: TypeNode; atomic?: boolean; implicit?: ReadonlyMap<string, unknown> } = {},
): MapType {
  const lookup = typeof fields === "function" ? fields : (n: string) => fields.get(n);
  return {
    kind: "map",
    field: lookup,
    atomic: options.atomic ?? false,
    ...(options.elements ? { elements: options.elements } : {}),
    ...(options.implicit ? { implicit: options.implicit } : {}),
  };
}

const NO_FIELDS = () => undefined;
const DEDUCED_MAP: MapType = { kind: "map", field: NO_FIELDS, elements: DEDUCED, atomic: false };
const DEDUCED_LIST: ListType = { kind: "list", element: UNTYPED, listType: "atomic", keys: [] };

/** A JSON object, as objects are handled here. */
export type JsonObject = Record<string, unknown>;

/** True for a JSON object (not null, not an array). */
export const isObject = (v: unknown): v is JsonObject =>
  typeof v === "object" && v !== null && !Array.isArray(v);

/** The concrete type of `value` at `type`: deduced types become a map, a list or a scalar. */
export function resolve(type: TypeNode, value: unknown): MapType | ListType | ScalarType {
  if (type.kind !== "deduced") return type;
  if (isObject(value)) return DEDUCED_MAP;
  if (Array.isArray(value)) return DEDUCED_LIST;
  return SCALAR;
}

/** The type of entry `key` of a map, or undefined if the schema does not declare it. */
export function entryType(map: MapType, key: string): TypeNode | undefined {
  return map.field(key) ?? map.elements;
}

/** True if `key` is a named field of `map` (not an entry of its element type). */
export function isNamedField(map: MapType, key: string): boolean {
  return map.field(key) !== undefined;
}

/** The shape `value` has: what a schema type must agree with. */
export function shapeOf(value: unknown): "map" | "list" | "scalar" {
  if (isObject(value)) return "map";
  if (Array.isArray(value)) return "list";
  return "scalar";
}
