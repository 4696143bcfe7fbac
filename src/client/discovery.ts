/**
 * Discovery: which resources a server serves, at which versions, with which verbs and scope
 * (`GET /api`, `/api/v1`, `/apis`, `/apis/{group}/{version}`), as client-go's discovery client.
 * Controllers that act on every kind (the garbage collector, the namespace controller) start
 * here.
 */
import { type Clock, InvalidOptionError, parseApiVersion } from "../core/index.ts";
import { type ResourceDefinition, resourceDefinition } from "../resources/index.ts";
import type { Client } from "./client.ts";
import type { CallOptions } from "./request-options.ts";
import { RestClient } from "./rest-client.ts";
import { type RetryOptions, resolveRetryOptions } from "./retry.ts";
import type { Transport } from "./transport.ts";

/** One resource of one group version, as discovery describes it; usable as a definition. */
export interface DiscoveredResource extends ResourceDefinition {
  /** What the server allows on it: `get`, `list`, `watch`, `create`, `delete`, `deletecollection`… */
  readonly verbs: readonly string[];
  /** Its subresources: `status`, `scale`, `finalize`. */
  readonly subresources: readonly string[];
}

/** One API group; the core group is named `""`. */
export interface ApiGroupInfo {
  readonly name: string;
  /** Served versions, the preferred one first. */
  readonly versions: readonly string[];
  readonly preferredVersion: string;
}

/** Everything {@link DiscoveryClient.discover} found. */
export interface Discovery {
  /** The core group first, then the server's groups in its order. */
  readonly groups: readonly ApiGroupInfo[];
  /** Every resource of every group version that answered (subresources folded in). */
  readonly resources: readonly DiscoveredResource[];
  /**
   * One entry per group and resource: at the group's preferred version if it is served there,
   * else at the first version that serves it (client-go's `ServerPreferredResources`).
   */
  readonly preferred: readonly DiscoveredResource[];
  /**
   * Group versions whose resource list could not be read (`apps/v1` → the error). Their
   * resources are missing from the lists above; callers decide whether that is fatal.
   */
  readonly failed: ReadonlyMap<string, unknown>;
}

/** Options for {@link DiscoveryClient}. */
export interface DiscoveryClientOptions {
  /** Where discovery is read: a Client, or a Transport. */
  client: Client | Transport;
  /** Waits between retries run on this clock. @default realClock */
  clock?: Clock;
  /** Retries of discovery reads. @default the client's defaults (5 retries) */
  retry?: RetryOptions;
}

interface WireResource {
  name?: unknown;
  singularName?: unknown;
  namespaced?: unknown;
  kind?: unknown;
  verbs?: unknown;
  shortNames?: unknown;
  categories?: unknown;
}

const ACCEPT = { accept: "application/json" };
const MAX_BYTES = 16 * 1024 * 1024;

/**
 * Reads a server's discovery documents. Stateless: every call asks the server (cache the
 * {@link Discovery} yourself if you need to).
 *
 * @example
 * ```ts
 * const discovery = new DiscoveryClient({ client });
 * const { preferred } = await discovery.discover();
 * const deletable = preferred.filter((r) => r.verbs.includes("delete"));
 * ```
 */
export class DiscoveryClient {
  readonly #rest: RestClient;

