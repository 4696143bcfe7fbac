import { type Authorizer, alwaysAllow } from "./authorizer.ts";
import {
  EscalationChecks,
  privilegedGroups,
  RbacAuthorizer,
  type RbacObjects,
  unionAuthorizer,
} from "./rbac/index.ts";
import { MASTERS_GROUP } from "./user.ts";

/** How the server authorizes requests (kube-apiserver's `--authorization-mode`). */
export type AuthorizationMode = "AlwaysAllow" | "RBAC";

/** The modes {@link AuthorizationMode} names. */
export const AUTHORIZATION_MODES: readonly AuthorizationMode[] = ["AlwaysAllow", "RBAC"];

/** What decides requests, and the checks on writes of RBAC objects that go with it. */
export interface Authorization {
  readonly authorizer: Authorizer;
  /**
   * The `escalate`/`bind` checks on writes of Roles, ClusterRoles and bindings; none under
   * AlwaysAllow, where kube's checks always pass (the authorizer allows `escalate` and `bind`).
   */
  readonly escalation?: EscalationChecks;
}

/** AlwaysAllow: every request of every user. */
export const alwaysAllowAuthorization: Authorization = Object.freeze({ authorizer: alwaysAllow });

/**
 * RBAC as kube-apiserver chains it with `--authorization-mode=RBAC`: members of
 * `system:masters` are allowed everything first, then the RBAC authorizer decides by `objects`;
 * the escalation checks ask the same chain.
 */
export function rbacAuthorization(objects: RbacObjects): Authorization {
  const authorizer = unionAuthorizer([
    privilegedGroups([MASTERS_GROUP]),
    new RbacAuthorizer({ objects }),
  ]);
  return { authorizer, escalation: new EscalationChecks({ authorizer, objects }) };
}
