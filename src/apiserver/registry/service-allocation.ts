import {
  type ApiError,
  errors,
  FieldSelector,
  isAlreadyExists,
  isNotFound,
  type KubeObject,
  LabelSelector,
  type StatusCause,
} from "../../core/index.ts";
import type { Storage } from "../storage/storage.ts";
import { isStorageError } from "../storage/storage-error.ts";
import { field } from "./field-errors.ts";
import type { ServedResource } from "./served.ts";
import type { Finish, WriteLifecycle } from "./store-options.ts";
import { arrayAt, type Json, rec, recordAt } from "./strategies/util.ts";
import type { WriteOptions } from "./types.ts";

/*
 * Services' cluster IPs and node ports, claimed as kube-apiserver 1.36 claims them so that
 * several servers on one storage never hand out the same one:
 * - a cluster IP is an IPAddress object (networking.k8s.io/v1) named by the address, whose
 *   `parentRef` is the Service — creating it is the claim, the storage's create-if-absent the
 *   arbiter;
 * - a node port is a key of its own under NODE_PORTS_PREFIX (kube keeps one bitmap object; one
 *   key per port lets storage arbitrate each claim alike).
 * Both are picked at random from the upper part of their range first, the lower part being kept
 * for values clients ask for (kube's static subrange), and released when the Service no longer
 * uses them or is gone.
 */

/** kube-apiserver's `--service-cluster-ip-range` default. */
export const DEFAULT_SERVICE_CLUSTER_IP_RANGE = "10.0.0.0/24";
/** kube-apiserver's `--service-node-port-range` default. */
export const DEFAULT_SERVICE_NODE_PORT_RANGE = "30000-32767";
/** Where claimed node ports are kept, one key per port. */
export const NODE_PORTS_PREFIX = "/registry/kontroller/servicenodeports/";

const IP_LABELS = {
  "ipaddress.kubernetes.io/ip-family": "IPv4",
  "ipaddress.kubernetes.io/managed-by": "ipallocator.k8s.io",
};

/** An IPv4 range, its addresses as numbers. */
export interface Ipv4Range {
  readonly cidr: string;
  readonly base: number;
  readonly size: number;
}

/** A range of ports, both ends included. */
export interface PortRange {
  readonly first: number;
  readonly last: number;
}

/** Parses `a.b.c.d/n` (IPv4, prefix 8–30); throws a TypeError saying what is wrong. */
export function parseIpv4Cidr(cidr: string): Ipv4Range {
  const match = /^(\d+\.\d+\.\d+\.\d+)\/(\d+)$/.exec(cidr);
  const ip = match ? ipToNumber(match[1]!) : undefined;
  const bits = match ? Number(match[2]) : Number.NaN;
  if (ip === undefined || !(bits >= 8 && bits <= 30))
    throw new TypeError(
      `invalid service cluster IP range ${JSON.stringify(cidr)}: expected an IPv4 CIDR such as 10.0.0.0/24, with a prefix of 8 to 30 bits`,
    );
  const size = 2 ** (32 - bits);
  const base = ip - (ip % size);
  return { cidr: `${numberToIp(base)}/${bits}`, base, size };
}

/** Parses `first-last` (1–65535); throws a TypeError saying what is wrong. */
export function parsePortRange(range: string): PortRange {
  const match = /^(\d+)-(\d+)$/.exec(range);
  const first = Number(match?.[1]);
  const last = Number(match?.[2]);
  if (!match || first < 1 || last > 65535 || first > last)
    throw new TypeError(
      `invalid service node port range ${JSON.stringify(range)}: expected first-last, such as 30000-32767`,
    );
  return { first, last };
}

/** The number of a dotted IPv4 address, or undefined if it is not one. */
export function ipToNumber(ip: string): number | undefined {
  const parts = ip.split(".");
  if (parts.length !== 4) return undefined;
  let n = 0;
  for (const p of parts) {
    if (!/^\d{1,3}$/.test(p) || Number(p) > 255 || (p.length > 1 && p.startsWith("0")))
      return undefined;
    n = n * 256 + Number(p);
  }
  return n;
}

