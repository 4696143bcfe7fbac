import {
  type BuiltinType,
  builtinRoot,
  builtinTypeNamed,
  type FieldValue,
} from "../registry/builtin-types.ts";
import {
  DEDUCED,
  type ListType,
  type MapType,
  mapType,
  SCALAR,
  type TypeNode,
  UNTYPED,
} from "./schema.ts";

/**
 * The server-side apply schema of the built-in kinds, from the generated table of their types
 * (`registry/builtin-types.ts`): list types and keys, atomic structs and maps, and the fields Go
 * always writes (`MapType.implicit`).
 */

const types = new Map<string, MapType>();

/** The schema of a type of the table (deduced for one it does not have). */
function typeNamed(name: string): TypeNode {
  const cached = types.get(name);
  if (cached !== undefined) return cached;
  const type = builtinTypeNamed(name);
  if (type === undefined) return DEDUCED;
  const t = structType(type);
  types.set(name, t);
  return t;
}

function structType(type: BuiltinType): MapType {
  let fields: Map<string, TypeNode> | undefined;
  const lookup = (name: string): TypeNode | undefined => {
    fields ??= new Map([...type.fields].map(([n, f]) => [n, valueType(f.value)]));
    return fields.get(name);
  };
  const implicit = [...type.fields]
    .filter(([, f]) => f.written !== undefined)
    .map(([n, f]) => [n, f.written] as const);
  return mapType(lookup, {
    atomic: type.atomic,
    ...(implicit.length > 0 ? { implicit: new Map(implicit) } : {}),
  });
}

function valueType(value: FieldValue): TypeNode {
  switch (value.kind) {
    case "scalar":
      return UNTYPED;
    case "any":
      return value.atomic ? UNTYPED : DEDUCED;
    case "struct":
      return typeNamed(value.type);
    case "map":
      return mapType(() => undefined, {
        elements: valueType(value.element),
        atomic: value.atomic,
      });
    case "list": {
      const list: ListType = {
        kind: "list",
        element: value.element.kind === "scalar" ? SCALAR : valueType(value.element),
        listType: value.listType,
        keys: value.keys,
        ...(Object.keys(value.keyDefaults).length > 0 ? { keyDefaults: value.keyDefaults } : {}),
      };
      return list;
    }
  }
}

/** The schema of a built-in kind (undefined for a kind the table does not have). */
export function builtinType(group: string, version: string, kind: string): TypeNode | undefined {
  const root = builtinRoot(group, version, kind);
  return root === undefined ? undefined : typeNamed(root.name);
}

/** The schema of `metadata` (ObjectMeta), which custom resources share. */
export function objectMetaType(): TypeNode {
  return typeNamed("meta.v1.ObjectMeta");
}
