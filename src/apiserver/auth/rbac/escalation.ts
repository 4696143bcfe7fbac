import { ApiError, errors } from "../../../core/index.ts";
import type { AccessAttributes, Authorizer } from "../authorizer.ts";
import { MASTERS_GROUP, type UserInfo } from "../user.ts";
import { compactRules, compactString, covers } from "./covers.ts";
import { aggregateMessage, goQuote, goQuoteList } from "./go-format.ts";
import type { RbacObjects } from "./objects.ts";
import { RuleResolver } from "./rule-resolver.ts";
import { type ClusterRole, list, type PolicyRule, RBAC_GROUP, type RoleBinding } from "./types.ts";

/*
 * The checks kube-apiserver makes on writes of RBAC objects so that no one grants more than
 * they hold (pkg/registry/rbac: the policy-based Role, ClusterRole, RoleBinding and
 * ClusterRoleBinding storages, and validation `ConfirmNoEscalation`). They run before the
 * object's own validation, on create and update (patch and apply are updates):
 *
 * - a member of system:masters may write anything;
 * - a Role or ClusterRole is allowed if the user may `escalate` roles/clusterroles (asked of the
 *   whole authorizer chain, with the request's name: "" on a POST), or already holds every rule
 *   it lists (RBAC rules only, in the request's namespace); a ClusterRole with an
 *   aggregationRule (or losing one) needs every permission (cluster-admin);
 * - a binding is allowed if the user may `bind` the role it references (roles or clusterroles,
 *   the roleRef's name, in the binding's namespace), or holds every rule of that role;
 * - an update that changes nothing but finalizers, ownerReferences, selfLink and managedFields
 *   is allowed, so the garbage collector can finish deletions.
 */

/** Options of {@link EscalationChecks}. */
export interface EscalationChecksOptions {
  /** The server's authorizer chain (what answers `escalate` and `bind`). */
  readonly authorizer: Authorizer;
  /** The RBAC objects (the user's rules and the referenced roles are read from them). */
  readonly objects: RbacObjects;
}

/** A write of a Role or ClusterRole. */
export interface RoleWrite {
  readonly user: UserInfo;
  readonly resource: "roles" | "clusterroles";
  /** The request's namespace ("" for clusterroles). */
  readonly namespace: string;
  /** The name in the request's path: "" for a create by POST. */
  readonly requestName: string;
  readonly object: ClusterRole;
  /** The stored object an update replaces. @default none (a create) */
  readonly oldObject?: ClusterRole;
}

/** A write of a RoleBinding or ClusterRoleBinding. */
export interface BindingWrite {
  readonly user: UserInfo;
  readonly resource: "rolebindings" | "clusterrolebindings";
  /** The request's namespace ("" for clusterrolebindings). */
  readonly namespace: string;
  readonly object: RoleBinding;
  /** The stored object an update replaces. @default none (a create) */
  readonly oldObject?: RoleBinding;
}

const FULL_AUTHORITY: readonly PolicyRule[] = [
  { verbs: ["*"], apiGroups: ["*"], resources: ["*"] },
  { verbs: ["*"], nonResourceURLs: ["*"] },
];

/** Decides whether a user may write an RBAC object, with kube's refusals. */
export class EscalationChecks {
  readonly #authorizer: Authorizer;
  readonly #objects: RbacObjects;

  constructor(options: EscalationChecksOptions) {
    this.#authorizer = options.authorizer;
    this.#objects = options.objects;
  }

