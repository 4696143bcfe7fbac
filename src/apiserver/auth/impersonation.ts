import { ApiError, checkDns1123Label, checkDns1123Subdomain } from "../../core/index.ts";
import type { AccessAttributes, Authorizer } from "./authorizer.ts";
import { validateExtra } from "./impersonation-extra.ts";
import {
  type ImpersonationHeaders,
  impersonationRequest,
  type WantedUser,
} from "./impersonation-headers.ts";
import { goQuoteList } from "./rbac/go-format.ts";
import { forbiddenError } from "./rbac/index.ts";
import {
  ANONYMOUS_USER,
  AUTHENTICATED_GROUP,
  MASTERS_GROUP,
  NODE_NAME_EXTRA,
  serviceAccountGroups,
  UNAUTHENTICATED_GROUP,
  type UserInfo,
} from "./user.ts";

export type { ImpersonationHeaders } from "./impersonation-headers.ts";

/*
 * Impersonation (`Impersonate-User`, `-Group`, `-Uid`, `-Extra-<key>`) as kube-apiserver 1.36
 * checks it, with constrained impersonation on (beta, on by default): the modes are tried in
 * kube's order — associated-node, arbitrary-node, serviceaccount, user-info, each a verb
 * `impersonate-on:<mode>:<request's verb>` on what the request does and then
 * `impersonate:<mode>` on what it asks to be (in API group authentication.k8s.io) — and last
 * the legacy mode, verb `impersonate` on users, groups and serviceaccounts (API group "") and
 * uids and userextras/<key> (authentication.k8s.io). The first mode that allows it decides;
 * when none does, the answer is the first refusal. As kube, the mode that last succeeded for a
 * requester (by name) is tried first, so which refusal a requester sees, and the groups of an
 * impersonated node (`system:nodes` in the node modes, none in legacy), depend on what it did
 * before, as they do on kube-apiserver. Unlike kube, a successful check is not cached for
 * 10 s: a role taken away takes effect at the next request.
 */

const AUTHENTICATION_GROUP = "authentication.k8s.io";
const NODES_GROUP = "system:nodes";
/** How many checks in a loop are worth one wildcard check first (kube's constant). */
const MANY_CHECKS = 4;
/** The verb of each mode, in the order they are tried, as kube's audit names it ("" legacy). */
const CONSTRAINTS = [
  "impersonate:associated-node",
  "impersonate:arbitrary-node",
  "impersonate:serviceaccount",
  "impersonate:user-info",
  "",
] as const;
/** How many requesters' last successful modes are remembered (kube's LRU size). */
const MODE_CACHE_SIZE = 10_000;

type ResourceAttributes = Extract<AccessAttributes, { kind: "resource" }>;

/** One mode: undefined when it does not apply to the wanted user; throws kube's 403. */
type Mode = (
  wanted: WantedUser,
  requestor: UserInfo,
  request: AccessAttributes,
) => UserInfo | undefined;

/**
 * Decides who a request acts as, given who sent it. Holds kube's memory of the mode each
 * requester last impersonated by (bounded, least recently used first out).
 */
export class Impersonation {
  readonly #authorizer: Authorizer;
  readonly #modes: readonly Mode[];
  readonly #lastMode = new Map<string, number>();

