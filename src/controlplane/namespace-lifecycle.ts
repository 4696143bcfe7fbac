/**
 * The namespace controller's reconcile (kube's `namespacedResourcesDeleter`): a Terminating
 * namespace is emptied of every namespaced resource discovery lists, custom ones included;
 * what is left (objects held by finalizers) is reported in the namespace's status conditions;
 * once nothing is left, the `kubernetes` finalizer is removed through `/finalize` and the
 * server deletes the namespace.
 */
import type { Logger } from "../cache/index.ts";
import type { Client, DiscoveredResource, Discovery, DiscoveryClient } from "../client/index.ts";
import type { ReconcileResult } from "../controller/index.ts";
import {
  ApiError,
  type Clock,
  isNotFound,
  isStatus,
  type KubeObject,
  realClock,
  toTime,
} from "../core/index.ts";
import { type Namespace, namespaces } from "../resources/index.ts";
import { forEachLimited } from "./gc-writes.ts";
import {
  type ContentReport,
  type NamespaceCondition,
  updateConditions,
} from "./namespace-conditions.ts";
import { groupVersionOf, namespacedDeletableResources } from "./resource-mapper.ts";

/** The finalizer of `spec.finalizers` that this controller owns. */
export const KUBERNETES_FINALIZER = "kubernetes";
/** kube's guess of how long a finalizer takes, in seconds. */
const FINALIZER_ESTIMATE_SECONDS = 15;

/** What the namespace controller works with. */
export interface NamespaceLifecycleDeps {
  client: Client;
  discovery: DiscoveryClient;
  logger: Logger;
  /** @default realClock */
  clock?: Clock;
  /** Resources emptied at once. @default 8 */
  parallelism?: number;
}

/** Empties and finalizes Terminating namespaces. Stateless between reconciles. */
export class NamespaceLifecycle {
  readonly #d: NamespaceLifecycleDeps;

  constructor(deps: NamespaceLifecycleDeps) {
    this.#d = deps;
  }

