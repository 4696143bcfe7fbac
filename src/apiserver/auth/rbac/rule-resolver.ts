import { errorMessage } from "../../../core/index.ts";
import type { UserInfo } from "../user.ts";
import { goQuote } from "./go-format.ts";
import type { RbacObjects } from "./objects.ts";
import {
  list,
  type PolicyRule,
  RBAC_GROUP,
  type RoleBinding,
  type RoleRef,
  type Subject,
} from "./types.ts";

/*
 * Which rules apply to a user in a namespace, as kube's RBAC rule resolver finds them
 * (pkg/registry/rbac/validation `DefaultRuleResolver`): first every ClusterRoleBinding whose
 * subjects name the user, then — in a namespace — every RoleBinding of that namespace; each
 * binding contributes all the rules of the role it references. A binding whose role cannot be
 * read contributes an error instead; the rules found still count (RBAC only ever allows).
 */

/** Where a rule came from: the binding, and its first subject that names the user. */
export interface RuleSource {
  readonly kind: "ClusterRoleBinding" | "RoleBinding";
  readonly binding: RoleBinding;
  readonly subject: Subject;
}

/** A role a binding references that could not be read. */
export interface ResolutionError {
  readonly message: string;
  /** Set when the role does not exist: the resource it is worded as, and the role's name. */
  readonly notFound?: { readonly resource: string; readonly name: string };
}

/** Called with each rule (and its source) or each error; returning false stops the visit. */
export type RuleVisitor = (
  source: RuleSource | undefined,
  rule: PolicyRule | undefined,
  error: ResolutionError | undefined,
) => boolean;

/** Options of a {@link RuleResolver}. */
export interface RuleResolverOptions {
  /** The objects the rules are read from. */
  readonly objects: RbacObjects;
  /**
   * How a missing role is worded. The authorizer reads through informer listers, which name
   * the kind: `clusterrole.rbac.authorization.k8s.io "x" not found`. The checks on writes of
   * RBAC objects read through the registry within the write's request, which names the
   * request's resource whatever the kind of the missing role: `rolebindings.rbac…` when a
   * RoleBinding is written. Set this to that resource for them.
   * @default the lister's wording
   */
  readonly notFoundResource?: string;
}

/** Finds the rules that apply to a user (kube's `AuthorizationRuleResolver`). */
export class RuleResolver {
  readonly objects: RbacObjects;
  readonly #notFoundResource: string | undefined;

  constructor(options: RuleResolverOptions) {
    this.objects = options.objects;
    this.#notFoundResource = options.notFoundResource;
  }