  constructor(authorizer: Authorizer) {
    this.#authorizer = authorizer;
    const check = (user: UserInfo, a: AccessAttributes) => this.#check(user, a);
    this.#modes = [
      associatedNodeMode(check),
      constrainedMode(
        check,
        "arbitrary-node",
        (w) => onlyUsername(w) && nodeName(w.username) !== undefined,
      ),
      constrainedMode(
        check,
        "serviceaccount",
        (w) => onlyUsername(w) && splitServiceAccount(w.username) !== undefined,
      ),
      constrainedMode(
        check,
        "user-info",
        (w) => nodeName(w.username) === undefined && splitServiceAccount(w.username) === undefined,
      ),
      (wanted, requestor) => checkUser(check, "impersonate", false, wanted, requestor),
    ];
  }

  /**
   * The user a request of `requestor` acts as: the requestor itself when the request has no
   * `Impersonate-User` (or an empty one); the impersonated user, with `system:authenticated`
   * (or `system:unauthenticated` for `system:anonymous`) added as kube adds it. Throws kube's
   * 400 for groups, a uid or extras without a user, and kube's 403 when no mode allows it.
   * `request` says what the request does (asked only when a user is impersonated): the
   * constrained modes authorize it for the requestor.
   */
  impersonate(
    requestor: UserInfo,
    headers: ImpersonationHeaders,
    request: () => AccessAttributes,
  ): UserInfo {
    return this.impersonation(requestor, headers, request)?.user ?? requestor;
  }

  /**
   * As {@link impersonate}, with the mode that allowed it as kube's audit records it (the
   * `impersonate:<mode>` verb; "" for the legacy mode); undefined when nobody is impersonated.
   */
  impersonation(
    requestor: UserInfo,
    headers: ImpersonationHeaders,
    request: () => AccessAttributes,
  ): { readonly user: UserInfo; readonly constraint: string } | undefined {
    const wanted = impersonationRequest(headers);
    if (wanted === undefined) return undefined;
    const attributes = request();
    const last = this.#lastMode.get(requestor.username);
    let firstError: unknown;
    const order =
      last === undefined
        ? this.#modes.keys()
        : [last, ...[...this.#modes.keys()].filter((i) => i !== last)];
    for (const i of order) {
      let user: UserInfo | undefined;
      try {
        user = this.#modes[i]!(wanted, requestor, attributes);
      } catch (err) {
        firstError ??= err;
        continue;
      }
      if (user === undefined) continue;
      this.#remember(requestor.username, i);
      return { user, constraint: CONSTRAINTS[i]! };
    }
    throw firstError ?? forbiddenError(requestor, attributes, "all impersonation modes failed");
  }

  #remember(username: string, mode: number): void {
    this.#lastMode.delete(username);
    this.#lastMode.set(username, mode);
    if (this.#lastMode.size > MODE_CACHE_SIZE) {
      const oldest = this.#lastMode.keys().next().value as string;
      this.#lastMode.delete(oldest);
    }
  }

  /** kube's `checkAuthorization`: allowed, or the 403 with the authorizer's reason. */
  #check(user: UserInfo, attributes: AccessAttributes): void {
    const decision = this.#authorizer.authorize(user, attributes);
    if (!decision.allowed) throw forbiddenError(user, attributes, decision.reason);
  }
}

type Check = (user: UserInfo, attributes: AccessAttributes) => void;

/** `impersonate-on:<mode>:<verb>` on the request, then the mode's checks of the wanted user. */
function constrainedMode(
  check: Check,
  mode: string,
  applies: (w: WantedUser, requestor: UserInfo) => boolean,
): Mode {
  return (wanted, requestor, request) => {
    if (!applies(wanted, requestor)) return undefined;
    check(requestor, { ...request, verb: `impersonate-on:${mode}:${request.verb}` });
    return checkUser(check, `impersonate:${mode}`, true, wanted, requestor);
  };
}

/**
 * A service account impersonating the node its token is bound to (the `node-name` extra). As
 * kube, the checks are made as a requester whose extras are only the names of its extra keys,
 * and `impersonate:associated-node` on any node name ("*"), so one answer holds for every node.
 */
function associatedNodeMode(check: Check): Mode {
  const associated: Check = (user, attributes) => {
    const keys = Object.keys(user.extra ?? {}).sort();
    const asked = { ...user, extra: { "authentication.kubernetes.io/associated-node-keys": keys } };
    const any = attributes.verb === "impersonate:associated-node" && attributes.kind === "resource";
    check(asked, any ? { ...attributes, name: "*" } : attributes);
  };
  return constrainedMode(associated, "associated-node", (wanted, requestor) => {
    const node = nodeName(wanted.username);
    if (!onlyUsername(wanted) || node === undefined) return false;
    if (splitServiceAccount(requestor.username) === undefined) return false;
    const bound = requestor.extra?.[NODE_NAME_EXTRA];
    return bound?.length === 1 && bound[0] === node;
  });
}