function numberToIp(n: number): string {
  return [24, 16, 8, 0].map((s) => Math.floor(n / 2 ** s) % 256).join(".");
}

/**
 * How many values at the bottom of a range kube keeps for values clients ask for (its
 * `calculateRangeOffset`): the range's size divided by `step`, within [min, max] — none for a
 * range smaller than `min`.
 */
function staticBand(size: number, min: number, max: number, step: number): number {
  if (size < min) return 0;
  return Math.min(max, Math.max(min, Math.floor(size / step)));
}

/** Options of {@link ServiceAllocations}. */
export interface ServiceAllocationOptions {
  readonly storage: Storage;
  /** The served IPAddress resource (looked up when a Service is written). */
  readonly ipAddresses: () => ServedResource | undefined;
  /** The options of the server's own writes (its field management). */
  readonly write: (served: ServedResource) => WriteOptions;
  readonly clusterIpRange: Ipv4Range;
  readonly nodePortRange: PortRange;
  /** Picks a number in [0, 1). @default Math.random */
  readonly random?: () => number;
}

/** What a Service holds: its cluster IP and node ports (health check one included). */
interface Held {
  readonly ip: string | undefined;
  readonly ports: ReadonlySet<number>;
}

/** The Services' cluster IPs and node ports, as a store's write lifecycle. */
export class ServiceAllocations implements WriteLifecycle {
  readonly #o: ServiceAllocationOptions;
  readonly #random: () => number;

  constructor(options: ServiceAllocationOptions) {
    this.#o = options;
    this.#random = options.random ?? Math.random;
  }

  async beginCreate(object: KubeObject, dryRun: boolean): Promise<Finish> {
    return this.#claim(object, { ip: undefined, ports: new Set() }, dryRun);
  }

  async beginUpdate(object: KubeObject, old: KubeObject, dryRun: boolean): Promise<Finish> {
    return this.#claim(object, held(old), dryRun);
  }

  async afterDelete(object: KubeObject): Promise<void> {
    await this.#release(object, held(object), { ip: undefined, ports: new Set() });
  }

