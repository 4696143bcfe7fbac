import type { KubeObject } from "../../../../core/index.ts";
import type { TableColumn } from "../../strategy.ts";
import { AGE, items, NAME, str } from "./common.ts";

/*
 * The columns of RoleBindings and ClusterRoleBindings. Roles and ClusterRoles have no printer
 * in kube: they print its default table (Name, Created At).
 */

/** `Kind/name` of the bound role. */
const roleRef = (binding: KubeObject) =>
  `${str(binding, "roleRef.kind")}/${str(binding, "roleRef.name")}`;

/** The subjects by kind, each list joined by `, `; service accounts as `namespace/name`. */
function subjects(binding: KubeObject): { users: string; groups: string; serviceAccounts: string } {
  const of = (kind: string, format: (s: Record<string, unknown>) => string) =>
    items(binding, "subjects")
      .filter((s) => s.kind === kind)
      .map(format)
      .join(", ");
  return {
    users: of("User", (s) => str(s, "name")),
    groups: of("Group", (s) => str(s, "name")),
    serviceAccounts: of("ServiceAccount", (s) => `${str(s, "namespace")}/${str(s, "name")}`),
  };
}

/** `kubectl get rolebindings [-o wide]`. */
export const ROLE_BINDING_COLUMNS: readonly TableColumn[] = [
  NAME,
  {
    name: "Role",
    type: "string",
    description:
      "RoleRef can reference a Role in the current namespace or a ClusterRole in the global namespace. If the RoleRef cannot be resolved, the Authorizer must return an error.",
    cell: roleRef,
  },
  AGE,
  {
    name: "Users",
    type: "string",
    priority: 1,
    description: "Users in the roleBinding",
    cell: (o) => subjects(o).users,
  },
  {
    name: "Groups",
    type: "string",
    priority: 1,
    description: "Groups in the roleBinding",
    cell: (o) => subjects(o).groups,
  },
  {
    name: "ServiceAccounts",
    type: "string",
    priority: 1,
    description: "ServiceAccounts in the roleBinding",
    cell: (o) => subjects(o).serviceAccounts,
  },
];

/** `kubectl get clusterrolebindings [-o wide]`. */
export const CLUSTER_ROLE_BINDING_COLUMNS: readonly TableColumn[] = [
  NAME,
  {
    name: "Role",
    type: "string",
    description:
      "RoleRef can only reference a ClusterRole in the global namespace. If the RoleRef cannot be resolved, the Authorizer must return an error.",
    cell: roleRef,
  },
  AGE,
  {
    name: "Users",
    type: "string",
    priority: 1,
    description: "Users in the clusterRoleBinding",
    cell: (o) => subjects(o).users,
  },
  {
    name: "Groups",
    type: "string",
    priority: 1,
    description: "Groups in the clusterRoleBinding",
    cell: (o) => subjects(o).groups,
  },
  {
    name: "ServiceAccounts",
    type: "string",
    priority: 1,
    description: "ServiceAccounts in the clusterRoleBinding",
    cell: (o) => subjects(o).serviceAccounts,
  },
];