/** The checks of the wanted user's name, uid, groups and extras (kube's `impersonationModeState`). */
function checkUser(
  check: Check,
  verb: string,
  constrained: boolean,
  wanted: WantedUser,
  requestor: UserInfo,
): UserInfo {
  // Users, groups and service accounts are in authentication.k8s.io/v1 for constrained modes,
  // in the core v1 for the legacy one; uids and extras always in authentication.k8s.io/v1.
  const group = constrained ? AUTHENTICATION_GROUP : "";
  const attrs = (
    resource: string,
    name: string,
    extra?: Partial<ResourceAttributes>,
  ): ResourceAttributes => ({
    kind: "resource",
    verb,
    namespace: "",
    group,
    version: "v1",
    resource,
    subresource: "",
    name,
    ...extra,
  });
  let groups = wanted.groups;
  // The name.
  const node = constrained ? nodeName(wanted.username) : undefined;
  const sa = splitServiceAccount(wanted.username);
  let username = attrs("users", wanted.username);
  if (node !== undefined) {
    username = attrs("nodes", node);
    if (wanted.groups.length > 0) {
      throw forbiddenError(
        requestor,
        username,
        `when impersonating a node, cannot impersonate groups ${goQuoteList(wanted.groups)}`,
      );
    }
    groups = [NODES_GROUP];
  }
  if (sa !== undefined) {
    username = attrs("serviceaccounts", sa.name, { namespace: sa.namespace });
    if (constrained && wanted.groups.length > 0) {
      throw forbiddenError(
        requestor,
        username,
        `when impersonating a service account, cannot impersonate groups ${goQuoteList(wanted.groups)}`,
      );
    }
    if (wanted.groups.length === 0) groups = serviceAccountGroups(sa.namespace);
  }
  check(requestor, username);
  // The uid.
  if (wanted.uid !== "") {
    check(requestor, { ...attrs("uids", wanted.uid), group: AUTHENTICATION_GROUP });
  }
  // The groups.
  if (wanted.groups.length > 0) {
    const asked = attrs("groups", "");
    if (constrained && wanted.groups.includes("")) {
      throw forbiddenError(requestor, asked, "impersonating the empty string group is not allowed");
    }
    if (constrained && wanted.groups.includes(MASTERS_GROUP)) {
      throw forbiddenError(
        requestor,
        { ...asked, name: MASTERS_GROUP },
        "impersonating the system:masters group is not allowed",
      );
    }
    if (
      !(
        constrained &&
        wanted.groups.length >= MANY_CHECKS &&
        allows(check, requestor, { ...asked, name: "*" })
      )
    ) {
      for (const g of wanted.groups) check(requestor, { ...asked, name: g });
    }
  }
  // The extras.
  const keys = Object.keys(wanted.extra).sort();
  if (keys.length > 0) {
    const asked = { ...attrs("userextras", ""), group: AUTHENTICATION_GROUP };
    if (constrained) {
      const invalid = validateExtra(wanted.extra);
      if (invalid !== undefined) throw forbiddenError(requestor, asked, invalid);
    }
    const values = keys.reduce((n, k) => n + wanted.extra[k]!.length, 0);
    const large = keys.length >= MANY_CHECKS || values >= MANY_CHECKS;
    if (
      !(constrained && large && allows(check, requestor, { ...asked, subresource: "*", name: "*" }))
    ) {
      for (const key of keys) {
        for (const value of wanted.extra[key]!)
          check(requestor, { ...asked, subresource: key, name: value });
      }
    }
  }
  if (wanted.username === ANONYMOUS_USER.username) {
    if (!groups.includes(UNAUTHENTICATED_GROUP)) groups = [...groups, UNAUTHENTICATED_GROUP];
  } else if (!groups.includes(UNAUTHENTICATED_GROUP) && !groups.includes(AUTHENTICATED_GROUP)) {
    groups = [...groups, AUTHENTICATED_GROUP];
  }
  return {
    username: wanted.username,
    ...(wanted.uid === "" ? {} : { uid: wanted.uid }),
    groups,
    ...(keys.length === 0 ? {} : { extra: wanted.extra }),
  };
}

function allows(check: Check, user: UserInfo, attributes: AccessAttributes): boolean {
  try {
    check(user, attributes);
    return true;
  } catch (err) {
    if (err instanceof ApiError) return false;
    throw err;
  }
}

function onlyUsername(wanted: WantedUser): boolean {
  return wanted.uid === "" && wanted.groups.length === 0 && Object.keys(wanted.extra).length === 0;
}

/** The node of `system:node:<name>` when the name is a valid node name. */
function nodeName(username: string): string | undefined {
  if (!username.startsWith("system:node:")) return undefined;
  const name = username.slice("system:node:".length);
  return checkDns1123Subdomain(name) === undefined ? name : undefined;
}

/** kube's `serviceaccount.SplitUsername`: `system:serviceaccount:<namespace>:<name>`, both valid. */
export function splitServiceAccount(
  username: string,
): { namespace: string; name: string } | undefined {
  const prefix = "system:serviceaccount:";
  if (!username.startsWith(prefix)) return undefined;
  const parts = username.slice(prefix.length).split(":");
  if (parts.length !== 2) return undefined;
  const [namespace, name] = parts as [string, string];
  if (checkDns1123Label(namespace) !== undefined || checkDns1123Subdomain(name) !== undefined)
    return undefined;
  return { namespace, name };
}