  /**
   * One pass over namespace `name`: nothing unless it is being deleted and still has the
   * `kubernetes` finalizer; else delete its content, write the conditions, and finalize it when
   * empty. Throws (to be retried) when discovery or a deletion failed; asks to be called again
   * when objects are left.
   */
  async reconcile(name: string, signal: AbortSignal): Promise<ReconcileResult | undefined> {
    const api = this.#d.client.resource(namespaces);
    let ns: Namespace;
    try {
      ns = await api.get(name, { signal });
    } catch (err) {
      if (isNotFound(err)) return undefined;
      throw err;
    }
    if (!ns.metadata?.deletionTimestamp) return undefined;
    if (!(ns.spec?.finalizers ?? []).includes(KUBERNETES_FINALIZER)) return undefined;
    const report = await this.#deleteContent(name, signal);
    const now = toTime((this.#d.clock ?? realClock).now());
    const { conditions, changed } = updateConditions(
      ns.status?.conditions as NamespaceCondition[] | undefined,
      report,
      now,
    );
    if (changed) {
      try {
        ns = await api.updateStatus(
          { ...ns, status: { ...ns.status, phase: "Terminating", conditions } },
          { signal },
        );
      } catch (err) {
        if (isNotFound(err)) return undefined;
        throw err;
      }
    }
    const problems = [
      ...(report.discoveryError === undefined ? [] : [report.discoveryError]),
      ...report.contentErrors,
    ];
    if (problems.length > 0) {
      throw new Error(`namespace ${name} could not be emptied: ${problems.join("; ")}`);
    }
    if ([...report.remaining.values()].some((n) => n > 0)) {
      const estimate = report.finalizers.size > 0 ? FINALIZER_ESTIMATE_SECONDS : 0;
      return { requeueAfterMs: (estimate / 2 + 1) * 1000 };
    }
    await this.#finalize(ns, signal);
    this.#d.logger.info({ namespace: name }, "namespace emptied and finalized");
    return undefined;
  }

  /** Deletes every namespaced resource's objects in `namespace`; reports what is left. */
  async #deleteContent(namespace: string, signal: AbortSignal): Promise<ContentReport> {
    const contentErrors: string[] = [];
    const remaining = new Map<string, number>();
    const finalizers = new Map<string, number>();
    let discovery: Discovery | undefined;
    let discoveryError: string | undefined;
    try {
      discovery = await this.#d.discovery.discover({ signal });
    } catch (err) {
      if (signal.aborted) throw err;
      discoveryError = message(err);
    }
    if (discovery !== undefined && discovery.failed.size > 0) {
      const failed = [...discovery.failed].map(([gv, err]) => `${gv}: ${message(err)}`);
      discoveryError = `Discovery failed for some groups, ${failed.length} failing: ${failed.join(", ")}`;
    }
    const resources = discovery === undefined ? [] : namespacedDeletableResources(discovery);
    await forEachLimited(
      resources,
      this.#d.parallelism ?? 8,
      async (r) => {
        const gr = `${r.plural}.${r.group}`;
        try {
          const left = await this.#empty(r, namespace, signal);
          if (left.length > 0) remaining.set(gr, left.length);
          for (const obj of left) {
            for (const f of obj.metadata?.finalizers ?? []) {
              finalizers.set(f, (finalizers.get(f) ?? 0) + 1);
            }
          }
        } catch (err) {
          if (signal.aborted) throw err;
          contentErrors.push(`${gr} (${groupVersionOf(r)}): ${message(err)}`);
        }
      },
      `emptying namespace ${namespace}`,
    );
    return {
      ...(discoveryError === undefined ? {} : { discoveryError }),
      contentErrors,
      remaining,
      finalizers,
    };
  }

  /** Deletes the objects of one resource (background propagation); returns those left. */
  async #empty(
    r: DiscoveredResource,
    namespace: string,
    signal: AbortSignal,
  ): Promise<KubeObject[]> {
    const api = this.#d.client.resource(r).inNamespace(namespace);
    if (r.verbs.includes("deletecollection")) {
      await api.deleteCollection({ propagationPolicy: "Background", signal });
    } else {
      const { items } = await api.listAll({ signal });
      for (const obj of items) {
        if (obj.metadata?.deletionTimestamp) continue;
        try {
          await api.delete(obj.metadata?.name ?? "", {
            propagationPolicy: "Background",
            preconditions: { uid: obj.metadata?.uid ?? "" },
            signal,
          });
        } catch (err) {
          if (!isNotFound(err) && !(err instanceof ApiError && err.code === 409)) throw err;
        }
      }
    }
    return (await api.listAll({ signal })).items;
  }

  /** Removes the `kubernetes` finalizer with `PUT /api/v1/namespaces/{name}/finalize`. */
  async #finalize(ns: Namespace, signal: AbortSignal): Promise<void> {
    const name = ns.metadata?.name ?? "";
    const body: Namespace = {
      ...ns,
      spec: {
        ...ns.spec,
        finalizers: (ns.spec?.finalizers ?? []).filter((f) => f !== KUBERNETES_FINALIZER),
      },
    };
    const path = `/api/v1/namespaces/${encodeURIComponent(name)}/finalize`;
    const res = await this.#d.client.transport.request({
      method: "PUT",
      path,
      headers: { "content-type": "application/json", accept: "application/json" },
      body: JSON.stringify(body),
      signal,
    });
    let text = "";
    for await (const chunk of res.body) text += Buffer.from(chunk).toString("utf8");
    if (res.status >= 200 && res.status < 300) return;
    let status: unknown;
    try {
      status = JSON.parse(text);
    } catch {
      // not a Status
    }
    if (res.status === 404) return;
    throw isStatus(status)
      ? new ApiError(status)
      : new Error(
          `PUT ${path}: the server responded with HTTP ${res.status}: ${text.slice(0, 200)}`,
        );
  }
}

function message(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