  /**
   * The rules of the role a binding references (`bindingNamespace` is "" for a
   * ClusterRoleBinding), or why they cannot be read.
   */
  roleReferenceRules(
    roleRef: RoleRef,
    bindingNamespace: string,
  ): { readonly rules: readonly PolicyRule[] } | { readonly error: ResolutionError } {
    try {
      switch (roleRef.kind) {
        case "Role": {
          const role = this.objects.getRole(bindingNamespace, roleRef.name);
          if (role === undefined) return { error: this.#notFound("role", roleRef.name) };
          return { rules: list(role.rules) };
        }
        case "ClusterRole": {
          const role = this.objects.getClusterRole(roleRef.name);
          if (role === undefined) return { error: this.#notFound("clusterrole", roleRef.name) };
          return { rules: list(role.rules) };
        }
        default:
          return {
            error: { message: `unsupported role reference kind: ${goQuote(roleRef.kind)}` },
          };
      }
    } catch (err) {
      return { error: { message: errorMessage(err) } };
    }
  }

  #notFound(kind: "role" | "clusterrole", name: string): ResolutionError {
    const resource = this.#notFoundResource ?? kind;
    return {
      message: `${resource}.${RBAC_GROUP} ${goQuote(name)} not found`,
      notFound: { resource, name },
    };
  }

  /** Visits every rule that applies to `user` in `namespace` ("" for cluster-wide only). */
  visitRulesFor(user: UserInfo, namespace: string, visitor: RuleVisitor): void {
    if (!this.#visitBindings("ClusterRoleBinding", user, "", visitor)) return;
    if (namespace !== "") this.#visitBindings("RoleBinding", user, namespace, visitor);
  }

  /** Returns false when the visitor stopped the visit. */
  #visitBindings(
    kind: RuleSource["kind"],
    user: UserInfo,
    namespace: string,
    visitor: RuleVisitor,
  ): boolean {
    let bindings: Iterable<RoleBinding>;
    try {
      bindings =
        kind === "ClusterRoleBinding"
          ? this.objects.clusterRoleBindingsFor(user)
          : this.objects.roleBindingsFor(namespace, user);
    } catch (err) {
      return visitor(undefined, undefined, { message: errorMessage(err) });
    }
    for (const binding of bindings) {
      const subject = appliesTo(user, list(binding.subjects), namespace);
      if (subject === undefined) continue;
      const found = this.roleReferenceRules(binding.roleRef, namespace);
      if ("error" in found) {
        if (!visitor(undefined, undefined, found.error)) return false;
        continue;
      }
      const source: RuleSource = { kind, binding, subject };
      for (const rule of found.rules) {
        if (!visitor(source, rule, undefined)) return false;
      }
    }
    return true;
  }

  /** Every rule that applies to `user` in `namespace`, and the errors met finding them. */
  rulesFor(
    user: UserInfo,
    namespace: string,
  ): { readonly rules: PolicyRule[]; readonly errors: ResolutionError[] } {
    const rules: PolicyRule[] = [];
    const errors: ResolutionError[] = [];
    this.visitRulesFor(user, namespace, (_, rule, error) => {
      if (rule !== undefined) rules.push(rule);
      if (error !== undefined) errors.push(error);
      return true;
    });
    return { rules, errors };
  }
}

/** The first subject that names the user, its group or its service account (kube's `appliesTo`). */
export function appliesTo(
  user: UserInfo,
  subjects: readonly Subject[],
  namespace: string,
): Subject | undefined {
  return subjects.find((s) => appliesToUser(user, s, namespace));
}

/**
 * Whether the subject names the user. A ServiceAccount subject without a namespace means the
 * namespace being evaluated (a RoleBinding's own), and none in a ClusterRoleBinding.
 */
export function appliesToUser(user: UserInfo, subject: Subject, namespace: string): boolean {
  switch (subject.kind) {
    case "User":
      return user.username === subject.name;
    case "Group":
      return user.groups.includes(subject.name);
    case "ServiceAccount": {
      const ns = subject.namespace || namespace;
      return ns !== "" && user.username === `system:serviceaccount:${ns}:${subject.name}`;
    }
    default:
      return false;
  }
}

/**
 * The source as kube words it in an authorizer's reason:
 * `ClusterRoleBinding "cluster-admin" of ClusterRole "cluster-admin" to Group "system:masters"`,
 * `RoleBinding "b/ns" of Role "r" to ServiceAccount "sa/ns"`.
 */
export function describeRuleSource(source: RuleSource): string {
  const { binding, subject } = source;
  const namespace = binding.metadata?.namespace ?? "";
  const name = binding.metadata?.name ?? "";
  const bindingName = source.kind === "RoleBinding" ? `${name}/${namespace}` : name;
  let who: string;
  if (subject.kind === "ServiceAccount") {
    const saNamespace = subject.namespace || (source.kind === "RoleBinding" ? namespace : "");
    who = `${subject.kind} ${goQuote(`${subject.name}/${saNamespace}`)}`;
  } else {
    who = `${subject.kind} ${goQuote(subject.name)}`;
  }
  return `${source.kind} ${goQuote(bindingName)} of ${binding.roleRef.kind} ${goQuote(binding.roleRef.name)} to ${who}`;
}
