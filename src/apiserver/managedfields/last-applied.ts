import { cloneJson, type KubeObject } from "../../core/index.ts";
import type { FieldSet } from "./field-set.ts";
import { compare } from "./merge.ts";
import { goJson, type Path } from "./path-element.ts";
import type { JsonObject, TypeNode } from "./schema.ts";
import { toFieldSet } from "./to-field-set.ts";

/** kubectl's client-side apply annotation. */
export const LAST_APPLIED = "kubectl.kubernetes.io/last-applied-configuration";

/**
 * Keeps kubectl's client-side apply annotation in step with a server-side apply by `kubectl`
 * (kube's `lastAppliedUpdater`): if the applied object has the annotation, it gets
 * the applied configuration, without the annotation, as kubectl writes it (Go's JSON with sorted
 * keys, and a newline) — so a later client-side apply sees what was applied last.
 */
export function syncLastApplied(config: KubeObject, applied: KubeObject): void {
  const current = applied.metadata?.annotations?.[LAST_APPLIED];
  if (current === undefined || current === "") return;
  const copy = cloneJson(config);
  const annotations = copy.metadata?.annotations;
  if (annotations !== undefined) delete annotations[LAST_APPLIED];
  applied.metadata ??= {};
  applied.metadata.annotations = {
    ...applied.metadata.annotations,
    [LAST_APPLIED]: `${goJson(copy)}\n`,
  };
}

/**
 * The conflicts kubectl's first server-side apply of an object it applied client-side may
 * override (kube's `lastAppliedManager`): fields its last-applied configuration sets to the
 * value they still have. Undefined (none) without a usable annotation — one of another
 * apiVersion, or one that does not parse or fit the schema.
 */
export function lastAppliedOwns(
  live: JsonObject,
  apiVersion: string,
  type: TypeNode,
): FieldSet | undefined {
  const annotations = (live.metadata as KubeObject["metadata"])?.annotations;
  const text = annotations?.[LAST_APPLIED];
  if (text === undefined || text === "") return undefined;
  try {
    const last = JSON.parse(text) as JsonObject;
    if (last === null || typeof last !== "object" || last.apiVersion !== apiVersion)
      return undefined;
    const c = compare(last, live, type);
    return toFieldSet(last, type, false)
      .difference(c.modified)
      .difference(c.added)
      .difference(c.removed);
  } catch {
    return undefined;
  }
}

/** The conflicts `allowed` does not cover. */
export function notAllowed<C extends { path: Path }>(
  conflicts: readonly C[],
  allowed: FieldSet,
): C[] {
  return conflicts.filter((c) => !allowed.has(c.path));
}
