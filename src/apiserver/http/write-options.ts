import type { IncomingMessage, ServerResponse } from "node:http";
import { errors, type StatusCause } from "../../core/index.ts";
import type { DeleteOptions } from "../registry/deletion.ts";
import { field } from "../registry/field-errors.ts";
import type { FieldValidation } from "../registry/types.ts";
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
  /**
   * Who writes, for managedFields: `fieldManager`, else the User-Agent's product (kube's
   * `managerOrUserAgent`; "" when there is neither).
   */
  readonly manager: string;
  /** `force=true` (apply patches only): take fields other managers own. */
  readonly force: boolean;
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
 * `dryRun`, `fieldValidation` and `fieldManager` of a create, update or patch, and `force`,
 * which only an apply patch (`apply`) may set; an apply patch needs a `fieldManager`. Checked
 * in the order of kube's `ValidatePatchOptions`. A `force` that is not a boolean is 400, as
 * kube's parameter decoding has it.
 */
export function writeParams(
  q: URLSearchParams,
  kind: OptionsKind,
  userAgent?: string,
  apply = false,
): WriteParams {
  const causes: StatusCause[] = [];
  const manager = q.get("fieldManager") ?? "";
  if (kind === "PatchOptions" && !apply && q.has("force"))
    causes.push(field.forbidden("force", "may not be specified for non-apply patch"));
  if (apply && manager === "")
    causes.push(field.required("fieldManager", "is required for apply patch"));
  if (manager.length > 128) causes.push(field.tooLong("fieldManager", 128));
  else if (/[^\x20-\x7e]/.test(manager))
    causes.push(field.invalid("fieldManager", manager, "must only contain printable characters"));
  causes.push(...dryRunCauses(q.getAll("dryRun")));
  const validation = q.get("fieldValidation") ?? "";
  if (validation !== "" && !FIELD_VALIDATION.includes(validation))
    causes.push(field.notSupported("fieldValidation", validation, FIELD_VALIDATION));
  if (causes.length > 0) invalid(kind, causes);
  return {
    dryRun: q.getAll("dryRun").length > 0,
    fieldValidation: validation === "" ? "Warn" : (validation as FieldValidation),
    manager: manager !== "" ? manager : managerFromUserAgent(userAgent ?? ""),
    force: apply && parseForce(q.get("force")),
  };
}

/** Go's `strconv.ParseBool`, as kube decodes `force`; 400 for anything else. */
function parseForce(value: string | null): boolean {
  if (value === null) return false;
  if (["1", "t", "T", "TRUE", "true", "True"].includes(value)) return true;
  if (["0", "f", "F", "FALSE", "false", "False"].includes(value)) return false;
  throw errors.badRequest(
    `force: invalid value ${JSON.stringify(value)}: must be true or false (strconv.ParseBool)`,
  );
}

/**
 * The manager of a write without `fieldManager`: the User-Agent up to its first `/`, without
 * unprintable characters, cut to 128 bytes (kube's `prefixFromUserAgent`): `kubectl/v1.32.0
 * (linux/amd64) kubernetes/abc` is `kubectl`.
 */
export function managerFromUserAgent(userAgent: string): string {
  let out = "";
  let bytes = 0;
  for (const ch of userAgent.split("/")[0]!) {
    if (!/\p{L}|\p{M}|\p{N}|\p{P}|\p{S}| /u.test(ch)) continue;
    const n = Buffer.byteLength(ch);
    if (bytes + n > 128) break;
    out += ch;
    bytes += n;
  }
  return out;
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
