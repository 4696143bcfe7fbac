import { isMap, isScalar, LineCounter, parseDocument, visit } from "yaml";
import { errors, type KubeObject } from "../../core/index.ts";
import { scaleApplyConfig, scaleApplyConflict, scaleOfObject } from "../registry/scale.ts";
import type { FieldValidation } from "../registry/types.ts";
import { sendObject } from "./output.ts";
import { withEscalationCheck } from "./rbac-writes.ts";
import { sendJson } from "./respond.ts";
import type { VerbRequest } from "./types.ts";
import { setWarnings } from "./write-options.ts";
import { writePreamble } from "./write-preamble.ts";

/** The media type of a server-side apply patch: a YAML (or JSON) object. */
export const APPLY_PATCH = "application/apply-patch+yaml";

/**
 * Decodes the body of an apply patch as kube's apply patcher does: YAML or JSON (JSON is YAML),
 * an empty body being an empty object; a key given twice keeps its last value (the strict check
 * is {@link applyPatchDuplicates}). 400 `error decoding YAML: …` for a body that does not
 * parse or is not an object.
 */
export function decodeApplyPatch(bytes: Buffer): Record<string, unknown> {
  const doc = parseDocument(bytes.toString("utf8"), { uniqueKeys: false, prettyErrors: false });
  const problem = doc.errors[0];
  if (problem !== undefined) throw errors.badRequest(`error decoding YAML: ${problem.message}`);
  const value: unknown = doc.toJS({ maxAliasCount: 100 });
  if (value === null || value === undefined) return {};
  if (typeof value !== "object" || Array.isArray(value)) {
    const what = Array.isArray(value) ? "a list" : `a ${typeof value}`;
    throw errors.badRequest(
      `error decoding YAML: an apply patch must be a YAML or JSON object, got ${what}`,
    );
  }
  return value as Record<string, unknown>;
}

/**
 * Keys an apply patch gives twice in one map, as kube's strict YAML decoding reports them
 * after the apply: with fieldValidation=Strict a 400 `error strict decoding YAML: …`, with Warn
 * the returned warning, with Ignore nothing.
 */
export function applyPatchDuplicates(bytes: Buffer, validation: FieldValidation): string[] {
  if (validation === "Ignore") return [];
  const lines = new LineCounter();
  const doc = parseDocument(bytes.toString("utf8"), { uniqueKeys: false, lineCounter: lines });
  const found: string[] = [];
  visit(doc, {
    Map(_, map) {
      if (!isMap(map)) return;
      const seen = new Set<string>();
      for (const pair of map.items) {
        const key = isScalar(pair.key) ? String(pair.key.value) : undefined;
        if (key === undefined) continue;
        if (seen.has(key)) {
          const at =
            isScalar(pair.key) && pair.key.range ? lines.linePos(pair.key.range[0]).line : 0;
          found.push(`line ${at}: key ${JSON.stringify(key)} already set in map`);
        }
        seen.add(key);
      }
    },
  });
  if (found.length === 0) return [];
  const message = `error converting YAML to JSON: yaml: unmarshal errors:\n  ${found.join("\n  ")}`;
  if (validation === "Strict") throw errors.badRequest(`error strict decoding YAML: ${message}`);
  return [message];
}

/**
 * A server-side apply (PATCH `application/apply-patch+yaml`): 201 if it created the object,
 * 200 otherwise. The patch must name the endpoint's apiVersion and kind (400); with
 * fieldValidation Strict or Warn, a key given twice is an error (before anything is written)
 * or a warning.
 */
export async function serveApply(v: VerbRequest): Promise<void> {
  const { ctx, res, r, served, warnings } = v;
  const w = await writePreamble(v, "PatchOptions", { apply: true });
  const patch = decodeApplyPatch(w.bytes);
  const scale = r.subresource === "scale";
  const config = scale ? scaleApplyConfig(served, r.namespace, r.name, patch) : patch;
  // kube reports duplicate keys after merging; refusing them first stores nothing either way.
  const duplicates = applyPatchDuplicates(w.bytes, w.fieldValidation);
  const options = withEscalationCheck(v, {
    manager: w.manager,
    force: w.force,
    dryRun: w.dryRun,
    fieldValidation: w.fieldValidation,
    warnings,
    requester: v.user,
    ...(r.subresource ? { subresource: r.subresource } : {}),
  });
  const applied = ctx.fields.apply(served, r.namespace, r.name, config as KubeObject, options);
  const { object, created } = await applied.catch((err: unknown) => {
    throw scale ? scaleApplyConflict(served, err) : err;
  });
  warnings.push(...duplicates);
  setWarnings(res, warnings);
  if (scale) return sendJson(res, 200, scaleOfObject(served, object));
  return sendObject(ctx, res, created ? 201 : 200, served, object, w.output, v.query);
}
