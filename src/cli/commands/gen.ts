import { readFileSync, writeFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { errorMessage } from "kontroller/core";
import { type CrdManifest, definitionModule } from "kontroller/resources";
import { parseAllDocuments } from "yaml";
import type { Command } from "../command.ts";

const USAGE = `usage: kontroller gen types <crd.yaml>... [-o <out.ts>] [--import-from <module>]
  generates a TypeScript module that defines (with defineResource) the kinds of the CRDs,
  so that resources defined elsewhere are typed like your own
`;

/** Reads every CustomResourceDefinition in the YAML or JSON files; throws naming the file. */
export function readCrds(paths: readonly string[]): CrdManifest[] {
  const crds: CrdManifest[] = [];
  for (const path of paths) {
    const text = readFileSync(path, "utf8");
    for (const doc of parseAllDocuments(text)) {
      if (doc.errors.length > 0) throw new Error(`${path}: ${doc.errors[0]!.message}`);
      const value = doc.toJS() as { kind?: string; items?: unknown[] } | null;
      const objects =
        value?.kind === "List" || value?.kind === "CustomResourceDefinitionList"
          ? (value.items ?? [])
          : [value];
      for (const o of objects) {
        if ((o as { kind?: string } | null)?.kind === "CustomResourceDefinition")
          crds.push(o as CrdManifest);
      }
    }
  }
  return crds;
}

export const command: Command = {
  summary: "generate TypeScript definitions from CRD manifests (gen types <crd.yaml>)",
  async run(args) {
    const { positionals, values } = parseArgs({
      args,
      allowPositionals: true,
      options: {
        out: { type: "string", short: "o" },
        "import-from": { type: "string" },
        help: { type: "boolean", short: "h" },
      },
    });
    if (values.help) {
      process.stdout.write(USAGE);
      return 0;
    }
    const [what, ...files] = positionals;
    if (what !== "types" || files.length === 0) {
      process.stderr.write(
        `kontroller gen: ${what === undefined ? "say what to generate" : `unknown target ${JSON.stringify(what)}`}\n${USAGE}`,
      );
      return 2;
    }
    let crds: CrdManifest[];
    try {
      crds = readCrds(files);
    } catch (e) {
      process.stderr.write(`kontroller gen: ${errorMessage(e)}\n`);
      return 1;
    }
    if (crds.length === 0) {
      process.stderr.write(`kontroller gen: no CustomResourceDefinition in ${files.join(", ")}\n`);
      return 1;
    }
    let source: string;
    try {
      source = definitionModule(crds, { importFrom: values["import-from"] });
    } catch (e) {
      process.stderr.write(`kontroller gen: ${errorMessage(e)}\n`);
      return 1;
    }
    if (values.out === undefined) process.stdout.write(source);
    else writeFileSync(values.out, source);
    return 0;
  },
};
