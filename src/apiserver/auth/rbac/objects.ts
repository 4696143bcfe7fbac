import type { UserInfo } from "../user.ts";
import {
  type ClusterRole,
  type ClusterRoleBinding,
  list,
  type Role,
  type RoleBinding,
} from "./types.ts";

/**
 * What the RBAC code reads: kube's RoleGetter, ClusterRoleGetter and the two binding listers.
 * The server backs it by its watch cache (or feeds a {@link MemoryRbacObjects} from it).
 *
 * Every method is synchronous: the authorizer answers each request from memory. A method may
 * throw (a cache not yet synced): the authorizer reports the error as kube reports a lister's,
 * and decides on the rules it could read.
 */
export interface RbacObjects {
  /** The Role `namespace/name`, or undefined. */
  getRole(namespace: string, name: string): Role | undefined;
  /** The ClusterRole, or undefined. */
  getClusterRole(name: string): ClusterRole | undefined;
  /** Every ClusterRole (what aggregation selects from). */
  listClusterRoles(): Iterable<ClusterRole>;
  /**
   * The RoleBindings of `namespace` that may apply to `user`: all of them, or fewer when the
   * implementation indexes subjects — but never one fewer than those whose subjects name the
   * user, one of its groups, or the service account it is. The caller checks each subject.
   */
  roleBindingsFor(namespace: string, user: UserInfo): Iterable<RoleBinding>;
  /** The ClusterRoleBindings that may apply to `user`, as {@link roleBindingsFor}. */
  clusterRoleBindingsFor(user: UserInfo): Iterable<ClusterRoleBinding>;
}

/** The RBAC resources, by their plural names. */
export type RbacResource = "roles" | "clusterroles" | "rolebindings" | "clusterrolebindings";

/** RBAC objects to start a {@link MemoryRbacObjects} with. */
export interface RbacObjectSet {
  /** @default none */
  readonly roles?: readonly Role[];
  /** @default none */
  readonly clusterRoles?: readonly ClusterRole[];
  /** @default none */
  readonly roleBindings?: readonly RoleBinding[];
  /** @default none */
  readonly clusterRoleBindings?: readonly ClusterRoleBinding[];
}

const SERVICE_ACCOUNT_PREFIX = "system:serviceaccount:";

/**
 * The subject keys a binding is found by: `u:<username>` for a User, and for a ServiceAccount
 * its username (kube matches a ServiceAccount subject by the username alone); `g:<group>`.
 */
function subjectKeys(binding: RoleBinding, namespace: string): string[] {
  const keys: string[] = [];
  for (const s of list(binding.subjects)) {
    switch (s.kind) {
      case "User":
        keys.push(`u:${s.name}`);
        break;
      case "Group":
        keys.push(`g:${s.name}`);
        break;
      case "ServiceAccount": {
        const ns = s.namespace || namespace;
        if (ns !== "") keys.push(`u:${SERVICE_ACCOUNT_PREFIX}${ns}:${s.name}`);
        break;
      }
      default:
        break; // kube's appliesTo matches no other kind
    }
  }
  return keys;
}

function userKeys(user: UserInfo): string[] {
  return [`u:${user.username}`, ...user.groups.map((g) => `g:${g}`)];
}

function nameOf(o: { readonly metadata?: { readonly name?: string } }): string {
  return o.metadata?.name ?? "";
}

function byName(a: RoleBinding, b: RoleBinding): number {
  const x = nameOf(a);
  const y = nameOf(b);
  return x < y ? -1 : x > y ? 1 : 0;
}

/** The bindings of one scope (a namespace, or "" for ClusterRoleBindings), indexed by subject. */
class BindingScope {
  readonly #byName = new Map<string, RoleBinding>();
  /** subject key → names of the bindings with such a subject. */
  readonly #bySubject = new Map<string, Set<string>>();
  readonly #namespace: string;

  constructor(namespace: string) {
    this.#namespace = namespace;
  }

  get size(): number {
    return this.#byName.size;
  }

