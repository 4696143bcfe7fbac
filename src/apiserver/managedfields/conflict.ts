import { ApiError, type StatusCause } from "../../core/index.ts";
import { parseManagerId } from "./managed-fields.ts";
import { type Path, pathString } from "./path-element.ts";

/**
 * How kube names a manager in a conflict: `"kubectl"`, `"kubectl" with subresource "status"`,
 * and for an updater `"controller" using apps/v1`.
 */
export function printManager(id: string): string {
  let info: ReturnType<typeof parseManagerId>;
  try {
    info = parseManagerId(id);
  } catch {
    return JSON.stringify(id);
  }
  let out = JSON.stringify(info.manager);
  if (info.subresource) out += ` with subresource ${JSON.stringify(info.subresource)}`;
  if (info.operation === "Update") out += ` using ${info.apiVersion ?? ""}`;
  return out;
}

/**
 * The 409 of an apply that would change fields other managers own, as kube's
 * `NewConflictError`: one `FieldManagerConflict` cause per field (`conflict with "mgr" using
 * v1` at `.spec.x`), and a message that lists them by manager.
 */
export function applyConflictError(
  conflicts: readonly { manager: string; path: Path }[],
): ApiError {
  const causes: StatusCause[] = conflicts.map((c) => ({
    reason: "FieldManagerConflict",
    message: `conflict with ${printManager(c.manager)}`,
    field: pathString(c.path),
  }));
  return ApiError.of("Conflict", conflictMessage(conflicts), { causes }, 409);
}

function conflictMessage(conflicts: readonly { manager: string; path: Path }[]): string {
  if (conflicts.length === 1) {
    const c = conflicts[0]!;
    return `Apply failed with 1 conflict: conflict with ${printManager(c.manager)}: ${pathString(c.path)}`;
  }
  const byManager = new Map<string, string[]>();
  for (const c of conflicts) {
    const list = byManager.get(c.manager) ?? [];
    list.push(pathString(c.path));
    byManager.set(c.manager, list);
  }
  const lines: string[] = [];
  for (const m of [...byManager.keys()].sort()) {
    lines.push(`conflicts with ${printManager(m)}:`);
    for (const p of byManager.get(m)!) lines.push(`- ${p}`);
  }
  return `Apply failed with ${conflicts.length} conflicts: ${lines.join("\n")}`;
}
