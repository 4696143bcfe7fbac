/**
 * src/apiserver/http/builtin-schemas.json — the OpenAPI component schemas of every built-in
 * kind, which /openapi/v3 and /openapi/v2 serve and `kubectl explain` reads — is generated from
 * Kubernetes 1.36's OpenAPI documents in ../shared/k8s-api (the structure) and from
 * @kubernetes/client-node's models and kubernetes-types (the descriptions) by
 * builtin-schemas-gen.ts. This test rebuilds it and fails when the committed file differs;
 * `KONTROLLER_UPDATE_BUILTIN_SCHEMAS=1` writes it instead.
 */
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { readFile, writeFile } from "node:fs/promises";
import { it } from "node:test";
import { OPENAPI_DIR } from "./builtin-resources-gen.ts";
import { generateBuiltinSchemas, renderBuiltinSchemas } from "./builtin-schemas-gen.ts";

const FILE = new URL("../../src/apiserver/http/builtin-schemas.json", import.meta.url);

/** The file ships in the package (twice: src and dist); it grows only with the API. */
const MAX_BYTES = 1024 * 1024;

const noReferenceData = existsSync(OPENAPI_DIR)
  ? false
  : `no reference data at ${OPENAPI_DIR.pathname} (../shared/k8s-api, beside the repository)`;

it("builtin-schemas.json is kube's schemas with the descriptions client-node and kubernetes-types give", {
  skip: noReferenceData,
}, async () => {
  const { schemas, missing } = generateBuiltinSchemas();
  // The packages describe every type; what they lack is fields of struct type newer than
  // kubernetes-types (client-node documents scalar fields only): those go undescribed.
  assert.deepEqual(
    missing.filter((m) => schemas.has(m)),
    [],
    "every type has a description",
  );
  const text = renderBuiltinSchemas(schemas);
  if (process.env.KONTROLLER_UPDATE_BUILTIN_SCHEMAS === "1") {
    await writeFile(FILE, text);
    return;
  }
  const committed = await readFile(FILE, "utf8");
  // Name the components that differ rather than print two 300 KiB strings.
  const lines = (t: string) => new Set(t.split("\n"));
  const want = lines(text);
  const have = lines(committed);
  const name = (line: string) => /^"([^"]+)"/.exec(line)?.[1] ?? line.slice(0, 60);
  const stale = [...want].filter((l) => !have.has(l)).map(name);
  const extra = [...have].filter((l) => !want.has(l)).map(name);
  assert.deepEqual(
    { stale, extra },
    { stale: [], extra: [] },
    "regenerate: KONTROLLER_UPDATE_BUILTIN_SCHEMAS=1 node --conditions=kontroller-source --test test/apiserver/builtin-schemas.test.ts",
  );
  assert.equal(committed, text);
});

it("builtin-schemas.json stays compact: one shared component per type, under 1 MiB", async () => {
  const text = await readFile(FILE, "utf8");
  assert.ok(text.length < MAX_BYTES, `builtin-schemas.json is ${text.length} bytes`);
  const schemas = JSON.parse(text) as Record<string, Record<string, unknown>>;
  // Shared, not inlined: PodSpec is one component, which Pod and Deployment both reach by $ref.
  const refs = (name: string) => JSON.stringify(schemas[name]).match(/"\$ref":"[^"]+"/g) ?? [];
  assert.ok(refs("io.k8s.api.core.v1.PodTemplateSpec").some((r) => r.endsWith('.PodSpec"')));
  assert.ok(refs("io.k8s.api.core.v1.Pod").some((r) => r.endsWith('.PodSpec"')));
  assert.equal(text.match(/"io\.k8s\.api\.core\.v1\.PodSpec":\{/g)?.length, 1);
});
