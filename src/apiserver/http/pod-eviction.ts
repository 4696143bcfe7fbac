import {
  ApiError,
  errors,
  FieldSelector,
  isConflict,
  type KubeObject,
  LabelSelector,
} from "../../core/index.ts";
import type { DeleteOptions } from "../registry/deletion.ts";
import { timestamp } from "../registry/deletion.ts";
import { field } from "../registry/field-errors.ts";
import type { ServedResource } from "../registry/registry.ts";
import {
  type Budget,
  budgetInProgress,
  budgetsOf,
  canIgnoreBudgets,
  decrementBudget,
  type EvictedPod,
  enforcesResourceVersion,
  isPodReady,
  unreadyMayGo,
} from "./disruption-budgets.ts";
import { notFound } from "./request-errors.ts";
import { sendJson, successStatus } from "./respond.ts";
import { goBool, goInt64, goString, goStrings, goStruct } from "./typed-body.ts";
import { type CreateTarget, readCreateBody, type UnstoredHandler } from "./unstored-create.ts";
import { setWarnings } from "./write-options.ts";

/*
 * `pods/{name}/eviction` (kube's EvictionREST): deletes a pod unless that would take one of its
 * PodDisruptionBudget's pods away while the budget allows no disruption. The budget rules are in
 * disruption-budgets.ts; here the reads and the writes, in kube's order.
 */

const EVICTION: CreateTarget = {
  kind: "Eviction",
  version: "v1",
  apiVersion: "policy/v1",
  accepts: ["policy/v1beta1"],
  fields: {
    deleteOptions: goStruct("v1.DeleteOptions", {
      kind: goString,
      apiVersion: goString,
      gracePeriodSeconds: goInt64,
      preconditions: goStruct("v1.Preconditions", { uid: goString, resourceVersion: goString }),
      orphanDependents: goBool,
      propagationPolicy: goString,
      dryRun: goStrings,
      ignoreStoreReadErrorWithClusterBreakingPotential: goBool,
    }),
  },
};

/** An Eviction's deleteOptions, as sent. */
interface EvictionOptions extends DeleteOptions {
  ignoreStoreReadErrorWithClusterBreakingPotential?: boolean;
}

/** How often kube retries an eviction whose pod changed while it was deleted. */
const CONFLICT_ATTEMPTS = 20;
const ALL = { label: LabelSelector.everything(), field: FieldSelector.everything() };
const PODS = { group: "", resource: "Pod" };

type Request = Parameters<UnstoredHandler>[0];

/**
 * POST pods/{name}/eviction: the pod deleted with the Eviction's deleteOptions once its budget
 * allows it (a PodDisruptionBudget selecting it has a disruption left, which the eviction takes),
 * marked first with a DisruptionTarget condition; 201 with a Success Status. A pod not running
 * (Pending, Succeeded, Failed) or being deleted goes without asking; an unready one goes where
 * its budget lets unhealthy pods go. Refused as kube refuses: another name (400),
 * `ignoreStoreReadErrorWithClusterBreakingPotential` (422), a dryRun unlike the query's (500),
 * more than one budget (500), a budget with no disruption left (429).
 */
export const podEviction: UnstoredHandler = async (u) => {
  const { r } = u;
  const { object, warnings } = await readCreateBody(u, EVICTION);
  setWarnings(u.res, warnings);
  if ((object.metadata?.name ?? "") !== r.name)
    throw errors.badRequest("name in URL does not match name in Eviction object");
  const sent = (object.deleteOptions ?? undefined) as EvictionOptions | undefined;
  if (sent?.ignoreStoreReadErrorWithClusterBreakingPotential === true) {
    throw errors.invalid("Eviction", "policy", r.name, [
      field.invalid(
        "deleteOptions.ignoreStoreReadErrorWithClusterBreakingPotential",
        true,
        "can not be set for pod eviction, try after removing the option",
      ),
    ]);
  }
  const options = withDryRun(sent, u.query.getAll("dryRun"));
  const pods = served(u, "", "v1", "pods");
  const pod = await evictWithoutBudget(u, pods, options);
  if (pod === undefined) return sendSuccess(u);
  const covering = budgetsOf(await listBudgets(u, r.namespace), pod);
  if (covering.length > 1) {
    return sendJson(u.res, 500, {
      kind: "Status",
      apiVersion: "v1",
      metadata: {},
      status: "Failure",
      message:
        "This pod has more than one PodDisruptionBudget, which the eviction subresource does not support.",
      code: 500,
    });
  }
  const budget = covering[0];
  // An unready pod a budget can spare goes as it is (if it became ready meanwhile, 429).
  const spare = budget !== undefined && !isPodReady(pod) && unreadyMayGo(budget);
  if (budget !== undefined && !spare) await takeDisruption(u, budget, r.name, isDryRun(options));
  const asRead = spare ? withResourceVersion(options, pod) : options;
  try {
    await markAndDelete(u, pods, asRead);
  } catch (err) {
    if (spare && isConflict(err) && !hasResourceVersion(options))
      throw budgetInProgress(budget.metadata?.name ?? "");
    throw err;
  }
  sendSuccess(u);
};

