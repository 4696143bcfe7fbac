/**
 * Helpers of the control-plane suites: kubectl against a test server, two custom resources,
 * and a view of several collections that resolves when a condition over them holds (it
 * watches; it never polls).
 */
import { execFile } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { listerWatcherFor, SharedInformer, silentLogger } from "kontroller/cache";
import { type Client, createClient } from "kontroller/client";
import { DeletedFinalStateUnknown, type KubeObject, type OwnerReference } from "kontroller/core";
import {
  type CustomResourceDefinition,
  customResourceDefinitions,
  isEstablished,
  type ResourceDefinition,
  resourceDefinition,
} from "kontroller/resources";
import { waitFor } from "kontroller/testing";

/** A namespaced custom resource. */
export const widgets = resourceDefinition({
  group: "example.com",
  version: "v1",
  kind: "Widget",
  plural: "widgets",
});

/** A cluster-scoped custom resource. */
export const gadgets = resourceDefinition({
  group: "example.com",
  version: "v1",
  kind: "Gadget",
  plural: "gadgets",
  scope: "Cluster",
});

/** The CRD of a definition, with a schema that keeps anything. */
export function crdOf(def: ResourceDefinition): CustomResourceDefinition {
  return {
    apiVersion: "apiextensions.k8s.io/v1",
    kind: "CustomResourceDefinition",
    metadata: { name: `${def.plural}.${def.group}` },
    spec: {
      group: def.group,
      scope: def.scope,
      names: { plural: def.plural, singular: def.singular, kind: def.kind },
      versions: [
        {
          name: def.version,
          served: true,
          storage: true,
          schema: {
            openAPIV3Schema: { type: "object", "x-kubernetes-preserve-unknown-fields": true },
          },
        },
      ],
    },
  };
}

/** Creates the CRDs and resolves once their resources are served. */
export async function installCrds(client: Client, ...defs: ResourceDefinition[]): Promise<void> {
  for (const def of defs) {
    const crd = await client.resource(customResourceDefinitions).create(crdOf(def));
    // Served once Established: on etcd the CRD reaches the server's CRD controller through its
    // watch, so the resource is not served the moment the create returns (and a get of a
    // resource not served yet is a 404 too, so waiting for "none" to be absent proves nothing).
    await waitFor(
      client.resource(customResourceDefinitions),
      crd.metadata?.name ?? "",
      isEstablished,
    );
  }
}

/** An owner reference to `owner`. */
export function ownerRef(owner: KubeObject, extra: Partial<OwnerReference> = {}): OwnerReference {
  return {
    apiVersion: owner.apiVersion ?? "",
    kind: owner.kind ?? "",
    name: owner.metadata?.name ?? "",
    uid: owner.metadata?.uid ?? "",
    ...extra,
  };
}

/** kubectl with the test server's kubeconfig, its own cache directory, and a 30 s limit. */
export async function kubectlFor(kubeconfigPath: string) {
  const dir = await mkdtemp(join(tmpdir(), "kontroller-cp-kubectl-"));
  const kubectl = (...args: string[]) =>
    new Promise<string>((resolve, reject) => {
      execFile(
        "kubectl",
        ["--kubeconfig", kubeconfigPath, ...args],
        { env: { ...process.env, KUBECACHEDIR: join(dir, "cache"), HOME: dir }, timeout: 30_000 },
        (err, stdout, stderr) => {
          if (err) reject(new Error(`kubectl ${args.join(" ")}: ${stderr || err.message}`));
          else resolve(stdout);
        },
      );
    });
  /** Writes `text` (YAML or JSON) to a file and returns its path, for `-f`. */
  const file = async (name: string, text: string) => {
    const path = join(dir, name);
    await writeFile(path, text);
    return path;
  };
  return Object.assign(kubectl, {
    file,
    [Symbol.asyncDispose]: () => rm(dir, { recursive: true, force: true }),
  });
}

/** One change a {@link ClusterView} saw. */
export interface SeenEvent {
  type: "add" | "update" | "delete";
  kind: string;
  name: string;
}

/**
 * Informers over a few collections. `until(condition)` resolves as soon as the condition
 * holds after any change (or at once); the timeout only turns a hang into a failure.
 */
export class ClusterView implements AsyncDisposable {
  readonly #informers = new Map<string, SharedInformer<KubeObject>>();
  readonly #client: Client;
  readonly #waiters = new Set<() => void>();
  /** Every change seen, in the order each informer delivered it. */
  readonly events: SeenEvent[] = [];

  private constructor(client: Client) {
    this.#client = client;
  }

  /** Starts informers for `defs` (in `namespace`, or everywhere) and waits for their lists. */
  static async start(
    url: string,
    defs: readonly ResourceDefinition[],
    namespace?: string,
  ): Promise<ClusterView> {
    const view = new ClusterView(createClient({ url }));
    for (const def of defs) {
      const api = view.#client.resource(def);
      const informer = new SharedInformer<KubeObject>({
        listerWatcher: listerWatcherFor(
          namespace !== undefined && def.scope === "Namespaced" ? api.inNamespace(namespace) : api,
        ),
        logger: silentLogger,
      });
      const seen = (type: SeenEvent["type"]) => (obj: KubeObject) => {
        view.events.push({ type, kind: def.kind, name: obj.metadata?.name ?? "" });
        for (const w of view.#waiters) w();
      };
      informer.addEventHandler({
        onAdd: seen("add"),
        onUpdate: (_o, n) => seen("update")(n),
        onDelete: (o) => seen("delete")(o instanceof DeletedFinalStateUnknown ? o.obj : o),
      });
      void informer.run();
      view.#informers.set(def.kind, informer);
    }
    await Promise.all([...view.#informers.values()].map((i) => i.waitForSync()));
    return view;
  }

  /** The cached objects of a kind. */
  list(kind: string): KubeObject[] {
    return this.#informers.get(kind)?.store.list() ?? [];
  }

  /** The names of the cached objects of a kind, sorted. */
  names(kind: string): string[] {
    return this.list(kind)
      .map((o) => o.metadata?.name ?? "")
      .sort();
  }

  /** The cached object of a kind by name, if any. */
  get(kind: string, name: string): KubeObject | undefined {
    return this.list(kind).find((o) => o.metadata?.name === name);
  }

  /** Resolves once `condition` holds; rejects after `timeoutMs` with `what` and the state. */
  until(condition: () => boolean, what: string, timeoutMs = 15_000): Promise<void> {
    if (condition()) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const check = () => {
        if (!condition()) return;
        this.#waiters.delete(check);
        clearTimeout(timer);
        resolve();
      };
      const timer = setTimeout(() => {
        this.#waiters.delete(check);
        const state = [...this.#informers.keys()].map((k) => `${k}: ${this.names(k).join(",")}`);
        reject(new Error(`gave up waiting for ${what}; state: ${state.join("; ")}`));
      }, timeoutMs);
      this.#waiters.add(check);
    });
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await Promise.all([...this.#informers.values()].map((i) => i.stop()));
    await this.#client.close();
  }
}
