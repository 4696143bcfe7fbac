/**
 * src/apiserver/registry/builtin-fields.ts — the fields of every built-in kind the server
 * serves — is generated from @kubernetes/client-node's models (the same OpenAPI the Go types
 * come from). This test rebuilds the table and fails when the committed one differs;
 * `KONTROLLER_UPDATE_BUILTIN_FIELDS=1` writes it instead (then `npm run format`).
 */
import assert from "node:assert/strict";
import { readFile, writeFile } from "node:fs/promises";
import { it } from "node:test";
import * as clientNode from "@kubernetes/client-node";

const FILE = new URL("../../src/apiserver/registry/builtin-fields.ts", import.meta.url);

/** The root model of each served kind (events.k8s.io Events are stored as core/v1 ones). */
const ROOTS: Record<string, string> = {
  Namespace: "V1Namespace",
  ConfigMap: "V1ConfigMap",
  Secret: "V1Secret",
  Service: "V1Service",
  ServiceAccount: "V1ServiceAccount",
  Pod: "V1Pod",
  Node: "V1Node",
  Event: "CoreV1Event",
  Lease: "V1Lease",
  Deployment: "V1Deployment",
  CustomResourceDefinition: "V1CustomResourceDefinition",
  ReplicaSet: "V1ReplicaSet",
  StatefulSet: "V1StatefulSet",
  DaemonSet: "V1DaemonSet",
  Job: "V1Job",
  CronJob: "V1CronJob",
  ReplicationController: "V1ReplicationController",
  PodTemplate: "V1PodTemplate",
};

interface Model {
  attributeTypeMap: { baseName: string; type: string }[];
}
const models = new Map(Object.entries(clientNode as Record<string, unknown>));
const modelOf = (name: string) => models.get(name) as Partial<Model> | undefined;

/** `Array<T>` and `{ [key: string]: T; }` wrappers, outermost first, and the inner type. */
function unwrap(type: string): { wrappers: string; inner: string } {
  let wrappers = "";
  let inner = type;
  for (;;) {
    const array = /^Array<(.*)>$/.exec(inner);
    const map = /^\{ \[key: string\]: (.*); \}$/.exec(inner);
    if (array === null && map === null) return { wrappers, inner };
    wrappers += array ? "[]" : "{}";
    inner = (array ?? map)![1]!;
  }
}

/** Each reachable type's fields, in the table's notation (see builtin-fields.ts). */
function generate(): Map<string, string> {
  const types = new Map<string, string>();
  const visit = (name: string) => {
    if (types.has(name)) return;
    types.set(name, "");
    const fields: string[] = [];
    for (const a of modelOf(name)!.attributeTypeMap!) {
      const { wrappers, inner } = unwrap(a.type);
      if (inner === "any") fields.push(`${a.baseName}:*`);
      else if (modelOf(inner)?.attributeTypeMap) {
        visit(inner);
        fields.push(`${a.baseName}:${wrappers}${inner}`);
      } else fields.push(a.baseName);
    }
    types.set(name, fields.join(" "));
  };
  for (const root of Object.values(ROOTS)) visit(root);
  return new Map([...types].sort(([a], [b]) => (a < b ? -1 : 1)));
}

function render(types: Map<string, string>): string {
  return `// Generated from @kubernetes/client-node's models by test/apiserver/builtin-fields.test.ts
// (KONTROLLER_UPDATE_BUILTIN_FIELDS=1): do not edit. A data table, one entry per type.

/**
 * The fields of each type, space-separated: \`name\` for a scalar (or a list or map of scalars),
 * \`name:T\` for a field of type T, \`name:[]T\` / \`name:{}T\` for a list / map of T (wrappers
 * nest, outermost first), \`name:*\` for arbitrary JSON.
 */
export const BUILTIN_TYPES: Readonly<Record<string, string>> = {
${[...types].map(([n, f]) => `  ${n}: ${JSON.stringify(f)},`).join("\n")}
};

/** The root type of each served built-in kind. */
export const BUILTIN_ROOTS: Readonly<Record<string, string>> = ${JSON.stringify(ROOTS)};
`;
}

/** The entries of an object literal in the file (as formatted, values may wrap a line). */
function entries(text: string, name: string): Map<string, string> {
  const start = text.indexOf(`export const ${name}`);
  const body = text.slice(text.indexOf("{", start) + 1, text.indexOf("};", start));
  return new Map([...body.matchAll(/(\w+):\s*"([^"]*)"/g)].map((m) => [m[1]!, m[2]!]));
}

it("builtin-fields.ts is the table client-node's models give", async () => {
  const types = generate();
  if (process.env.KONTROLLER_UPDATE_BUILTIN_FIELDS === "1") {
    await writeFile(FILE, render(types));
    return;
  }
  const text = await readFile(FILE, "utf8");
  assert.deepEqual(entries(text, "BUILTIN_ROOTS"), new Map(Object.entries(ROOTS)));
  assert.deepEqual(
    entries(text, "BUILTIN_TYPES"),
    types,
    "regenerate: KONTROLLER_UPDATE_BUILTIN_FIELDS=1 node --conditions=kontroller-source --test test/apiserver/builtin-fields.test.ts && npm run format",
  );
});
