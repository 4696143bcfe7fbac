/**
 * What the examples' RBAC tests share: an example's `rbac.yaml` read and applied by the
 * administrator of a server that enforces RBAC, a token of its ServiceAccount, each verb of its
 * rules taken out in turn, and the 403 a controller meets without one, as the server's audit
 * events record it.
 */
import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import type { AuditEvent } from "kontroller/apiserver";
import { type Client, createClient } from "kontroller/client";
import { type ControllerSpec, Manager } from "kontroller/controller";
import {
  type FailRule,
  RequestRecorder,
  startFaultProxy,
  startTestServer,
  type TestServer,
} from "kontroller/testing";
import { parseAllDocuments } from "yaml";

/** The administrator's token of the servers these tests start (`startTestServer({ token })`). */
export const ADMIN_TOKEN = "example-admin";

/** One rule of a Role or ClusterRole, as a manifest writes it. */
export interface PolicyRule {
  apiGroups?: string[];
  resources?: string[];
  verbs: string[];
  resourceNames?: string[];
  nonResourceURLs?: string[];
}

/** One document of a manifest. */
export interface Manifest {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string };
  rules?: PolicyRule[];
  [field: string]: unknown;
}

/** One verb of one rule: the smallest grant a manifest can lose. */
export interface Grant {
  /** The Role or ClusterRole, by kind and name. */
  readonly role: string;
  /** Which of its rules. */
  readonly rule: number;
  readonly verb: string;
  /** The API group and resource (`users/status`) the verb is granted on. */
  readonly group: string;
  readonly resource: string;
}

/** The documents of a YAML manifest, comments dropped. */
export async function readManifests(path: string): Promise<Manifest[]> {
  return parseAllDocuments(await readFile(path, "utf8")).map((d) => d.toJS() as Manifest);
}

const RBAC = "/apis/rbac.authorization.k8s.io/v1";

/** Where a document of each kind the examples' manifests hold is created. */
const COLLECTIONS: Record<string, (namespace: string | undefined) => string> = {
  Namespace: () => "/api/v1/namespaces",
  ServiceAccount: (ns) => `/api/v1/namespaces/${ns}/serviceaccounts`,
  ClusterRole: () => `${RBAC}/clusterroles`,
  ClusterRoleBinding: () => `${RBAC}/clusterrolebindings`,
  Role: (ns) => `${RBAC}/namespaces/${ns}/roles`,
  RoleBinding: (ns) => `${RBAC}/namespaces/${ns}/rolebindings`,
};

