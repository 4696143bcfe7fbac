import { cloneJson } from "../../core/index.ts";

/**
 * Applies an RFC 7386 JSON merge patch: objects merge recursively, `null` deletes a key,
 * everything else (arrays included) replaces. Returns a new value; inputs are not modified.
 */
export function applyMergePatch(target: unknown, patch: unknown): unknown {
  if (typeof patch !== "object" || patch === null || Array.isArray(patch)) return cloneJson(patch);
  const base =
    typeof target === "object" && target !== null && !Array.isArray(target)
      ? { ...(target as Record<string, unknown>) }
      : {};
  for (const [k, v] of Object.entries(patch as Record<string, unknown>)) {
    if (v === null) delete base[k];
    else base[k] = applyMergePatch(base[k], v);
  }
  return base;
}
