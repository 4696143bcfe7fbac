import { readFile } from "node:fs/promises";

/** An OpenAPI v3 schema as JSON (read, never changed). */
export type JsonSchema = Readonly<Record<string, unknown>>;

/** Where a component schema's `$ref`s point. */
export const COMPONENT_REF = "#/components/schemas/";

const FILE = new URL("./builtin-schemas.json", import.meta.url);

/**
 * The OpenAPI v3 component schemas of the built-in kinds (builtin-schemas.json, generated from
 * @kubernetes/client-node's models and kubernetes-types by test/apiserver/builtin-schemas.test.ts),
 * named as kube-apiserver names them (`io.k8s.api.core.v1.Pod`): one component per type, the
 * served kinds marked with `x-kubernetes-group-version-kind`, fields referring to the types they
 * use with `$ref`.
 *
 * Invariant: the table is never changed once read — documents hold its objects, and
 * serializing them is the only use. Read from disk on the first OpenAPI request, not at start.
 */
export class BuiltinSchemas {
  readonly #schemas: ReadonlyMap<string, JsonSchema>;
  readonly #byGvk = new Map<string, string>();
  readonly #refs = new Map<string, readonly string[]>();

  constructor(schemas: Readonly<Record<string, JsonSchema>>) {
    this.#schemas = new Map(Object.entries(schemas));
    for (const [name, s] of this.#schemas) {
      const gvks = s["x-kubernetes-group-version-kind"] as Gvk[] | undefined;
      for (const g of gvks ?? []) this.#byGvk.set(gvkKey(g.group, g.version, g.kind), name);
    }
  }

  /** Reads builtin-schemas.json. */
  static async load(): Promise<BuiltinSchemas> {
    return new BuiltinSchemas(JSON.parse(await readFile(FILE, "utf8")));
  }

  /** The component name of a kind, if it is a built-in one. */
  nameOf(group: string, version: string, kind: string): string | undefined {
    return this.#byGvk.get(gvkKey(group, version, kind));
  }

  /** A component schema by name. */
  get(name: string): JsonSchema | undefined {
    return this.#schemas.get(name);
  }

  /** The components `names` need: themselves and every one they refer to, transitively. */
  closure(names: Iterable<string>): Record<string, JsonSchema> {
    const out: Record<string, JsonSchema> = {};
    const pending = [...names];
    for (let name = pending.pop(); name !== undefined; name = pending.pop()) {
      if (name in out) continue;
      const schema = this.#schemas.get(name);
      if (schema === undefined) continue;
      out[name] = schema;
      pending.push(...this.#refsOf(name, schema));
    }
    return out;
  }

  #refsOf(name: string, schema: JsonSchema): readonly string[] {
    let refs = this.#refs.get(name);
    if (refs === undefined) {
      const found = new Set<string>();
      collectRefs(schema, found);
      refs = [...found];
      this.#refs.set(name, refs);
    }
    return refs;
  }
}

interface Gvk {
  group: string;
  version: string;
  kind: string;
}

const gvkKey = (group: string, version: string, kind: string) => `${group}/${version}/${kind}`;

/**
 * Every component a schema refers to. Only a string `$ref` is a reference: JSONSchemaProps has
 * a *field* named `$ref`, whose schema is an object.
 */
function collectRefs(value: unknown, found: Set<string>): void {
  if (Array.isArray(value)) {
    for (const v of value) collectRefs(v, found);
    return;
  }
  if (value === null || typeof value !== "object") return;
  for (const [k, v] of Object.entries(value)) {
    if (k === "$ref" && typeof v === "string" && v.startsWith(COMPONENT_REF)) {
      found.add(v.slice(COMPONENT_REF.length));
    } else {
      collectRefs(v, found);
    }
  }
}
