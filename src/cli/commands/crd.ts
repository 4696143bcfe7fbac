import { resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import { errorMessage } from "kontroller/core";
import type { CrdManifest } from "kontroller/resources";
import { stringify } from "yaml";
import type { Command } from "../command.ts";

const USAGE =
  "usage: kontroller crd <module>...\n  prints, as YAML, the CRD of every definition the modules export\n";

/** A value exported by a module that is a `defineResource` definition. */
function isDefinition(v: unknown): v is { crd(): CrdManifest; kind: string } {
  return (
    typeof v === "object" &&
    v !== null &&
    typeof (v as { crd?: unknown }).crd === "function" &&
    typeof (v as { schema?: unknown }).schema === "object"
  );
}

export const command: Command = {
  summary: "print the CRD manifests of the definitions a module exports (YAML)",
  async run(args) {
    const { positionals, values } = parseArgs({
      args,
      allowPositionals: true,
      options: { help: { type: "boolean", short: "h" } },
    });
    if (values.help) {
      process.stdout.write(USAGE);
      return 0;
    }
    if (positionals.length === 0) {
      process.stderr.write(`kontroller crd: name a module\n${USAGE}`);
      return 2;
    }
    const docs: string[] = [];
    for (const path of positionals) {
      let mod: Record<string, unknown>;
      try {
        mod = (await import(pathToFileURL(resolve(path)).href)) as Record<string, unknown>;
      } catch (e) {
        process.stderr.write(`kontroller crd: cannot load ${path}: ${errorMessage(e)}\n`);
        return 1;
      }
      const defs = Object.values(mod).filter(isDefinition);
      if (defs.length === 0) {
        process.stderr.write(
          `kontroller crd: ${path} exports no definition made with defineResource\n`,
        );
        return 1;
      }
      // One CRD per kind, even when a module exports several versions of it.
      const seen = new Set<string>();
      for (const d of defs) {
        const crd = d.crd();
        if (seen.has(crd.metadata.name)) continue;
        seen.add(crd.metadata.name);
        docs.push(stringify(crd, { lineWidth: 0 }));
      }
    }
    process.stdout.write(docs.join("---\n"));
    return 0;
  },
};