/** A request as the administrator; the answer's JSON, after asserting the code. */
async function asAdmin(
  server: TestServer,
  path: string,
  body: unknown,
  expected = 201,
): Promise<unknown> {
  const res = await fetch(`${server.url}${path}`, {
    method: "POST",
    headers: { authorization: `Bearer ${ADMIN_TOKEN}`, "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  const text = await res.text();
  assert.equal(res.status, expected, `POST ${path}: ${text}`);
  return JSON.parse(text);
}

/**
 * Creates every document as the administrator, in order, and answers the manifest's one
 * ServiceAccount, its username and a token of it from the TokenRequest API — what `kubectl apply
 * -f rbac.yaml` and `kubectl create token` do.
 */
export async function applyManifests(
  server: TestServer,
  manifests: readonly Manifest[],
): Promise<{
  subject: { kind: "ServiceAccount"; namespace: string; name: string };
  username: string;
  token: string;
}> {
  for (const m of manifests) {
    const collection = COLLECTIONS[m.kind];
    assert.ok(collection, `the tests cannot apply a ${m.kind}`);
    await asAdmin(server, collection(m.metadata.namespace), m);
  }
  const accounts = manifests.filter((m) => m.kind === "ServiceAccount");
  assert.equal(accounts.length, 1, "the manifest has one ServiceAccount");
  const { name, namespace = "default" } = accounts[0]!.metadata;
  const issued = (await asAdmin(
    server,
    `/api/v1/namespaces/${namespace}/serviceaccounts/${name}/token`,
    { apiVersion: "authentication.k8s.io/v1", kind: "TokenRequest", spec: {} },
  )) as { status: { token: string } };
  return {
    subject: { kind: "ServiceAccount", namespace, name },
    username: `system:serviceaccount:${namespace}:${name}`,
    token: issued.status.token,
  };
}

/** Every verb of every rule of the manifest's Roles and ClusterRoles. */
export function grantsOf(manifests: readonly Manifest[]): Grant[] {
  const grants: Grant[] = [];
  for (const m of manifests) {
    for (const [i, rule] of (m.rules ?? []).entries()) {
      for (const group of rule.apiGroups ?? []) {
        for (const resource of rule.resources ?? []) {
          for (const verb of rule.verbs) {
            grants.push({ role: `${m.kind} ${m.metadata.name}`, rule: i, verb, group, resource });
          }
        }
      }
    }
  }
  return grants;
}

/**
 * The manifests without one verb of one rule (and without the rule, where it was its only
 * verb). Only rules of one group and one resource are split: the examples write theirs so.
 */
export function without(manifests: readonly Manifest[], grant: Grant): Manifest[] {
  return manifests.map((m) => {
    if (`${m.kind} ${m.metadata.name}` !== grant.role || m.rules === undefined) return m;
    const rules = m.rules.flatMap((rule, i) => {
      if (i !== grant.rule) return [rule];
      assert.equal(rule.apiGroups?.length, 1, "a rule of one API group");
      assert.equal(rule.resources?.length, 1, "a rule of one resource");
      const verbs = rule.verbs.filter((v) => v !== grant.verb);
      return verbs.length === 0 ? [] : [{ ...rule, verbs }];
    });
    return { ...m, rules };
  });
}

/** The audit event of the first request of `username` that the server refused with a 403. */
export function forbidden(
  recorder: RequestRecorder,
  username: string,
  options: { signal?: AbortSignal } = {},
): Promise<AuditEvent> {
  return recorder.waitFor(
    (e) =>
      e.stage === "ResponseComplete" &&
      e.user.username === username &&
      e.responseStatus?.code === 403,
    options,
  );
}

/**
 * Runs each step to its end, in order, unless a request of `username` is refused first: then
 * answers the refusal's audit event (and abandons the step under way); undefined when every step
 * ended. A step waits on state (an object's watch), never on time.
 */
export async function stepsUntilForbidden(
  recorder: RequestRecorder,
  username: string,
  steps: readonly ((signal: AbortSignal) => Promise<unknown>)[],
): Promise<AuditEvent | undefined> {
  const done = new AbortController();
  const refused = forbidden(recorder, username, { signal: done.signal });
  refused.catch(() => {}); // aborted once every step has ended
  try {
    for (const step of steps) {
      const running = step(done.signal);
      running.catch(() => {}); // abandoned when refused first
      const event = await Promise.race([refused, running.then(() => undefined)]);
      if (event !== undefined) return event;
    }
    return undefined;
  } finally {
    done.abort();
  }
}

/**
 * Asserts that `event` is kube's 403 for the grant that was taken out: the verb, group and
 * resource, in kube's words (`… cannot patch resource "users/status" in API group "example.com"
 * at the cluster scope`).
 */
export function assertForbiddenFor(event: AuditEvent, grant: Grant): void {
  const [resource, subresource] = grant.resource.split("/");
  assert.deepEqual(
    {
      code: event.responseStatus?.code,
      reason: event.responseStatus?.reason,
      verb: event.verb,
      apiGroup: event.objectRef?.apiGroup ?? "",
      resource: event.objectRef?.resource,
      subresource: event.objectRef?.subresource,
    },
    {
      code: 403,
      reason: "Forbidden",
      verb: grant.verb,
      apiGroup: grant.group,
      resource,
      subresource,
    },
  );
  const words = `is forbidden: User "${event.user.username}" cannot ${grant.verb} resource "${grant.resource}" in API group "${grant.group}"`;
  const message = event.responseStatus?.message ?? "";
  assert.ok(message.includes(words), `${message} says ${words}`);
}

/** What {@link underServiceAccount} hands the test's body. */
export interface UnderServiceAccount {
  /** A client of the administrator, to drive the controller and look at what it did. */
  readonly admin: Client;
  /** Every request the server answered. */
  readonly recorder: RequestRecorder;
  /** The ServiceAccount, and its username, that the controller runs as. */
  readonly subject: { kind: "ServiceAccount"; namespace: string; name: string };
  readonly username: string;
}

/**
 * A server enforcing RBAC (its control plane acts as the administrator), its requests recorded;
 * `install` (the example's CRD) and the manifests applied by the administrator; then the
 * controller that `add` makes runs with the ServiceAccount's token while `body` drives it, and
 * is stopped after.
 */
export async function underServiceAccount(
  options: {
    manifests: readonly Manifest[];
    install: (admin: Client) => Promise<void>;
    // biome-ignore lint/suspicious/noExplicitAny: any example's controller
    controller: (manager: Manager) => ControllerSpec<any>;
    /**
     * Faults between the controller and the server (a proxy that answers them itself: the
     * recorder never sees a request a fault answered), to make a path of the controller's run.
     */
    faults?: FailRule[];
  },
  body: (ctx: UnderServiceAccount) => Promise<void>,
): Promise<void> {
  const recorder = new RequestRecorder();
  await using server = await startTestServer({
    authorization: "RBAC",
    token: ADMIN_TOKEN,
    audit: recorder.audit,
  });
  await using admin = createClient({ url: server.url, token: ADMIN_TOKEN });
  await options.install(admin);
  const { subject, username, token } = await applyManifests(server, options.manifests);
  await using proxy = await startFaultProxy({ target: server.url });
  for (const rule of options.faults ?? []) proxy.failRequests(rule);
  await using client = createClient({ url: proxy.url, token });
  const manager = new Manager({
    client,
    logger: { error() {}, warn() {}, info() {}, debug() {} },
  });
  manager.add(options.controller(manager));
  const stop = new AbortController();
  const running = manager.start(stop.signal);
  try {
    await body({ admin, recorder, subject, username });
  } finally {
    stop.abort();
    await running;
  }
}

/**
 * Asserts that none of the ServiceAccount's requests was refused, and that the RequestRecorder
 * writes, for what it did, exactly the manifest's Roles, ClusterRoles and bindings (the rules
 * first, for a readable difference).
 */
export function assertRecordedRbac(
  recorder: RequestRecorder,
  subject: UnderServiceAccount["subject"],
  manifests: readonly Manifest[],
  options: { namespaceScoped?: boolean } = {},
): void {
  assert.ok(
    recorder.requests(subject).every((r) => r.code !== 403),
    "no request of the controller was refused",
  );
  const roles = manifests.filter((m) => /^(Cluster)?Role(Binding)?$/.test(m.kind));
  const recorded = recorder.rbac({ subject, ...options }).manifests;
  assert.deepEqual(
    recorded.map((m) => m.rules),
    roles.map((m) => m.rules),
  );
  assert.deepEqual(recorded, roles);
}
