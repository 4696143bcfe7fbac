import {
  errors,
  FieldSelector,
  LabelSelector,
  parseFieldSelector,
  parseLabelSelector,
  SelectorError,
  type StatusCause,
} from "../../core/index.ts";
import { field } from "../registry/field-errors.ts";
import type { ListQuery } from "../registry/types.ts";

/** List and watch parameters of a request, parsed and validated. */
export interface ListParams extends ListQuery {
  readonly watch: boolean;
  readonly allowWatchBookmarks: boolean;
  readonly sendInitialEvents: boolean | undefined;
  readonly timeoutSeconds: number | undefined;
}

function truthy(v: string | null): boolean {
  return v !== null && v !== "false" && v !== "0";
}

/**
 * Parses `labelSelector`, `fieldSelector`, `resourceVersion`, `resourceVersionMatch`, `limit`,
 * `continue`, `watch`, `allowWatchBookmarks`, `sendInitialEvents` and `timeoutSeconds`.
 * Selector syntax errors and unknown fields are 400; inconsistent combinations are 422 on
 * ListOptions, as kube validates them.
 */
export function parseListParams(
  q: URLSearchParams,
  supportedFields: readonly string[],
  custom: boolean,
  nameFromPath: string,
): ListParams {
  let label = LabelSelector.everything();
  let fieldSel = FieldSelector.everything();
  try {
    label = parseLabelSelector(q.get("labelSelector") ?? "");
    fieldSel = parseFieldSelector(q.get("fieldSelector") ?? "");
  } catch (err) {
    if (err instanceof SelectorError) throw errors.badRequest(err.message);
    throw err;
  }
  for (const r of fieldSel.requirements) {
    if (!supportedFields.includes(r.field)) {
      throw errors.badRequest(
        custom
          ? `field label not supported: ${r.field}`
          : `${JSON.stringify(r.field)} is not a known field selector: only ${supportedFields.map((f) => JSON.stringify(f)).join(", ")}`,
      );
    }
  }
  if (nameFromPath !== "") {
    const named = fieldSel.requiredValue("metadata.name");
    if (named !== undefined && named !== nameFromPath) {
      throw errors.badRequest(
        `fieldSelector metadata.name=${named} conflicts with the name ${JSON.stringify(nameFromPath)} in the URL`,
      );
    }
    fieldSel = new FieldSelector({
      requirements: [
        ...fieldSel.requirements,
        { field: "metadata.name", operator: "=", value: nameFromPath },
      ],
    });
  }
  const watch = truthy(q.get("watch"));
  const rv = q.get("resourceVersion") ?? undefined;
  if (rv !== undefined && rv !== "" && !/^(0|[1-9][0-9]{0,15})$/.test(rv)) {
    throw errors.badRequest(
      `invalid resourceVersion ${JSON.stringify(rv)}: must be a decimal integer without leading zeros`,
    );
  }
  const rvm = q.get("resourceVersionMatch") ?? undefined;
  const limitText = q.get("limit");
  let limit: number | undefined;
  if (limitText !== null && limitText !== "") {
    limit = Number(limitText);
    if (!Number.isInteger(limit) || limit < 0)
      throw errors.badRequest(
        `invalid limit ${JSON.stringify(limitText)}: must be a non-negative integer`,
      );
  }
  const cont = q.get("continue") || undefined;
  const sieText = q.get("sendInitialEvents");
  const sendInitialEvents = sieText === null ? undefined : sieText === "true" || sieText === "1";
  const timeoutText = q.get("timeoutSeconds");
  let timeoutSeconds: number | undefined;
  if (timeoutText !== null && timeoutText !== "") {
    timeoutSeconds = Number(timeoutText);
    if (!Number.isInteger(timeoutSeconds) || timeoutSeconds < 0) {
      throw errors.badRequest(
        `invalid timeoutSeconds ${JSON.stringify(timeoutText)}: must be a non-negative integer`,
      );
    }
  }
  const causes: StatusCause[] = [];
  if (watch) {
    if (sendInitialEvents !== undefined && rvm !== "NotOlderThan") {
      causes.push(
        field.forbidden(
          "resourceVersionMatch",
          "sendInitialEvents requires setting resourceVersionMatch to NotOlderThan",
        ),
      );
    }
    if (rvm !== undefined && rvm !== "") {
      if (sendInitialEvents === undefined)
        causes.push(
          field.forbidden(
            "resourceVersionMatch",
            "resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided",
          ),
        );
      if (rvm !== "NotOlderThan")
        causes.push(field.notSupported("resourceVersionMatch", rvm, ["NotOlderThan"]));
      if (cont)
        causes.push(
          field.forbidden(
            "resourceVersionMatch",
            "resourceVersionMatch is forbidden when continue is provided",
          ),
        );
    }
  } else {
    if (sendInitialEvents !== undefined)
      causes.push(field.forbidden("sendInitialEvents", "sendInitialEvents is forbidden for list"));
    if (rvm !== undefined && rvm !== "") {
      if (rv === undefined || rv === "")
        causes.push(
          field.forbidden(
            "resourceVersionMatch",
            "resourceVersionMatch is forbidden unless resourceVersion is provided",
          ),
        );
      if (cont)
        causes.push(
          field.forbidden(
            "resourceVersionMatch",
            "resourceVersionMatch is forbidden when continue is provided",
          ),
        );
      if (rvm !== "Exact" && rvm !== "NotOlderThan")
        causes.push(field.notSupported("resourceVersionMatch", rvm, ["Exact", "NotOlderThan"]));
      if (rvm === "Exact" && rv === "0")
        causes.push(
          field.forbidden(
            "resourceVersionMatch",
            'resourceVersionMatch "exact" is forbidden for resourceVersion "0"',
          ),
        );
    }
  }
  if (causes.length > 0) throw errors.invalid("ListOptions", "meta.k8s.io", "", causes);
  if (cont && rv !== undefined && rv !== "" && rv !== "0") {
    throw errors.badRequest("specifying resource version is not allowed when using continue");
  }
  return {
    label,
    field: fieldSel,
    ...(rv === undefined ? {} : { resourceVersion: rv }),
    ...(rvm === "Exact" || rvm === "NotOlderThan" ? { resourceVersionMatch: rvm } : {}),
    ...(limit === undefined ? {} : { limit }),
    ...(cont === undefined ? {} : { continue: cont }),
    watch,
    allowWatchBookmarks: truthy(q.get("allowWatchBookmarks")),
    sendInitialEvents,
    timeoutSeconds,
  };
}