  upsert(binding: RoleBinding): void {
    const name = nameOf(binding);
    this.delete(name);
    this.#byName.set(name, binding);
    for (const key of subjectKeys(binding, this.#namespace)) {
      const names = this.#bySubject.get(key);
      if (names === undefined) this.#bySubject.set(key, new Set([name]));
      else names.add(name);
    }
  }

  delete(name: string): void {
    const old = this.#byName.get(name);
    if (old === undefined) return;
    this.#byName.delete(name);
    for (const key of subjectKeys(old, this.#namespace)) {
      const names = this.#bySubject.get(key);
      names?.delete(name);
      if (names?.size === 0) this.#bySubject.delete(key);
    }
  }

  /** The bindings with a subject naming the user or one of its groups, by name. */
  for(user: UserInfo): RoleBinding[] {
    const names = new Set<string>();
    for (const key of userKeys(user)) {
      for (const name of this.#bySubject.get(key) ?? []) names.add(name);
    }
    return [...names].map((n) => this.#byName.get(n)!).sort(byName);
  }
}

/**
 * RBAC objects in memory, bindings indexed by subject so that a request looks at the bindings
 * of its user and groups only — not at every binding of the cluster. The server keeps one in
 * step with its storage (`upsert` on ADDED/MODIFIED, `delete` on DELETED); tests build one from
 * a {@link RbacObjectSet}. Bindings come back ordered by name, as a list from storage is.
 *
 * Not safe to mutate while iterating a result of `listClusterRoles`.
 */
export class MemoryRbacObjects implements RbacObjects {
  readonly #roles = new Map<string, Role>();
  readonly #clusterRoles = new Map<string, ClusterRole>();
  readonly #roleBindings = new Map<string, BindingScope>();
  readonly #clusterRoleBindings = new BindingScope("");

  constructor(initial: RbacObjectSet = {}) {
    for (const o of initial.roles ?? []) this.upsert("roles", o);
    for (const o of initial.clusterRoles ?? []) this.upsert("clusterroles", o);
    for (const o of initial.roleBindings ?? []) this.upsert("rolebindings", o);
    for (const o of initial.clusterRoleBindings ?? []) this.upsert("clusterrolebindings", o);
  }

  /** Adds or replaces an object (by namespace and name). */
  upsert(resource: RbacResource, object: Role | ClusterRole | RoleBinding): void {
    const namespace = object.metadata?.namespace ?? "";
    const name = nameOf(object);
    switch (resource) {
      case "roles":
        this.#roles.set(`${namespace}/${name}`, object as Role);
        break;
      case "clusterroles":
        this.#clusterRoles.set(name, object as ClusterRole);
        break;
      case "rolebindings": {
        const bindings = this.#roleBindings.get(namespace) ?? new BindingScope(namespace);
        this.#roleBindings.set(namespace, bindings);
        bindings.upsert(object as RoleBinding);
        break;
      }
      case "clusterrolebindings":
        this.#clusterRoleBindings.upsert(object as ClusterRoleBinding);
        break;
    }
  }

  /** Removes an object; `namespace` is "" for the cluster-scoped kinds. No-op if absent. */
  delete(resource: RbacResource, namespace: string, name: string): void {
    switch (resource) {
      case "roles":
        this.#roles.delete(`${namespace}/${name}`);
        break;
      case "clusterroles":
        this.#clusterRoles.delete(name);
        break;
      case "rolebindings": {
        const bindings = this.#roleBindings.get(namespace);
        bindings?.delete(name);
        if (bindings?.size === 0) this.#roleBindings.delete(namespace);
        break;
      }
      case "clusterrolebindings":
        this.#clusterRoleBindings.delete(name);
        break;
    }
  }

  getRole(namespace: string, name: string): Role | undefined {
    return this.#roles.get(`${namespace}/${name}`);
  }

  getClusterRole(name: string): ClusterRole | undefined {
    return this.#clusterRoles.get(name);
  }

  listClusterRoles(): Iterable<ClusterRole> {
    return this.#clusterRoles.values();
  }

  roleBindingsFor(namespace: string, user: UserInfo): Iterable<RoleBinding> {
    return this.#roleBindings.get(namespace)?.for(user) ?? [];
  }

  clusterRoleBindingsFor(user: UserInfo): Iterable<ClusterRoleBinding> {
    return this.#clusterRoleBindings.for(user);
  }
}
