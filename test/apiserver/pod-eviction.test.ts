/**
 * `pods/{name}/eviction`, black-box over HTTP on both backends: a pod deleted as kube-apiserver
 * evicts it — at once where no PodDisruptionBudget covers it or it is not running, taking one
 * of its budget's disruptions otherwise — and refused with kube's Status where the budget (or
 * the request) does not allow it.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { startTestServer, type TestServer } from "kontroller/testing";
import { call, type Loose } from "./helpers.ts";
import { kubectlRig } from "./kubectl-rig.ts";

const NS = "/api/v1/namespaces/default";
const PDBS = "/apis/policy/v1/namespaces/default/poddisruptionbudgets";
const MERGE = { "content-type": "application/merge-patch+json" };
const CREATED = { kind: "Status", apiVersion: "v1", metadata: {}, status: "Success", code: 201 };
const TOO_MANY = "Cannot evict pod as it would violate the pod's disruption budget.";

/** kube's 429 for a budget with no disruption left, its cause saying `why`. */
function tooManyRequests(why: string, retryAfterSeconds?: number) {
  return {
    kind: "Status",
    apiVersion: "v1",
    metadata: {},
    status: "Failure",
    message: TOO_MANY,
    reason: "TooManyRequests",
    details: {
      causes: [{ reason: "DisruptionBudget", message: why }],
      ...(retryAfterSeconds === undefined ? {} : { retryAfterSeconds }),
    },
    code: 429,
  };
}

