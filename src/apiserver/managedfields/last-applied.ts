import type { KubeObject } from "../../core/index.ts";
import { goJson } from "./path-element.ts";

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
  const copy = structuredClone(config);
  const annotations = copy.metadata?.annotations;
  if (annotations !== undefined) delete annotations[LAST_APPLIED];
  applied.metadata ??= {};
  applied.metadata.annotations = {
    ...applied.metadata.annotations,
    [LAST_APPLIED]: `${goJson(copy)}\n`,
  };
}