/** The served resource, or 404 where this server does not serve it. */
function served(u: Request, group: string, version: string, plural: string): ServedResource {
  const found = u.ctx.registry.lookup(group, version, plural);
  if (found === undefined) notFound();
  return found;
}

/**
 * kube's propagateDryRun: the query's dryRun goes into deleteOptions that have none; where both
 * have one they must be the same (500 otherwise).
 */
function withDryRun(sent: EvictionOptions | undefined, query: string[]): EvictionOptions {
  if (sent === undefined) return query.length > 0 ? { dryRun: query } : {};
  const body = sent.dryRun ?? [];
  if (body.length === 0) return query.length > 0 ? { ...sent, dryRun: query } : sent;
  if (query.length === 0 || JSON.stringify(query) === JSON.stringify(body)) return sent;
  throw new ApiError({
    kind: "Status",
    apiVersion: "v1",
    metadata: {},
    status: "Failure",
    message: `Non-matching dry-run options in request and content: [${query.join(" ")}] and [${body.join(" ")}]`,
    code: 500,
  });
}

function isDryRun(options: DeleteOptions): boolean {
  return (options.dryRun ?? []).length > 0;
}

function hasResourceVersion(options: DeleteOptions): boolean {
  return options.preconditions?.resourceVersion != null;
}

function withResourceVersion(options: EvictionOptions, pod: KubeObject): EvictionOptions {
  const resourceVersion = pod.metadata?.resourceVersion ?? "";
  return { ...options, preconditions: { ...options.preconditions, resourceVersion } };
}

/**
 * Reads the pod and, where its budgets need not be asked, deletes it (as read, unless the
 * request names a resourceVersion itself), again on a conflict as kube retries. Returns the pod
 * where its budgets must be asked; undefined once it is deleted.
 */
async function evictWithoutBudget(
  u: Request,
  pods: ServedResource,
  options: EvictionOptions,
): Promise<EvictedPod | undefined> {
  for (let attempt = 1; ; attempt++) {
    const pod = (await pods.store.get(u.r.namespace, u.r.name)) as EvictedPod;
    if (!canIgnoreBudgets(pod)) return pod;
    const asRead =
      enforcesResourceVersion(pod) && !hasResourceVersion(options)
        ? withResourceVersion(options, pod)
        : options;
    try {
      await markAndDelete(u, pods, asRead);
      return undefined;
    } catch (err) {
      if (!isConflict(err) || hasResourceVersion(options) || attempt >= CONFLICT_ATTEMPTS)
        throw err;
    }
  }
}

/** The PodDisruptionBudgets of the namespace, as stored now. */
async function listBudgets(u: Request, namespace: string): Promise<Budget[]> {
  const budgets = served(u, "policy", "v1", "poddisruptionbudgets");
  const list = await budgets.store.list(namespace, ALL);
  return list.items.map((e) => e.object as Budget);
}

/**
 * Takes one disruption of the budget for `podName` (see decrementBudget), written to its status
 * as the server's own write, again from the stored budget on a conflict; a dry run only checks.
 */
