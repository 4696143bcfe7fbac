/**
 * `kontroller gen types` and `kontroller crd`, end to end: a CRD written elsewhere → generated
 * TypeScript definitions → `crd()` gives back an equivalent CRD; the generated module
 * type-checks (tsc, with the project's settings) and validates objects like the server would.
 */
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { after, describe, it } from "node:test";
import { fileURLToPath, pathToFileURL } from "node:url";
import type { CrdManifest } from "kontroller/resources";
import ts from "typescript";
import { parse, parseAllDocuments } from "yaml";

const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
mkdirSync(join(root, ".tmp"), { recursive: true });
const dir = mkdtempSync(join(root, ".tmp", "codegen-"));
after(() => rmSync(dir, { recursive: true, force: true }));

function kontroller(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      join(root, "node_modules", ".bin", "node"),
      ["--conditions=kontroller-source", join(root, "src", "cli", "kontroller.ts"), ...args],
      { cwd: dir },
      (err, stdout, stderr) => resolve({ code: err ? (err.code as number) : 0, stdout, stderr }),
    );
  });
}

/** What tsc, with the project's settings, reports for `files` (and what they import). */
function typeErrors(files: string[]): string[] {
  const config = ts.getParsedCommandLineOfConfigFile(join(root, "tsconfig.json"), undefined, {
    ...ts.sys,
    onUnRecoverableConfigFileDiagnostic: (d) => assert.fail(String(d.messageText)),
  });
  const program = ts.createProgram(files, { ...config!.options, noEmit: true });
  return ts.getPreEmitDiagnostics(program).map((d) => {
    const where = d.file
      ? `${d.file.fileName}:${d.file.getLineAndCharacterOfPosition(d.start ?? 0).line + 1}`
      : "";
    return `${where} ${ts.flattenDiagnosticMessageText(d.messageText, "\n")}`;
  });
}

const CRD = `
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: certificates.certs.example.io
spec:
  group: certs.example.io
  names:
    kind: Certificate
    listKind: CertificateList
    plural: certificates
    singular: certificate
    shortNames: [cert, certs]
    categories: [certs]
  scope: Namespaced
  versions:
    - name: v1
      served: true
      storage: true
      subresources:
        status: {}
      additionalPrinterColumns:
        - { name: Ready, type: string, jsonPath: '.status.conditions[?(@.type=="Ready")].status' }
        - { name: Secret, type: string, jsonPath: .spec.secretName, priority: 1 }
        - { name: Age, type: date, jsonPath: .metadata.creationTimestamp }
      schema:
        openAPIV3Schema:
          type: object
          properties:
            apiVersion: { type: string }
            kind: { type: string }
            metadata: { type: object }
            spec:
              type: object
              required: [secretName, issuerRef]
              properties:
                secretName: { type: string, minLength: 1, description: Where the key pair goes. }
                duration: { type: string, anyOf: [{ pattern: "^[0-9]+h$" }, { pattern: "^[0-9]+m$" }] }
                dnsNames: { type: array, items: { type: string }, x-kubernetes-list-type: set }
                keySize: { type: integer, minimum: 1024, maximum: 8192, default: 2048 }
                ratio: { type: number, minimum: 0, exclusiveMinimum: true }
                algorithm: { type: string, enum: [RSA, ECDSA, Ed25519] }
                port: { x-kubernetes-int-or-string: true }
                isCA: { type: boolean }
                comment: { type: string, nullable: true }
                labels: { type: object, additionalProperties: { type: string } }
                extra: { type: object, x-kubernetes-preserve-unknown-fields: true }
                issuerRef:
                  type: object
                  required: [name]
                  properties:
                    name: { type: string }
                    kind: { type: string, enum: [Issuer, ClusterIssuer], default: Issuer }
                "usage-list":
                  type: array
                  x-kubernetes-list-type: map
                  x-kubernetes-list-map-keys: [name]
                  items: { type: object, required: [name], properties: { name: { type: string } } }
            status:
              type: object
              properties:
                conditions:
                  type: array
                  items:
                    type: object
                    required: [type, status]
                    properties:
                      type: { type: string }
                      status: { type: string, enum: ["True", "False", Unknown] }
                notAfter: { type: string, format: date-time }
          required: [spec]
    - name: v1alpha1
      served: true
      storage: false
      deprecated: true
      deprecationWarning: certs.example.io/v1alpha1 Certificate is deprecated
      schema:
        openAPIV3Schema:
          type: object
          properties:
            apiVersion: { type: string }
            kind: { type: string }
            metadata: { type: object }
            spec:
              type: object
              properties:
                secret: { type: string }
          required: [spec]
`;

