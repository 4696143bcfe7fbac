/**
 * kube-controller-manager's clusterrole-aggregation controller: a ClusterRole with an
 * aggregationRule gets as rules those of the ClusterRoles its selectors match (kube's bootstrap
 * `admin`, `edit` and `view` are filled this way from the `aggregate-to-*` roles, and any
 * ClusterRole labelled `rbac.authorization.k8s.io/aggregate-to-edit: "true"` joins them). It
 * writes the rules by server-side apply with kube's field manager, forced, as kube does. A bare
 * API server has no such controller: there, admin, edit and view keep `rules: null`.
 */
import type { InformerFactory } from "../cache/index.ts";
import type { Client } from "../client/index.ts";
import { type ControllerSpec, controller } from "../controller/index.ts";
import type { KubeObject } from "../core/index.ts";
import {
  type AggregatedRole,
  aggregatedRules,
  type ResourceDefinition,
  resourceDefinition,
  sameRules,
} from "../resources/index.ts";

/** The field manager kube's controller applies the rules with. */
export const AGGREGATION_FIELD_MANAGER = "clusterrole-aggregation-controller";

const clusterRoles: ResourceDefinition = resourceDefinition({
  group: "rbac.authorization.k8s.io",
  version: "v1",
  kind: "ClusterRole",
  plural: "clusterroles",
  scope: "Cluster",
});

/** Whether a ClusterRole aggregates others. */
function aggregates(role: KubeObject): boolean {
  const rule = (role as AggregatedRole).aggregationRule;
  return rule !== undefined && rule !== null;
}

/**
 * The controller, for a manager to run (reading ClusterRoles through its informer). Any change
 * of any ClusterRole queues every aggregating one, as kube's controller enqueues them all: a
 * role's labels may have joined or left a selector. A role that cannot be aggregated (a bad
 * selector) fails its reconcile and is retried with backoff.
 */
export function clusterRoleAggregationController(
  client: Client,
  factory: InformerFactory,
): ControllerSpec<KubeObject> {
  const store = factory.informer(clusterRoles).store;
  return controller({
    name: "clusterrole-aggregation",
    watches: [
      {
        resource: clusterRoles,
        map: () =>
          store
            .list()
            .filter(aggregates)
            .map((r) => ({ name: r.metadata?.name ?? "" })),
      },
    ],
    reconcile: async ({ name }, ctx) => {
      const role = store.get(name) as AggregatedRole | undefined;
      if (role === undefined || !aggregates(role as KubeObject)) return;
      const rules = aggregatedRules(role, store.list() as AggregatedRole[]);
      if (rules === undefined || sameRules(rules, role.rules)) return;
      const applied = {
        apiVersion: "rbac.authorization.k8s.io/v1",
        kind: "ClusterRole",
        metadata: { name },
        rules,
      };
      await client.resource(clusterRoles).patch(name, "apply", applied, {
        fieldManager: AGGREGATION_FIELD_MANAGER,
        force: true,
        signal: ctx.signal,
      });
    },
  });
}