async function takeDisruption(
  u: Request,
  budget: Budget,
  podName: string,
  dryRun: boolean,
): Promise<void> {
  const now = timestamp(u.ctx.clock.now());
  if (dryRun) {
    decrementBudget(budget, podName, now);
    return;
  }
  const budgets = served(u, "policy", "v1", "poddisruptionbudgets");
  await budgets.store.guaranteedUpdate(
    budget.metadata?.namespace ?? "",
    budget.metadata?.name ?? "",
    (current) => ({ ...current, status: decrementBudget(current as Budget, podName, now) }),
    u.ctx.fields.managed(budgets, { subresource: "status" }),
  );
}

/**
 * kube's addConditionAndDeletePod: the pod, checked against the preconditions, gets a True
 * DisruptionTarget condition through its status (no field manager recorded, as kube writes it),
 * then is deleted with `options` — its new resourceVersion the precondition where one was given.
 * A dry run only deletes, dry.
 */
async function markAndDelete(
  u: Request,
  pods: ServedResource,
  options: EvictionOptions,
): Promise<void> {
  const { namespace, name } = u.r;
  const dryRun = isDryRun(options);
  let deleting = options;
  if (!dryRun) {
    const now = timestamp(u.ctx.clock.now());
    const marked = await pods.store.guaranteedUpdate(
      namespace,
      name,
      (current) => {
        checkPodPreconditions(current, options);
        return withDisruptionTarget(current, now);
      },
      { subresource: "status" },
    );
    if (hasResourceVersion(options)) {
      const resourceVersion = marked.metadata?.resourceVersion ?? "";
      deleting = { ...options, preconditions: { ...options.preconditions, resourceVersion } };
    }
  }
  const { gracePeriodSeconds, preconditions, orphanDependents, propagationPolicy } = deleting;
  const forStore: DeleteOptions = {
    ...(gracePeriodSeconds == null ? {} : { gracePeriodSeconds }),
    ...(preconditions == null ? {} : { preconditions }),
    ...(orphanDependents == null ? {} : { orphanDependents }),
    ...(propagationPolicy == null ? {} : { propagationPolicy }),
    ...(dryRun ? { dryRun: deleting.dryRun } : {}),
  };
  await pods.store.delete(namespace, name, forStore, { dryRun });
}

/** 409 as kube words it where the pod is not the one the preconditions name. */
function checkPodPreconditions(pod: KubeObject, options: DeleteOptions): void {
  const meta = pod.metadata ?? {};
  const uid = options.preconditions?.uid;
  if (uid && uid !== meta.uid) {
    throw errors.conflict(
      PODS,
      meta.name ?? "",
      `the UID in the precondition (${uid}) does not match the UID in record (${meta.uid}). The object might have been deleted and then recreated`,
    );
  }
  const rv = options.preconditions?.resourceVersion;
  if (rv && rv !== meta.resourceVersion) {
    throw errors.conflict(
      PODS,
      meta.name ?? "",
      `the ResourceVersion in the precondition (${rv}) does not match the ResourceVersion in record (${meta.resourceVersion}). The object might have been modified`,
    );
  }
}

interface PodCondition {
  type?: string;
  status?: string;
  lastTransitionTime?: string | null;
  [field: string]: unknown;
}

/**
 * The pod with a True DisruptionTarget condition (EvictionByEvictionAPI), as kube's
 * UpdatePodCondition sets it: replaced whole, its transition time kept where the status was True.
 */
function withDisruptionTarget(pod: KubeObject, now: string): KubeObject {
  const status = ((pod as { status?: Record<string, unknown> }).status ?? {}) as {
    conditions?: PodCondition[];
  };
  const conditions = [...(status.conditions ?? [])];
  const at = conditions.findIndex((c) => c.type === "DisruptionTarget");
  const old = at < 0 ? undefined : conditions[at];
  const condition: PodCondition = {
    type: "DisruptionTarget",
    status: "True",
    lastProbeTime: null,
    lastTransitionTime: old?.status === "True" ? (old.lastTransitionTime ?? null) : now,
    reason: "EvictionByEvictionAPI",
    message: "Eviction API: evicting",
  };
  if (at < 0) conditions.push(condition);
  else conditions[at] = condition;
  return { ...pod, status: { ...status, conditions } } as KubeObject;
}

/** 201 with a Success Status, as kube answers an eviction done. */
function sendSuccess(u: Request): void {
  sendJson(u.res, 201, { ...successStatus(undefined), code: 201 });
}
