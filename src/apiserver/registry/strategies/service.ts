import type { KubeObject, StatusCause } from "../../../core/index.ts";
import type { ClusterIpAllocator } from "../allocators.ts";
import { field } from "../field-errors.ts";
import type { Strategy } from "../strategy.ts";
import { SERVICE_COLUMNS } from "./columns/networking.ts";
import { arrayAt, child, type Json, rec, recordAt, setDefault, stringAt } from "./util.ts";

const SERVICE_TYPES = ["ClusterIP", "NodePort", "LoadBalancer", "ExternalName"];
const PROTOCOLS = ["TCP", "UDP", "SCTP"];

/** kube's `SetDefaults_Service`. */
function defaultService(object: KubeObject): void {
  const spec = child(rec(object), "spec");
  setDefault(spec, "sessionAffinity", "None");
  if (spec.sessionAffinity === "None") delete spec.sessionAffinityConfig;
  if (spec.sessionAffinity === "ClientIP") {
    const clientIP = recordAt(recordAt(spec, "sessionAffinityConfig") ?? {}, "clientIP");
    if (clientIP?.timeoutSeconds === undefined)
      spec.sessionAffinityConfig = { clientIP: { timeoutSeconds: 10800 } };
  }
  setDefault(spec, "type", "ClusterIP");
  for (const p of arrayAt(spec, "ports") ?? []) {
    if (typeof p !== "object" || p === null) continue;
    const port = p as Json;
    setDefault(port, "protocol", "TCP");
    if (port.targetPort === undefined || port.targetPort === 0 || port.targetPort === "")
      port.targetPort = port.port;
  }
  const external = spec.type === "NodePort" || spec.type === "LoadBalancer";
  if (external) setDefault(spec, "externalTrafficPolicy", "Cluster");
  if (external || spec.type === "ClusterIP") setDefault(spec, "internalTrafficPolicy", "Cluster");
  if (spec.type === "LoadBalancer") setDefault(spec, "allocateLoadBalancerNodePorts", true);
}

/**
 * Services: defaults (type, ports, a cluster IP from `ips`) and port validation. One strategy
 * per server, since its allocator is.
 */
export const serviceStrategy = (ips: ClusterIpAllocator): Strategy => ({
  statusSubresource: true,
  returnDeletedObject: true,
  defaults: defaultService,
  prepareForCreate(object) {
    const o = rec(object);
    const spec = child(o, "spec");
    if (spec.type !== "ExternalName") {
      if (spec.clusterIP === undefined || spec.clusterIP === "") {
        spec.clusterIP = ips.allocate();
      }
      setDefault(spec, "clusterIPs", [spec.clusterIP]);
      setDefault(spec, "ipFamilies", ["IPv4"]);
      setDefault(spec, "ipFamilyPolicy", "SingleStack");
    }
    o.status = { loadBalancer: {} };
  },
  prepareForUpdate(object, old) {
    // What the server allocated stays when an update leaves it out, as kube's REST update keeps it.
    const spec = child(rec(object), "spec");
    const oldSpec = recordAt(rec(old), "spec") ?? {};
    for (const k of ["clusterIP", "clusterIPs", "ipFamilies", "ipFamilyPolicy"]) {
      if (spec[k] === undefined && oldSpec[k] !== undefined) spec[k] = oldSpec[k];
    }
  },
  validate(object) {
    const spec = recordAt(rec(object), "spec") ?? {};
    const causes: StatusCause[] = [];
    const type = spec.type;
    if (typeof type !== "string" || !SERVICE_TYPES.includes(type)) {
      causes.push(field.notSupported("spec.type", type, SERVICE_TYPES));
    }
    const ports = arrayAt(spec, "ports") ?? [];
    if (type === "ExternalName") {
      if (!spec.externalName) causes.push(field.required("spec.externalName"));
    } else if (ports.length === 0 && spec.clusterIP !== "None") {
      causes.push(field.required("spec.ports"));
    }
    const names = new Set<unknown>();
    ports.forEach((raw, i) => {
      const p = (raw ?? {}) as Json;
      const path = `spec.ports[${i}]`;
      if (ports.length > 1 && !p.name) causes.push(field.required(`${path}.name`));
      if (p.name !== undefined) {
        if (names.has(p.name)) causes.push(field.duplicate(`${path}.name`, p.name));
        names.add(p.name);
      }
      if (!Number.isInteger(p.port) || (p.port as number) < 1 || (p.port as number) > 65535) {
        causes.push(
          field.invalid(`${path}.port`, p.port, "must be between 1 and 65535, inclusive"),
        );
      }
      if (!PROTOCOLS.includes(String(p.protocol)))
        causes.push(field.notSupported(`${path}.protocol`, p.protocol, PROTOCOLS));
    });
    return causes;
  },
  validateUpdate(object, old) {
    const a = stringAt(object, "spec.clusterIP");
    const b = stringAt(old, "spec.clusterIP");
    return a !== b && b !== undefined && b !== "" ? [field.immutable("spec.clusterIP", a)] : [];
  },
  columns: SERVICE_COLUMNS,
});
