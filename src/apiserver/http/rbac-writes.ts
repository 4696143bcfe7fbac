import type { KubeObject } from "../../core/index.ts";
import type { ClusterRole, RoleBinding } from "../auth/rbac/index.ts";
import { RBAC_GROUP } from "../auth/rbac/index.ts";
import type { WriteOptions } from "../registry/types.ts";
import type { VerbRequest } from "./types.ts";

/*
 * The escalation checks on writes of RBAC objects, where the request's write happens: kube's
 * policy-based storages run them inside the store, after decoding, defaults and field
 * management and before the object's own validation — on a create, and on an update (a patch
 * or an apply is one) against the stored object. They run with a dry run too.
 */

const NO_ROLE_REF = Object.freeze({ apiGroup: "", kind: "", name: "" });

/**
 * `options` with the escalation check of the request's user before the write's own transform,
 * when the request writes a Role, ClusterRole, RoleBinding or ClusterRoleBinding under an
 * authorization mode that checks them; `options` as they are otherwise.
 */
export function withEscalationCheck<T extends WriteOptions>(v: VerbRequest, options: T): T {
  const checks = v.ctx.auth.escalation;
  const { def } = v.served;
  if (checks === undefined || def.group !== RBAC_GROUP) return options;
  const { user, r } = v;
  const inner = options.transform;
  const check = (stored: KubeObject | undefined, object: KubeObject) => {
    switch (def.plural) {
      case "roles":
      case "clusterroles":
        return checks.checkRoleWrite({
          user,
          resource: def.plural,
          namespace: r.namespace,
          requestName: r.name,
          object: object as ClusterRole,
          ...(stored === undefined ? {} : { oldObject: stored as ClusterRole }),
        });
      case "rolebindings":
      case "clusterrolebindings": {
        // A binding without a roleRef is refused as kube refuses an empty one.
        const binding = object as Partial<RoleBinding>;
        const withRef = { ...binding, roleRef: binding.roleRef ?? NO_ROLE_REF } as RoleBinding;
        const old = stored as RoleBinding | undefined;
        return checks.checkBindingWrite({
          user,
          resource: def.plural,
          namespace: r.namespace,
          object: withRef,
          ...(old === undefined
            ? {}
            : { oldObject: { ...old, roleRef: old.roleRef ?? NO_ROLE_REF } }),
        });
      }
      default:
        return undefined;
    }
  };
  return {
    ...options,
    transform: (stored, object, subresource) => {
      const refusal = check(stored, object);
      if (refusal !== undefined) throw refusal;
      inner?.(stored, object, subresource);
    },
  };
}