  /**
   * Claims what `object` needs beyond what it `had`, filling in the values it leaves to the
   * server; the returned function releases the new claims if the write failed, or what the
   * object no longer holds if it succeeded.
   */
  async #claim(object: KubeObject, had: Held, dryRun: boolean): Promise<Finish> {
    const spec = recordAt(rec(object), "spec") ?? {};
    const claimed: { ip?: string; ports: number[] } = { ports: [] };
    const undo = async () => {
      if (dryRun) return;
      if (claimed.ip !== undefined) await this.#releaseIp(object, claimed.ip);
      for (const port of claimed.ports) await this.#releasePort(object, port);
    };
    try {
      if (needsClusterIp(spec) && had.ip === undefined) {
        const ips = arrayAt(spec, "clusterIPs");
        const wanted =
          typeof spec.clusterIP === "string" && spec.clusterIP !== "" ? spec.clusterIP : undefined;
        const ip = await this.#claimIp(object, wanted, dryRun);
        if (!dryRun) claimed.ip = ip;
        spec.clusterIP = ip;
        spec.clusterIPs = ips === undefined || ips.length === 0 ? [ip] : [ip, ...ips.slice(1)];
      }
      for (const [path, port] of nodePortSlots(spec)) {
        const value = port.obj[port.key];
        const wanted = typeof value === "number" && value !== 0 ? value : undefined;
        if (wanted !== undefined && had.ports.has(wanted)) continue;
        const got = await this.#claimPort(object, wanted, path, dryRun);
        if (!dryRun) claimed.ports.push(got);
        port.obj[port.key] = got;
      }
    } catch (err) {
      await undo();
      throw err;
    }
    return async (written) => {
      if (!written) return undo();
      if (!dryRun) await this.#release(object, had, held(object));
    };
  }

  /** Releases what `had` holds and `keeps` does not. */
  async #release(object: KubeObject, had: Held, keeps: Held): Promise<void> {
    if (had.ip !== undefined && had.ip !== keeps.ip) await this.#releaseIp(object, had.ip);
    for (const port of had.ports) if (!keeps.ports.has(port)) await this.#releasePort(object, port);
  }

  async #claimIp(object: KubeObject, wanted: string | undefined, dryRun: boolean): Promise<string> {
    const served = this.#ipAddresses();
    const range = this.#o.clusterIpRange;
    if (wanted !== undefined) {
      const n = ipToNumber(wanted);
      // The network and broadcast addresses are not handed out.
      if (n === undefined || n <= range.base || n >= range.base + range.size - 1)
        throw ipInvalid(object, wanted, "the provided network does not match the current range");
      if (dryRun) {
        if (await this.#ipTaken(served, wanted))
          throw ipInvalid(object, wanted, "provided IP is already allocated");
        return wanted;
      }
      if (!(await this.#createIp(served, object, wanted)))
        throw ipInvalid(object, wanted, "provided IP is already allocated");
      return wanted;
    }
    const usable = range.size - 2;
    const band = staticBand(usable, 16, 256, 16);
    const all = { label: LabelSelector.everything(), field: FieldSelector.everything() };
    const taken = new Set(served.store.cache.list(all).entries.map((e) => e.object.metadata?.name));
    for (const offset of this.#candidates(usable, band)) {
      const ip = numberToIp(range.base + 1 + offset);
      if (taken.has(ip)) continue;
      if (dryRun || (await this.#createIp(served, object, ip))) return ip;
    }
    throw errors.internal("failed to allocate a serviceIP: range is full");
  }

  async #claimPort(
    object: KubeObject,
    wanted: number | undefined,
    path: string,
    dryRun: boolean,
  ): Promise<number> {
    const { first, last } = this.#o.nodePortRange;
    const storage = this.#o.storage;
    if (wanted !== undefined) {
      if (wanted < first || wanted > last)
        throw portInvalid(
          object,
          path,
          wanted,
          `provided port is not in the valid range. The range of valid ports is ${first}-${last}`,
        );
      const taken = dryRun
        ? (await storage.get(NODE_PORTS_PREFIX + wanted)) !== undefined
        : !(await this.#createPort(object, wanted));
      if (taken) throw portInvalid(object, path, wanted, "provided port is already allocated");
      return wanted;
    }
    const size = last - first + 1;
    const band = staticBand(size, 16, 128, 32);
    const listed = await storage.list(NODE_PORTS_PREFIX);
    const taken = new Set(listed.kvs.map((kv) => Number(kv.key.slice(NODE_PORTS_PREFIX.length))));
    for (const offset of this.#candidates(size, band)) {
      const port = first + offset;
      if (taken.has(port)) continue;
      if (dryRun || (await this.#createPort(object, port))) return port;
    }
    throw errors.internal("failed to allocate a nodePort: range is full");
  }

  /** Offsets of a range of `size` in the order to try: the upper part from a random start, then the lower `band`. */
  *#candidates(size: number, band: number): Iterable<number> {
    for (const [lo, hi] of [
      [band, size],
      [0, band],
    ] as const) {
      const span = hi - lo;
      if (span <= 0) continue;
      const start = Math.floor(this.#random() * span);
      for (let i = 0; i < span; i++) yield lo + ((start + i) % span);
    }
  }

  async #createIp(served: ServedResource, service: KubeObject, ip: string): Promise<boolean> {
    const meta = service.metadata ?? {};
    const address: KubeObject & Json = {
      apiVersion: "networking.k8s.io/v1",
      kind: "IPAddress",
      metadata: { name: ip, labels: { ...IP_LABELS } },
      spec: {
        parentRef: { resource: "services", namespace: meta.namespace, name: meta.name },
      },
    };
    try {
      await served.store.create("", address, this.#o.write(served));
      return true;
    } catch (err) {
      if (isAlreadyExists(err)) return false;
      throw err;
    }
  }

  async #ipTaken(served: ServedResource, ip: string): Promise<boolean> {
    try {
      await served.store.get("", ip);
      return true;
    } catch (err) {
      if (isNotFound(err)) return false;
      throw err;
    }
  }

  async #releaseIp(service: KubeObject, ip: string): Promise<void> {
    const served = this.#ipAddresses();
    try {
      const address = await served.store.get("", ip);
      const parent = recordAt(recordAt(rec(address), "spec") ?? {}, "parentRef") ?? {};
      if (
        parent.namespace !== service.metadata?.namespace ||
        parent.name !== service.metadata?.name
      )
        return; // claimed by another Service since
      await served.store.delete("", ip, { preconditions: { uid: address.metadata?.uid ?? "" } });
    } catch (err) {
      if (!isNotFound(err)) throw err;
    }
  }

  async #createPort(service: KubeObject, port: number): Promise<boolean> {
    const owner = JSON.stringify({
      namespace: service.metadata?.namespace,
      name: service.metadata?.name,
    });
    try {
      await this.#o.storage.create(NODE_PORTS_PREFIX + port, owner);
      return true;
    } catch (err) {
      if (isStorageError(err, "KeyExists")) return false;
      throw err;
    }
  }

  async #releasePort(service: KubeObject, port: number): Promise<void> {
    const key = NODE_PORTS_PREFIX + port;
    const kv = await this.#o.storage.get(key);
    const owner = JSON.stringify({
      namespace: service.metadata?.namespace,
      name: service.metadata?.name,
    });
    if (kv === undefined || kv.value !== owner) return;
    try {
      await this.#o.storage.delete(key, kv.modRevision);
    } catch (err) {
      // Released (or claimed again) meanwhile: nothing left to do.
      if (!isStorageError(err, "NotFound") && !isStorageError(err, "Conflict")) throw err;
    }
  }

  #ipAddresses(): ServedResource {
    const served = this.#o.ipAddresses();
    if (served === undefined) throw errors.internal("the IPAddress resource is not served");
    return served;
  }
}