  /** kube reads through the registry here, which words a missing role as the request's resource. */
  #resolver(requestResource: string): RuleResolver {
    return new RuleResolver({ objects: this.#objects, notFoundResource: requestResource });
  }

  /**
   * Why the user's RBAC rules in `namespace` do not cover `rules` (kube's
   * `ConfirmNoEscalation`), or undefined when they do. `requestResource` is the resource being
   * written (a role that cannot be read is worded as one of those).
   */
  confirmNoEscalation(
    user: UserInfo,
    namespace: string,
    rules: readonly PolicyRule[],
    requestResource: string,
  ): string | undefined {
    const owner = this.#resolver(requestResource).rulesFor(user, namespace);
    const { covered, missing } = covers(owner.rules, rules);
    if (covered) return undefined;
    const described = [...new Set(compactRules(missing).map(compactString))].sort(goStringOrder);
    let msg =
      `user ${goQuote(user.username)} (groups=${goQuoteList(user.groups)}) is attempting to grant ` +
      `RBAC permissions not currently held:\n${described.join("\n")}`;
    if (owner.errors.length > 0) {
      msg += `; resolution errors: [${aggregateMessage(owner.errors.map((e) => e.message))}]`;
    }
    return msg;
  }

  /** Undefined when the user may write the Role or ClusterRole, else kube's 403. */
  checkRoleWrite(write: RoleWrite): ApiError | undefined {
    const { user, resource, namespace, object, oldObject } = write;
    if (isMaster(user)) return undefined;
    const escalate = resourceAttributes(
      "escalate",
      RBAC_GROUP,
      resource,
      write.requestName,
      namespace,
    );
    if (this.#authorizer.authorize(user, escalate).allowed) return undefined;
    if (oldObject !== undefined && onlyGcFieldsChange(object, oldObject)) return undefined;
    const name = object.metadata?.name ?? "";
    const refusal = this.confirmNoEscalation(user, namespace, list(object.rules), resource);
    if (refusal !== undefined) return forbidden(resource, name, refusal);
    const aggregates = (r: ClusterRole | undefined) =>
      list(r?.aggregationRule?.clusterRoleSelectors).length > 0;
    if (resource === "clusterroles" && (aggregates(object) || aggregates(oldObject))) {
      if (this.confirmNoEscalation(user, namespace, FULL_AUTHORITY, resource) !== undefined) {
        return forbidden(
          resource,
          name,
          "must have cluster-admin privileges to use the aggregationRule",
        );
      }
    }
    return undefined;
  }

  /** Undefined when the user may write the binding, else kube's refusal (403, 404 or 500). */
  checkBindingWrite(write: BindingWrite): ApiError | undefined {
    const { user, resource, object, oldObject } = write;
    const namespace = resource === "clusterrolebindings" ? "" : write.namespace;
    if (isMaster(user)) return undefined;
    if (oldObject !== undefined && onlyGcFieldsChange(object, oldObject)) return undefined;
    const { roleRef } = object;
    const roleResource =
      roleRef.kind === "Role"
        ? "roles"
        : roleRef.kind === "ClusterRole"
          ? "clusterroles"
          : undefined;
    if (roleResource !== undefined) {
      const bind = resourceAttributes(
        "bind",
        roleRef.apiGroup,
        roleResource,
        roleRef.name,
        namespace,
      );
      if (this.#authorizer.authorize(user, bind).allowed) return undefined;
    }
    const found = this.#resolver(resource).roleReferenceRules(roleRef, namespace);
    if ("error" in found) {
      const { notFound, message } = found.error;
      if (notFound !== undefined) {
        return errors.notFound({ group: RBAC_GROUP, resource: notFound.resource }, notFound.name);
      }
      // kube answers an error that is no API status as a 500 without a reason.
      return new ApiError({
        kind: "Status",
        apiVersion: "v1",
        metadata: {},
        status: "Failure",
        message,
        code: 500,
      });
    }
    const refusal = this.confirmNoEscalation(user, write.namespace, found.rules, resource);
    return refusal === undefined
      ? undefined
      : forbidden(resource, object.metadata?.name ?? "", refusal);
  }
}

function isMaster(user: UserInfo): boolean {
  return user.groups.includes(MASTERS_GROUP);
}

function resourceAttributes(
  verb: string,
  group: string,
  resource: string,
  name: string,
  namespace: string,
): AccessAttributes {
  return {
    kind: "resource",
    verb,
    group,
    version: "*",
    resource,
    subresource: "",
    name,
    namespace,
  };
}

function forbidden(resource: string, name: string, why: string): ApiError {
  const qualified = `${resource}.${RBAC_GROUP}`;
  const subject = name === "" ? qualified : `${qualified} ${goQuote(name)}`;
  return ApiError.of("Forbidden", `${subject} is forbidden: ${why}`, {
    ...(name === "" ? {} : { name }),
    group: RBAC_GROUP,
    kind: resource,
  });
}

/** Go's string order (UTF-8 bytes), which `sets.String.List()` sorts by. */
function goStringOrder(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a), Buffer.from(b));
}

const GC_FIELDS = ["finalizers", "ownerReferences", "selfLink", "managedFields"];

/**
 * Whether `object` differs from `old` only in the fields the garbage collector writes
 * (kube's `IsOnlyMutatingGCFields`), absent, null, "", [] and {} counting as equal (Go's
 * zero values; kube's semantic equality makes nil and empty lists and maps equal).
 */
export function onlyGcFieldsChange(object: object, old: object): boolean {
  const strip = (o: object) => {
    const { metadata, ...rest } = o as { metadata?: Record<string, unknown> };
    const kept = { ...metadata };
    for (const f of GC_FIELDS) delete kept[f];
    return { ...rest, metadata: kept };
  };
  return semanticEqual(strip(object), strip(old));
}

/** Absent, as Go reads it: a zero string, or an empty list or map. */
function isEmpty(v: unknown): boolean {
  if (v === undefined || v === null || v === "") return true;
  if (Array.isArray(v)) return v.length === 0;
  return typeof v === "object" && Object.keys(v).length === 0;
}

function semanticEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (isEmpty(a) && isEmpty(b)) return true;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a) && Array.isArray(b)) {
    return a.length === b.length && a.every((x, i) => semanticEqual(x, b[i]));
  }
  const ra = a as Record<string, unknown>;
  const rb = b as Record<string, unknown>;
  const keys = new Set([...Object.keys(ra), ...Object.keys(rb)]);
  for (const k of keys) if (!semanticEqual(ra[k], rb[k])) return false;
  return true;
}