describe("pods/{name}/eviction", () => {
  let s: TestServer;
  before(async () => {
    s = await startTestServer({ controllers: false });
  });
  after(() => s.close());

  const eviction = (name: string, extra: Record<string, unknown> = {}) => ({
    apiVersion: "policy/v1",
    kind: "Eviction",
    metadata: { name },
    ...extra,
  });
  const evict = (name: string, body: unknown = eviction(name), query = "") =>
    call(s.url, "POST", `${NS}/pods/${name}/eviction${query}`, body);
  const getPod = (name: string) => call(s.url, "GET", `${NS}/pods/${name}`);
  const getBudget = async (name: string) => (await call(s.url, "GET", `${PDBS}/${name}`)).body;

  /** A pod labelled `app`, Running and Ready (through pods/status) unless `ready` is "Pending". */
  async function pod(name: string, app: string, ready: "True" | "False" | "Pending" = "True") {
    const created = await call(s.url, "POST", `${NS}/pods`, {
      metadata: { name, labels: { app } },
      spec: { containers: [{ name: "c", image: "i" }] },
    });
    assert.equal(created.status, 201);
    if (ready === "Pending") return;
    const status = { phase: "Running", conditions: [{ type: "Ready", status: ready }] };
    const r = await call(s.url, "PATCH", `${NS}/pods/${name}/status`, { status }, MERGE);
    assert.equal(r.status, 200);
  }

  /** A budget for pods labelled `app`, its status (observed at its generation) set as given. */
  async function budget(
    name: string,
    app: string,
    status: Record<string, unknown>,
    spec: Record<string, unknown> = {},
  ): Promise<Loose> {
    const created = await call(s.url, "POST", PDBS, {
      metadata: { name },
      spec: { minAvailable: 1, selector: { matchLabels: { app } }, ...spec },
    });
    assert.equal(created.status, 201);
    const full = {
      observedGeneration: created.body.metadata.generation,
      disruptionsAllowed: 0,
      currentHealthy: 1,
      desiredHealthy: 1,
      expectedPods: 1,
      ...status,
    };
    const r = await call(s.url, "PATCH", `${PDBS}/${name}/status`, { status: full }, MERGE);
    assert.equal(r.status, 200);
    return r.body;
  }

  it("deletes a pod no budget covers, answering 201 with a Success Status", async () => {
    await pod("free", "free");
    const r = await evict("free");
    assert.equal(r.status, 201);
    assert.deepEqual(r.body, CREATED);
    assert.equal((await getPod("free")).status, 404);
  });

  it("takes a policy/v1beta1 Eviction, and one with no apiVersion, as policy/v1", async () => {
    await pod("beta", "beta");
    const r = await evict("beta", eviction("beta", { apiVersion: "policy/v1beta1" }));
    assert.deepEqual([r.status, r.body], [201, CREATED]);
    await pod("bare", "bare");
    const bare = await evict("bare", { metadata: { name: "bare" } });
    assert.deepEqual([bare.status, bare.body], [201, CREATED]);
  });

  it("deletes a Pending pod without asking its budget, though it allows no disruption", async () => {
    await budget("pending-budget", "pending", {});
    await pod("pending", "pending", "Pending");
    const r = await evict("pending");
    assert.deepEqual([r.status, r.body], [201, CREATED]);
    assert.equal((await getPod("pending")).status, 404);
  });

  it("refuses a ready pod whose budget allows no disruption: 429, the pod kept", async () => {
    await budget("full", "full", {});
    await pod("guarded", "full");
    const r = await evict("guarded");
    assert.equal(r.status, 429);
    assert.equal(r.headers.get("retry-after"), null);
    assert.deepEqual(
      r.body,
      tooManyRequests("The disruption budget full needs 1 healthy pods and has 1 currently"),
    );
    assert.equal((await getPod("guarded")).status, 200);
  });

  it("words the refusal from the budget's DisruptionAllowed condition", async () => {
    const condition = (reason: string, message: string) => ({
      currentHealthy: 3,
      conditions: [
        {
          type: "DisruptionAllowed",
          status: "False",
          reason,
          message,
          lastTransitionTime: "2024-01-01T00:00:00Z",
        },
      ],
    });
    await budget("synced", "cond", condition("SyncFailed", "broken"));
    await pod("cond", "cond");
    const failed = await evict("cond");
    assert.deepEqual(
      failed.body,
      tooManyRequests(
        "The disruption budget synced does not allow evicting pods currently because it failed sync: broken",
      ),
    );
    await call(s.url, "DELETE", `${PDBS}/synced`);
    await budget("insufficient", "cond", condition("InsufficientPods", "too few"));
    const insufficient = await evict("cond");
    assert.deepEqual(
      insufficient.body,
      tooManyRequests(
        "The disruption budget insufficient does not allow evicting pods currently (InsufficientPods): too few",
      ),
    );
  });

  it("asks to retry in 10 s while the budget's status is of an older generation", async () => {
    await budget("stale", "stale", { observedGeneration: 0, disruptionsAllowed: 1 });
    await pod("stale", "stale");
    const r = await evict("stale");
    assert.equal(r.status, 429);
    assert.equal(r.headers.get("retry-after"), "10");
    assert.deepEqual(
      r.body,
      tooManyRequests("The disruption budget stale is still being processed by the server.", 10),
    );
  });

  it("takes a disruption of the budget: one fewer, the pod listed in disruptedPods", async () => {
    await budget("spare", "spare", { disruptionsAllowed: 1, currentHealthy: 2 });
    await pod("spared", "spare");
    const r = await evict("spared");
    assert.deepEqual([r.status, r.body], [201, CREATED]);
    assert.equal((await getPod("spared")).status, 404);
    const after = await getBudget("spare");
    assert.equal(after.status.disruptionsAllowed, 0);
    assert.deepEqual(Object.keys(after.status.disruptedPods), ["spared"]);
    assert.match(after.status.disruptedPods.spared, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    const { lastTransitionTime, ...condition } = after.status.conditions[0];
    assert.deepEqual(condition, {
      type: "DisruptionAllowed",
      status: "False",
      observedGeneration: 1,
      reason: "InsufficientPods",
      message: "",
    });
    assert.equal(typeof lastTransitionTime, "string");
    const entry = after.metadata.managedFields.find((e: Loose) => e.manager === "kube-apiserver");
    assert.equal(entry.operation, "Update");
    assert.equal(entry.subresource, "status");
    assert.deepEqual(Object.keys(entry.fieldsV1["f:status"]).sort(), [
      "f:conditions",
      "f:disruptedPods",
      "f:disruptionsAllowed",
    ]);
    // None is left now; the condition, with no message, adds nothing to the refusal.
    await pod("spared-too", "spare");
    const again = await evict("spared-too");
    assert.deepEqual(
      again.body,
      tooManyRequests("The disruption budget spare does not allow evicting pods currently"),
    );
  });

  it("marks the pod with a DisruptionTarget condition before deleting it", async () => {
    await pod("held", "held");
    await call(s.url, "PATCH", `${NS}/pods/held`, { metadata: { finalizers: ["x.io/y"] } }, MERGE);
    const r = await evict("held");
    assert.deepEqual([r.status, r.body], [201, CREATED]);
    const held = (await getPod("held")).body;
    assert.equal(typeof held.metadata.deletionTimestamp, "string");
    const { lastTransitionTime, ...condition } = held.status.conditions.find(
      (c: Loose) => c.type === "DisruptionTarget",
    );
    assert.deepEqual(condition, {
      type: "DisruptionTarget",
      status: "True",
      lastProbeTime: null,
      reason: "EvictionByEvictionAPI",
      message: "Eviction API: evicting",
    });
    assert.equal(typeof lastTransitionTime, "string");
    // kube records no field manager for the condition.
    assert.equal(held.metadata.managedFields.length, 2);
    await call(s.url, "PATCH", `${NS}/pods/held`, { metadata: { finalizers: null } }, MERGE);
  });

  it("lets an unready pod go where its budget has the healthy pods it wants", async () => {
    await budget("healthy", "unready", { currentHealthy: 1, desiredHealthy: 1 });
    await pod("unready", "unready", "False");
    const r = await evict("unready");
    assert.deepEqual([r.status, r.body], [201, CREATED]);
    assert.equal((await getBudget("healthy")).status.disruptionsAllowed, 0);
    await budget(
      "always",
      "always",
      { currentHealthy: 0, desiredHealthy: 1 },
      { unhealthyPodEvictionPolicy: "AlwaysAllow" },
    );
    await pod("sick", "always", "False");
    assert.equal((await evict("sick")).status, 201);
    await budget("short", "short", { currentHealthy: 0, desiredHealthy: 1 });
    await pod("weak", "short", "False");
    assert.deepEqual(
      (await evict("weak")).body,
      tooManyRequests("The disruption budget short needs 1 healthy pods and has 0 currently"),
    );
  });

  it("answers 500 where more than one budget covers the pod", async () => {
    await budget("first", "twice", { disruptionsAllowed: 1 });
    await budget("second", "twice", { disruptionsAllowed: 1 });
    await pod("twice", "twice");
    const r = await evict("twice");
    assert.equal(r.status, 500);
    assert.deepEqual(r.body, {
      kind: "Status",
      apiVersion: "v1",
      metadata: {},
      status: "Failure",
      message:
        "This pod has more than one PodDisruptionBudget, which the eviction subresource does not support.",
      code: 500,
    });
    assert.equal((await getPod("twice")).status, 200);
  });

  it("changes nothing on a dry run", async () => {
    const before = await budget("dry", "dry", { disruptionsAllowed: 1, currentHealthy: 2 });
    await pod("dry", "dry");
    const pod0 = (await getPod("dry")).body;
    const r = await evict("dry", eviction("dry"), "?dryRun=All");
    assert.deepEqual([r.status, r.body], [201, CREATED]);
    assert.deepEqual((await getPod("dry")).body, pod0);
    assert.deepEqual(await getBudget("dry"), before);
    const inBody = await evict("dry", eviction("dry", { deleteOptions: { dryRun: ["All"] } }));
    assert.deepEqual([inBody.status, inBody.body], [201, CREATED]);
    assert.deepEqual((await getPod("dry")).body, pod0);
  });

  it("refuses a name that is not the URL's (400) and a missing pod (404)", async () => {
    await pod("named", "named");
    const r = await evict("named", eviction("other"));
    assert.equal(r.status, 400);
    assert.deepEqual(r.body, {
      kind: "Status",
      apiVersion: "v1",
      metadata: {},
      status: "Failure",
      message: "name in URL does not match name in Eviction object",
      reason: "BadRequest",
      code: 400,
    });
    const missing = await evict("missing");
    assert.equal(missing.status, 404);
    assert.deepEqual(missing.body, {
      kind: "Status",
      apiVersion: "v1",
      metadata: {},
      status: "Failure",
      message: 'pods "missing" not found',
      reason: "NotFound",
      details: { name: "missing", kind: "pods" },
      code: 404,
    });
  });

  it("refuses deleteOptions kube refuses for an eviction", async () => {
    await pod("opts", "opts");
    const unsafe = await evict(
      "opts",
      eviction("opts", {
        deleteOptions: { ignoreStoreReadErrorWithClusterBreakingPotential: true },
      }),
    );
    assert.equal(unsafe.status, 422);
    const why =
      "Invalid value: true: can not be set for pod eviction, try after removing the option";
    assert.deepEqual(unsafe.body, {
      kind: "Status",
      apiVersion: "v1",
      metadata: {},
      status: "Failure",
      message: `Eviction.policy "opts" is invalid: deleteOptions.ignoreStoreReadErrorWithClusterBreakingPotential: ${why}`,
      reason: "Invalid",
      details: {
        name: "opts",
        group: "policy",
        kind: "Eviction",
        causes: [
          {
            reason: "FieldValueInvalid",
            message: why,
            field: "deleteOptions.ignoreStoreReadErrorWithClusterBreakingPotential",
          },
        ],
      },
      code: 422,
    });
    const twoDryRuns = await evict(
      "opts",
      eviction("opts", { deleteOptions: { dryRun: ["All"] } }),
      "?dryRun=All&dryRun=All",
    );
    assert.equal(twoDryRuns.status, 500);
    assert.deepEqual(twoDryRuns.body, {
      kind: "Status",
      apiVersion: "v1",
      metadata: {},
      status: "Failure",
      message: "Non-matching dry-run options in request and content: [All All] and [All]",
      code: 500,
    });
    const uid = (await getPod("opts")).body.metadata.uid;
    const stale = await evict(
      "opts",
      eviction("opts", { deleteOptions: { preconditions: { uid: "other" } } }),
    );
    assert.equal(stale.status, 409);
    assert.deepEqual(stale.body, {
      kind: "Status",
      apiVersion: "v1",
      metadata: {},
      status: "Failure",
      message: `Operation cannot be fulfilled on Pod "opts": the UID in the precondition (other) does not match the UID in record (${uid}). The object might have been deleted and then recreated`,
      reason: "Conflict",
      details: { name: "opts", kind: "Pod" },
      code: 409,
    });
    assert.equal((await getPod("opts")).status, 200);
  });
});

describe("kubectl drain", () => {
  const rig = kubectlRig("drain", { controllers: false });

  it("evicts the node's pods through pods/{name}/eviction, a budget's pod too", async () => {
    const url = rig.server.url;
    await call(url, "POST", "/api/v1/nodes", { metadata: { name: "n1" } });
    for (const name of ["web", "worker"]) {
      await call(url, "POST", `${NS}/pods`, {
        metadata: { name, labels: { app: name } },
        spec: { nodeName: "n1", containers: [{ name: "c", image: "i" }] },
      });
    }
    const status = { phase: "Running", conditions: [{ type: "Ready", status: "True" }] };
    await call(url, "PATCH", `${NS}/pods/web/status`, { status }, MERGE);
    const created = await call(url, "POST", PDBS, {
      metadata: { name: "web" },
      spec: { minAvailable: 1, selector: { matchLabels: { app: "web" } } },
    });
    const budget = { observedGeneration: created.body.metadata.generation, disruptionsAllowed: 1 };
    await call(url, "PATCH", `${PDBS}/web/status`, { status: budget }, MERGE);
    const out = await rig.kubectl("drain", "n1", "--force", "--grace-period=0", "--timeout=30s");
    assert.match(out, /pod\/web evicted/);
    assert.match(out, /pod\/worker evicted/);
    assert.match(out, /node\/n1 drained/);
    assert.deepEqual((await call(url, "GET", `${NS}/pods`)).body.items, []);
    const after = (await call(url, "GET", `${PDBS}/web`)).body.status;
    assert.equal(after.disruptionsAllowed, 0);
    assert.deepEqual(Object.keys(after.disruptedPods), ["web"]);
  });
});
