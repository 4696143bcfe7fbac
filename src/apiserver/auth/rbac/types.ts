/*
 * The rbac.authorization.k8s.io/v1 objects as the server stores them: plain JSON, read only.
 * Lists a Go client writes empty may be absent or null (`rules: null` on an aggregated
 * ClusterRole the aggregation has not filled yet): every reader treats absent, null and [] alike,
 * as kube's semantic equality does.
 */

/** One rule of a Role or ClusterRole (rbac/v1 `PolicyRule`). */
export interface PolicyRule {
  readonly verbs?: readonly string[] | null;
  readonly apiGroups?: readonly string[] | null;
  readonly resources?: readonly string[] | null;
  readonly resourceNames?: readonly string[] | null;
  readonly nonResourceURLs?: readonly string[] | null;
}

/** Who a binding grants its role to (rbac/v1 `Subject`). */
export interface Subject {
  /** `User`, `Group` or `ServiceAccount`; any other kind matches nobody. */
  readonly kind: string;
  readonly name: string;
  /** A ServiceAccount's namespace; in a RoleBinding it defaults to the binding's. */
  readonly namespace?: string;
  readonly apiGroup?: string;
}

/** The role a binding grants (rbac/v1 `RoleRef`). */
export interface RoleRef {
  readonly apiGroup: string;
  /** `Role` or `ClusterRole`. */
  readonly kind: string;
  readonly name: string;
}

/** The metadata the RBAC code reads. */
export interface RbacObjectMeta {
  readonly name?: string;
  readonly namespace?: string;
  readonly labels?: Readonly<Record<string, string>> | null;
  readonly [field: string]: unknown;
}

/** A label selector as objects carry it (`matchLabels`, `matchExpressions`). */
export interface LabelSelectorSpec {
  readonly matchLabels?: Readonly<Record<string, string>>;
  readonly matchExpressions?: readonly {
    readonly key: string;
    readonly operator: string;
    readonly values?: readonly string[];
  }[];
}

/** A namespaced set of rules. */
export interface Role {
  readonly metadata?: RbacObjectMeta;
  readonly rules?: readonly PolicyRule[] | null;
  readonly [field: string]: unknown;
}

/** A cluster-wide set of rules, possibly aggregated from other ClusterRoles by label. */
export interface ClusterRole extends Role {
  readonly aggregationRule?: {
    readonly clusterRoleSelectors?: readonly LabelSelectorSpec[] | null;
  } | null;
}

/** Grants a Role (of its namespace) or a ClusterRole to subjects, in its namespace. */
export interface RoleBinding {
  readonly metadata?: RbacObjectMeta;
  readonly subjects?: readonly Subject[] | null;
  readonly roleRef: RoleRef;
  readonly [field: string]: unknown;
}

/** Grants a ClusterRole to subjects in every namespace and cluster-wide. */
export type ClusterRoleBinding = RoleBinding;

/** The API group of the RBAC kinds. */
export const RBAC_GROUP = "rbac.authorization.k8s.io";

/** `*`: every verb, API group, resource or non-resource URL. */
export const ALL = "*";

/** The list, or [] for absent and null. */
export function list<T>(value: readonly T[] | null | undefined): readonly T[] {
  return value ?? [];
}
