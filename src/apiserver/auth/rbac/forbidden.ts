import { ApiError, type StatusDetails } from "../../../core/index.ts";
import type { AccessAttributes } from "../authorizer.ts";
import type { UserInfo } from "../user.ts";
import { goQuote } from "./go-format.ts";

/*
 * The 403 a request gets when no authorizer allows it, worded as kube-apiserver's
 * (apiserver endpoints/handlers/responsewriters `forbiddenMessage` and `ForbiddenStatusError`).
 */

/**
 * What the user may not do, as kube says it:
 * `User "x" cannot list resource "pods" in API group "" in the namespace "y"`,
 * `… cannot get resource "pods/log" …` (a subresource), `… at the cluster scope` (no
 * namespace), `User "x" cannot get path "/metrics"` (not a resource). A named resource is
 * worded as the collection: the name goes in front (see {@link forbiddenError}).
 */
export function forbiddenMessage(user: UserInfo | undefined, attributes: AccessAttributes): string {
  const username = goQuote(user?.username ?? "");
  if (attributes.kind === "non-resource") {
    return `User ${username} cannot ${attributes.verb} path ${goQuote(attributes.path)}`;
  }
  const { resource, subresource, group, namespace, verb } = attributes;
  const combined = goQuote(subresource === "" ? resource : `${resource}/${subresource}`);
  const what = `User ${username} cannot ${verb} resource ${combined} in API group ${goQuote(group)}`;
  return namespace === ""
    ? `${what} at the cluster scope`
    : `${what} in the namespace ${goQuote(namespace)}`;
}

const SANITIZE: Readonly<Record<string, string>> = { "&": "&amp;", "<": "&lt;", ">": "&gt;" };

/**
 * The 403 Forbidden Status kube-apiserver answers a request no authorizer allowed:
 * `pods "web" is forbidden: User "x" cannot get resource "pods" in API group "" in the
 * namespace "y"`, then `: <reason>` when the authorizers gave one (RBAC's
 * `RBAC: clusterrole.rbac.authorization.k8s.io "gone" not found`). The resource named in front
 * is the resource without subresource, with its group (`deployments.apps "web"`); a
 * non-resource request starts with `forbidden: `. `&`, `<` and `>` of the first part are
 * HTML-escaped, as kube does; the reason is not.
 */
export function forbiddenError(
  user: UserInfo | undefined,
  attributes: AccessAttributes,
  reason: string,
): ApiError {
  const sanitized = forbiddenMessage(user, attributes).replace(/[&<>]/g, (c) => SANITIZE[c]!);
  const why = reason === "" ? sanitized : `${sanitized}: ${reason}`;
  if (
    attributes.kind === "non-resource" ||
    (attributes.resource === "" && attributes.group === "")
  ) {
    return ApiError.of("Forbidden", `forbidden: ${why}`, {});
  }
  const { group, resource, name } = attributes;
  const qualified = group === "" ? resource : `${resource}.${group}`;
  const subject = name === "" ? qualified : `${qualified} ${goQuote(name)}`;
  const details: StatusDetails = {
    ...(name === "" ? {} : { name }),
    ...(group === "" ? {} : { group }),
    ...(resource === "" ? {} : { kind: resource }),
  };
  return ApiError.of("Forbidden", `${subject} is forbidden: ${why}`, details);
}