describe("kontroller gen types / kontroller crd", () => {
  it("round-trips a CRD through generated TypeScript definitions", async () => {
    writeFileSync(join(dir, "crd.yaml"), CRD);
    const gen = await kontroller(["gen", "types", "crd.yaml", "-o", "certs.ts"]);
    assert.equal(gen.code, 0, gen.stderr);
    const mod = (await import(pathToFileURL(join(dir, "certs.ts")).href)) as Record<
      string,
      { crd(): CrdManifest }
    >;
    const original = parse(CRD) as CrdManifest;
    assert.deepEqual(mod.Certificate!.crd(), original);

    const printed = await kontroller(["crd", "certs.ts"]);
    assert.equal(printed.code, 0, printed.stderr);
    const docs = parseAllDocuments(printed.stdout).map((d) => d.toJS());
    assert.deepEqual(docs, [original]);
  });

  it("generates definitions that validate objects with field paths", async () => {
    const mod = (await import(pathToFileURL(join(dir, "certs.ts")).href)) as Record<
      string,
      { validate(o: unknown): { field?: string }[] }
    >;
    const causes = mod.Certificate!.validate({
      spec: {
        secretName: "",
        issuerRef: { name: "x", kind: "Other" },
        duration: "5s",
        dnsNames: ["a", "a"],
      },
    });
    assert.deepEqual(causes.map((c) => c.field).sort(), [
      "spec.dnsNames[1]",
      "spec.duration",
      "spec.issuerRef.kind",
      "spec.secretName",
    ]);
  });

  it("generates a module that type-checks, typed as the schema says", () => {
    writeFileSync(
      join(dir, "uses.ts"),
      `import { Certificate } from "./certs.ts";
const c = Certificate.object({
  metadata: { name: "c" },
  spec: { secretName: "s", issuerRef: { name: "i" } },
});
export const kind: "Issuer" | "ClusterIssuer" | undefined = c.spec.issuerRef.kind;
export const port: number | string | undefined = c.spec.port;
export const comment: string | null | undefined = c.spec.comment;
export const labels: Record<string, string> | undefined = c.spec.labels;
export const names: string[] | undefined = c.spec.dnsNames;
export const ready: "True" | "False" | "Unknown" | undefined = c.status?.conditions?.[0]?.status;
export const old: string | undefined = Certificate.at("v1alpha1").object({ metadata: {}, spec: {} })
  .spec.secret;
const noSecret = { issuerRef: { name: "i" } };
// @ts-expect-error secretName is required
Certificate.object({ metadata: {}, spec: noSecret });
const dsa = { secretName: "s", issuerRef: { name: "i" }, algorithm: "DSA" };
// @ts-expect-error algorithm is one of RSA, ECDSA, Ed25519
Certificate.object({ metadata: {}, spec: dsa });
// @ts-expect-error v1alpha1 is the only other version
Certificate.at("v2");
`,
    );
    assert.deepEqual(typeErrors([join(dir, "certs.ts"), join(dir, "uses.ts")]), []);
  });

  it("crd prints one CRD per kind that a module exports, and nothing else", async () => {
    writeFileSync(
      join(dir, "kinds.ts"),
      `import { defineResource } from "kontroller/resources";
import { Type } from "typebox";
export const Alpha = defineResource({
  group: "x.example.com", version: "v1", kind: "Alpha", plural: "alphas",
  spec: Type.Object({}), otherVersions: { v1beta1: { spec: Type.Object({}) } },
});
export const AlphaOld = Alpha.at("v1beta1");
export const Beta = defineResource({
  group: "x.example.com", version: "v1", kind: "Beta", plural: "betas", scope: "Cluster",
  spec: Type.Object({ n: Type.Integer() }),
});
export const notADefinition = { crd: 1, kind: "Nope" };
`,
    );
    const printed = await kontroller(["crd", "kinds.ts"]);
    assert.equal(printed.code, 0, printed.stderr);
    const docs = parseAllDocuments(printed.stdout).map((d) => d.toJS() as CrdManifest);
    const mod = (await import(pathToFileURL(join(dir, "kinds.ts")).href)) as Record<
      string,
      { crd(): CrdManifest }
    >;
    assert.deepEqual(docs, [mod.Alpha!.crd(), mod.Beta!.crd()]);
    assert.deepEqual(
      docs.map((d) => [d.metadata.name, d.spec.versions.map((v) => v.name)]),
      [
        ["alphas.x.example.com", ["v1", "v1beta1"]],
        ["betas.x.example.com", ["v1"]],
      ],
    );
  });

  it("explains what is wrong with bad input", async () => {
    writeFileSync(join(dir, "empty.yaml"), "kind: ConfigMap\napiVersion: v1\n");
    writeFileSync(join(dir, "broken.yaml"), "kind: [\n");
    const cases: [string[], number, RegExp][] = [
      [["gen"], 2, /say what to generate/],
      [["gen", "schemas", "crd.yaml"], 2, /unknown target "schemas"/],
      [["gen", "types", "missing.yaml"], 1, /ENOENT|no such file/],
      [["gen", "types", "empty.yaml"], 1, /no CustomResourceDefinition in empty\.yaml/],
      [["gen", "types", "broken.yaml"], 1, /broken\.yaml: /],
      [["crd"], 2, /name a module/],
      [["crd", "crd.yaml"], 1, /cannot load crd\.yaml/],
    ];
    for (const [args, code, message] of cases) {
      const r = await kontroller(args);
      assert.equal(r.code, code, `${args.join(" ")}: ${r.stderr}`);
      assert.match(r.stderr, message, args.join(" "));
    }
    writeFileSync(join(dir, "none.ts"), "export const x = 1;\n");
    const none = await kontroller(["crd", "none.ts"]);
    assert.equal(none.code, 1);
    assert.match(none.stderr, /exports no definition made with defineResource/);
    assert.ok(
      readFileSync(join(dir, "certs.ts"), "utf8").startsWith(
        "// Generated by `kontroller gen types`",
      ),
    );
  });
});
