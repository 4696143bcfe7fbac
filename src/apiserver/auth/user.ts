/*
 * Who a request is from, as kube's authenticators name users: a name, a uid, groups and extra
 * values, and the users and groups kube gives fixed names (see authenticator.ts for who is who).
 */

/** A user, as kube's `user.Info` (and authentication.k8s.io/v1 `UserInfo`) describes one. */
export interface UserInfo {
  readonly username: string;
  /** @default none */
  readonly uid?: string;
  readonly groups: readonly string[];
  /** @default none */
  readonly extra?: Readonly<Record<string, readonly string[]>>;
}

/** The group every authenticated user is in. */
export const AUTHENTICATED_GROUP = "system:authenticated";

/** The group of the anonymous user. */
export const UNAUTHENTICATED_GROUP = "system:unauthenticated";

/** The group whose members kube-apiserver allows everything, whatever the authorizer says. */
export const MASTERS_GROUP = "system:masters";

/**
 * kube's anonymous user: who a request without credentials is, where anonymous requests are
 * allowed (`--anonymous-auth`, on by default).
 */
export const ANONYMOUS_USER: UserInfo = Object.freeze({
  username: "system:anonymous",
  groups: Object.freeze([UNAUTHENTICATED_GROUP]),
});

/**
 * The user behind the server's shared bearer token (`kontroller serve --token`): an
 * administrator, as the users of kubeadm's and kind's admin kubeconfigs are — the same user,
 * uid included, as the token of the testing module's kube-apiserver, so that what a server
 * records of its requester (a CertificateSigningRequest's spec.username and uid) is the same
 * on both backends.
 */
export const TOKEN_USER: UserInfo = Object.freeze({
  username: "admin",
  uid: "kontroller-admin",
  groups: Object.freeze([MASTERS_GROUP, AUTHENTICATED_GROUP]),
});

/** The extra key of a service account token's pod name (kube's `PodNameKey`). */
export const POD_NAME_EXTRA = "authentication.kubernetes.io/pod-name";
/** The extra key of a service account token's pod uid. */
export const POD_UID_EXTRA = "authentication.kubernetes.io/pod-uid";
/** The extra key of a service account token's node name. */
export const NODE_NAME_EXTRA = "authentication.kubernetes.io/node-name";
/** The extra key of a service account token's node uid. */
export const NODE_UID_EXTRA = "authentication.kubernetes.io/node-uid";
/** The extra key of the credential a request was authenticated with (`JTI=<token id>`). */
export const CREDENTIAL_ID_EXTRA = "authentication.kubernetes.io/credential-id";

/** `system:serviceaccount:<namespace>:<name>`, a service account's username. */
export function serviceAccountUsername(namespace: string, name: string): string {
  return `system:serviceaccount:${namespace}:${name}`;
}

/** The groups of a service account: all service accounts, and those of its namespace. */
export function serviceAccountGroups(namespace: string): string[] {
  return ["system:serviceaccounts", `system:serviceaccounts:${namespace}`];
}