  constructor(options: DiscoveryClientOptions) {
    const client = options?.client;
    // Duck-typed, so that a Client from another copy of the package works too.
    const transport =
      client !== null && typeof client === "object" && "transport" in client
        ? client.transport
        : client;
    if (typeof transport?.request !== "function") {
      throw new InvalidOptionError(
        "DiscoveryClient",
        "client",
        client,
        "must be a Client or a Transport",
      );
    }
    this.#rest = new RestClient(transport, {
      ...(options.clock === undefined ? {} : { clock: options.clock }),
      retry: resolveRetryOptions(options.retry),
      maxObjectBytes: MAX_BYTES,
    });
  }

  /** The API groups, core (`""`, from `/api`) first. */
  async groups(options: CallOptions = {}): Promise<ApiGroupInfo[]> {
    const [core, apis] = await Promise.all([
      this.#get<{ versions?: unknown }>("/api", options),
      this.#get<{ groups?: unknown }>("/apis", options),
    ]);
    const coreVersions = strings(core.versions);
    const groups: ApiGroupInfo[] = [];
    if (coreVersions.length > 0) {
      groups.push({ name: "", versions: coreVersions, preferredVersion: coreVersions[0]! });
    }
    for (const g of Array.isArray(apis.groups) ? (apis.groups as unknown[]) : []) {
      const group = g as {
        name?: unknown;
        versions?: { version?: unknown }[];
        preferredVersion?: { version?: unknown };
      };
      if (typeof group.name !== "string" || group.name === "") continue;
      const versions = (Array.isArray(group.versions) ? group.versions : [])
        .map((v) => v?.version)
        .filter((v): v is string => typeof v === "string" && v !== "");
      const preferred =
        typeof group.preferredVersion?.version === "string"
          ? group.preferredVersion.version
          : versions[0];
      if (preferred === undefined) continue;
      const ordered = [preferred, ...versions.filter((v) => v !== preferred)];
      groups.push({ name: group.name, versions: ordered, preferredVersion: preferred });
    }
    return groups;
  }

  /** The resources of one group version (`v1`, `apps/v1`). */
  async resourcesFor(
    groupVersion: string,
    options: CallOptions = {},
  ): Promise<DiscoveredResource[]> {
    const { group, version } = parseApiVersion(groupVersion);
    const path = group === "" ? `/api/${version}` : `/apis/${group}/${version}`;
    const list = await this.#get<{ resources?: unknown }>(path, options);
    return parseResources(group, version, Array.isArray(list.resources) ? list.resources : []);
  }

  /**
   * Reads the groups, then every group version's resources at once. A group version that
   * fails lands in {@link Discovery.failed}; a failure of `/api` or `/apis` rejects.
   */
  async discover(options: CallOptions = {}): Promise<Discovery> {
    const groups = await this.groups(options);
    const failed = new Map<string, unknown>();
    const byVersion = await Promise.all(
      groups.flatMap((g) =>
        g.versions.map(async (v) => {
          const gv = g.name === "" ? v : `${g.name}/${v}`;
          try {
            return await this.resourcesFor(gv, options);
          } catch (err) {
            if (options.signal?.aborted) throw err;
            failed.set(gv, err);
            return [];
          }
        }),
      ),
    );
    const resources = byVersion.flat();
    return { groups, resources, preferred: preferredOf(groups, resources), failed };
  }

  #get<T>(path: string, options: CallOptions): Promise<T> {
    return this.#rest.json<T>({ method: "GET", path, headers: ACCEPT, signal: options.signal });
  }
}

/** client-go's preference: the group's preferred version, else the first version serving it. */
function preferredOf(
  groups: readonly ApiGroupInfo[],
  resources: readonly DiscoveredResource[],
): DiscoveredResource[] {
  const out: DiscoveredResource[] = [];
  for (const g of groups) {
    const chosen = new Map<string, DiscoveredResource>();
    for (const v of g.versions) {
      for (const r of resources) {
        if (r.group !== g.name || r.version !== v || chosen.has(r.plural)) continue;
        chosen.set(r.plural, r);
      }
    }
    out.push(...chosen.values());
  }
  return out;
}

function parseResources(group: string, version: string, wire: unknown[]): DiscoveredResource[] {
  const subresources = new Map<string, string[]>();
  const mains: WireResource[] = [];
  for (const entry of wire) {
    const r = entry as WireResource;
    if (typeof r?.name !== "string" || r.name === "") continue;
    const slash = r.name.indexOf("/");
    if (slash < 0) {
      mains.push(r);
      continue;
    }
    const parent = r.name.slice(0, slash);
    subresources.set(parent, [...(subresources.get(parent) ?? []), r.name.slice(slash + 1)]);
  }
  const out: DiscoveredResource[] = [];
  for (const r of mains) {
    if (typeof r.kind !== "string" || r.kind === "") continue;
    const plural = r.name as string;
    const def = resourceDefinition({
      group,
      version,
      kind: r.kind,
      plural,
      ...(typeof r.singularName === "string" && r.singularName !== ""
        ? { singular: r.singularName }
        : {}),
      scope: r.namespaced === true ? "Namespaced" : "Cluster",
      shortNames: strings(r.shortNames),
      categories: strings(r.categories),
    });
    out.push(
      Object.freeze({
        ...def,
        verbs: Object.freeze(strings(r.verbs)),
        subresources: Object.freeze(subresources.get(plural) ?? []),
      }),
    );
  }
  return out;
}

function strings(v: unknown): string[] {
  return Array.isArray(v) ? v.filter((s): s is string => typeof s === "string") : [];
}
