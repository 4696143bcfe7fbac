import type { IncomingMessage, ServerResponse } from "node:http";
import { errors, type StatusCause } from "../../core/index.ts";
import type { DeleteOptions } from "../registry/deletion.ts";
import { field } from "../registry/field-errors.ts";
import type { FieldValidation } from "../registry/store.ts";
import { parseJson, readBody } from "./body.ts";

/*
 * The options of writes (meta/v1 CreateOptions, UpdateOptions, PatchOptions, DeleteOptions),
 * validated as kube's handlers do: a bad value is 422 Invalid on the options kind, with the
 * field named (`PatchOptions.meta.k8s.io "" is invalid: force: Forbidden: …`).
 */

/** What a create, update or patch was asked to do besides the write. */
export interface WriteParams {
  /** `dryRun=All`: validate and answer, store nothing. */
  readonly dryRun: boolean;
  /** What unknown fields do (kube's default: Warn). */
  readonly fieldValidation: FieldValidation;
}

type OptionsKind = "CreateOptions" | "UpdateOptions" | "PatchOptions" | "DeleteOptions";

const FIELD_VALIDATION = ["Ignore", "Strict", "Warn"];

function invalid(kind: OptionsKind, causes: StatusCause[]): never {
  throw errors.invalid(kind, "meta.k8s.io", "", causes);
}

function dryRunCauses(values: readonly unknown[]): StatusCause[] {
  return values.every((v) => v === "All") ? [] : [field.notSupported("dryRun", values, ["All"])];
}

/**
 * Sets the `Warning` headers of a response, as kube writes them (code 299, no agent): kubectl
 * prints each as `Warning: <text>`.
 */
export function setWarnings(res: ServerResponse, warnings: readonly string[]): void {
  if (warnings.length > 0)
    res.setHeader(
      "Warning",
      warnings.map((w) => `299 - ${JSON.stringify(w)}`),
    );
}

/**
 * `dryRun`, `fieldValidation` and `fieldManager` of a create, update or patch (and `force`,
 * which only an apply patch may set — this server has none, so any `force` is refused).
 */
export function writeParams(q: URLSearchParams, kind: OptionsKind): WriteParams {
  const causes = dryRunCauses(q.getAll("dryRun"));
  const validation = q.get("fieldValidation") ?? "";
  if (validation !== "" && !FIELD_VALIDATION.includes(validation))
    causes.push(field.notSupported("fieldValidation", validation, FIELD_VALIDATION));
  const manager = q.get("fieldManager") ?? "";
  if (manager.length > 128) causes.push(field.tooLong("fieldManager", 128));
  else if (/[^\x20-\x7e]/.test(manager))
    causes.push(field.invalid("fieldManager", manager, "must only contain printable characters"));
  if (kind === "PatchOptions" && q.has("force"))
    causes.push(field.forbidden("force", "may not be specified for non-apply patch"));
  if (causes.length > 0) invalid(kind, causes);
  return {
    dryRun: q.getAll("dryRun").length > 0,
    fieldValidation: validation === "" ? "Warn" : (validation as FieldValidation),
  };
}

/**
 * The DeleteOptions of a DELETE: the JSON body, then the query's `propagationPolicy`,
 * `orphanDependents`, `gracePeriodSeconds` and `dryRun` over it (kube decodes the query into
 * the body's options).
 */
export async function deleteOptionsOf(
  req: IncomingMessage,
  q: URLSearchParams,
): Promise<DeleteOptions> {
  const body = await readBody(req);
  let options: DeleteOptions = {};
  if (body.length > 0) {
    const parsed = parseJson(body);
    if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed))
      throw errors.badRequest("DeleteOptions must be a JSON object");
    options = parsed as DeleteOptions;
  }
  const policy = q.get("propagationPolicy");
  if (policy !== null)
    options = { ...options, propagationPolicy: policy as DeleteOptions["propagationPolicy"] };
  const orphan = q.get("orphanDependents");
  if (orphan !== null) options = { ...options, orphanDependents: orphan === "true" };
  const grace = q.get("gracePeriodSeconds");
  if (grace !== null) options = { ...options, gracePeriodSeconds: Number(grace) };
  const dryRun = q.getAll("dryRun");
  if (dryRun.length > 0) options = { ...options, dryRun };
  const causes: StatusCause[] = [];
  const p = options.propagationPolicy;
  if (p !== undefined && p !== "Orphan" && p !== "Background" && p !== "Foreground")
    causes.push(field.notSupported("propagationPolicy", p, ["Foreground", "Background", "Orphan"]));
  if (p !== undefined && options.orphanDependents !== undefined) {
    causes.push(
      field.invalid(
        "propagationPolicy",
        "",
        "orphanDependents and deletionPropagation cannot be both set",
      ),
    );
  }
  if (options.dryRun !== undefined) {
    if (!Array.isArray(options.dryRun))
      causes.push(field.typeInvalid("dryRun", options.dryRun, "must be a list"));
    else causes.push(...dryRunCauses(options.dryRun));
  }
  if (causes.length > 0) invalid("DeleteOptions", causes);
  return options;
}