/** A ClusterIP, NodePort or LoadBalancer Service that is not headless needs a cluster IP. */
function needsClusterIp(spec: Json): boolean {
  return spec.type !== "ExternalName" && spec.clusterIP !== "None";
}

/**
 * The places a Service holds a node port, with their field paths: each port's `nodePort` of a
 * NodePort Service (or a LoadBalancer one that allocates them), and `healthCheckNodePort` of a
 * LoadBalancer Service with the Local external traffic policy.
 */
function nodePortSlots(spec: Json): [string, { obj: Json; key: string }][] {
  const slots: [string, { obj: Json; key: string }][] = [];
  const lb = spec.type === "LoadBalancer";
  if (spec.type === "NodePort" || (lb && spec.allocateLoadBalancerNodePorts !== false)) {
    (arrayAt(spec, "ports") ?? []).forEach((p, i) => {
      if (typeof p === "object" && p !== null)
        slots.push([`spec.ports[${i}].nodePort`, { obj: p as Json, key: "nodePort" }]);
    });
  }
  if (lb && spec.externalTrafficPolicy === "Local")
    slots.push(["spec.healthCheckNodePort", { obj: spec, key: "healthCheckNodePort" }]);
  return slots;
}

/** What a stored Service holds. */
function held(object: KubeObject): Held {
  const spec = recordAt(rec(object), "spec") ?? {};
  const ip =
    needsClusterIp(spec) && typeof spec.clusterIP === "string" && spec.clusterIP !== ""
      ? spec.clusterIP
      : undefined;
  const ports = new Set<number>();
  for (const [, slot] of nodePortSlots(spec)) {
    const v = slot.obj[slot.key];
    if (typeof v === "number" && v !== 0) ports.add(v);
  }
  return { ip, ports };
}

function ipInvalid(service: KubeObject, ip: string, why: string): ApiError {
  return invalidService(
    service,
    field.invalid("spec.clusterIPs", [ip], `failed to allocate IP ${ip}: ${why}`),
  );
}

function portInvalid(service: KubeObject, path: string, port: number, why: string): ApiError {
  return invalidService(service, field.invalid(path, port, why));
}

function invalidService(service: KubeObject, cause: StatusCause): ApiError {
  return errors.invalid("Service", "", service.metadata?.name ?? "", [cause]);
}
