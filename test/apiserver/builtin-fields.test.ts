/**
 * src/apiserver/registry/builtin-fields.ts — the fields of every built-in kind the server
 * serves — is generated from Kubernetes 1.36's OpenAPI documents in ../shared/k8s-api
 * (builtin-fields-gen.ts). This test rebuilds the table and fails when the committed one
 * differs; `KONTROLLER_UPDATE_BUILTIN_FIELDS=1` writes it instead (then `npm run format`).
 */
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { readFile, writeFile } from "node:fs/promises";
import { it } from "node:test";
import { BUILTIN_RESOURCES } from "kontroller/resources";
import { generateBuiltinFields, renderBuiltinFields } from "./builtin-fields-gen.ts";
import { OPENAPI_DIR } from "./builtin-resources-gen.ts";

const FILE = new URL("../../src/apiserver/registry/builtin-fields.ts", import.meta.url);

/** The entries of an object literal in the file (as formatted, values may wrap a line). */
function entries(text: string, name: string): Map<string, string> {
  const start = text.indexOf(`export const ${name}`);
  const body = text.slice(text.indexOf("{", start) + 1, text.indexOf("};", start));
  return new Map(
    [...body.matchAll(/("(?:[^"\\]|\\.)*"|\w+):\s*("(?:[^"\\]|\\.)*")/g)].map((m) => [
      m[1]!.startsWith('"') ? (JSON.parse(m[1]!) as string) : m[1]!,
      JSON.parse(m[2]!) as string,
    ]),
  );
}

it("builtin-fields.ts is the table Kubernetes' OpenAPI documents give", {
  skip: existsSync(OPENAPI_DIR)
    ? false
    : `no reference data at ${OPENAPI_DIR.pathname} (../shared/k8s-api, beside the repository)`,
}, async () => {
  const kinds = BUILTIN_RESOURCES.map((r) => `${r.group}/${r.version}/${r.kind}`);
  const { types, roots } = generateBuiltinFields([...new Set(kinds)]);
  if (process.env.KONTROLLER_UPDATE_BUILTIN_FIELDS === "1") {
    await writeFile(FILE, renderBuiltinFields(types, roots));
    return;
  }
  const text = await readFile(FILE, "utf8");
  const hint =
    "regenerate: KONTROLLER_UPDATE_BUILTIN_FIELDS=1 node --conditions=kontroller-source --test test/apiserver/builtin-fields.test.ts && npm run format";
  assert.deepEqual(entries(text, "BUILTIN_ROOTS"), roots, hint);
  assert.deepEqual(entries(text, "BUILTIN_TYPES"), types, hint);
});
