import { deepEqual, type KubeObject, type StatusCause } from "../../../core/index.ts";
import { field } from "../field-errors.ts";
import { ipToNumber } from "../service-allocation.ts";
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
export const serviceStrategy: Strategy = {
  // A DNS-1123 label: kube 1.36 relaxes the DNS-1035 rule (RelaxedServiceNameValidation, on).
  nameRule: "label",
  statusSubresource: true,
  returnDeletedObject: true,
  defaults: defaultService,
  prepareForCreate(object) {
    const o = rec(object);
    const spec = child(o, "spec");
    if (spec.type !== "ExternalName") {
      // The cluster IP itself is claimed once the Service is valid (service-allocation.ts).
      if (typeof spec.clusterIP === "string" && spec.clusterIP !== "")
        setDefault(spec, "clusterIPs", [spec.clusterIP]);
      // A headless Service without a selector may have both families, as kube defaults it.
      const headlessAny = spec.clusterIP === "None" && recordAt(spec, "selector") === undefined;
      setDefault(spec, "ipFamilyPolicy", headlessAny ? "RequireDualStack" : "SingleStack");
      setDefault(spec, "ipFamilies", headlessAny ? ["IPv4", "IPv6"] : ["IPv4"]);
    }
    o.status = { loadBalancer: {} };
  },
  prepareForUpdate(object, old) {
    // What the server allocated stays when an update leaves it out, as kube's REST update
    // patches it in: the cluster IPs and families, and each port's node port by port name.
    const spec = child(rec(object), "spec");
    const oldSpec = recordAt(rec(old), "spec") ?? {};
    const needsIp = (s: Json) => s.type !== "ExternalName";
    if (needsIp(spec) && needsIp(oldSpec)) {
      for (const k of ["clusterIP", "clusterIPs", "ipFamilies", "ipFamilyPolicy"]) {
        if ((spec[k] === undefined || spec[k] === "") && oldSpec[k] !== undefined)
          spec[k] = oldSpec[k];
      }
    }
    // A clusterIP changed alone moves clusterIPs with it (or clears them), so that validation
    // sees the change where kube reports it.
    if (spec.clusterIP !== oldSpec.clusterIP && deepEqual(spec.clusterIPs, oldSpec.clusterIPs)) {
      if (typeof spec.clusterIP === "string" && spec.clusterIP !== "")
        spec.clusterIPs = [spec.clusterIP];
      else delete spec.clusterIPs;
    }
    const needsNodePorts = (s: Json) => s.type === "NodePort" || s.type === "LoadBalancer";
    if (!needsNodePorts(spec) || !needsNodePorts(oldSpec)) return;
    const nodePorts = (s: Json) =>
      (arrayAt(s, "ports") ?? []).filter((p): p is Json => typeof p === "object" && p !== null);
    const used = new Set(nodePorts(spec).map((p) => p.nodePort));
    const byName = new Map(nodePorts(oldSpec).map((p) => [p.name, p.nodePort]));
    for (const p of nodePorts(spec)) {
      if (p.nodePort !== undefined && p.nodePort !== 0) continue;
      const old = byName.get(p.name);
      if (old !== undefined && old !== 0 && !used.has(old)) p.nodePort = old;
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
    causes.push(...clusterIpProblems(spec));
    return causes;
  },
  validateUpdate(object, old) {
    const ips = arrayAt(recordAt(rec(object), "spec") ?? {}, "clusterIPs") ?? [];
    const oldIps = arrayAt(recordAt(rec(old), "spec") ?? {}, "clusterIPs") ?? [];
    const type = stringAt(object, "spec.type");
    const was = oldIps[0];
    // kube: an allocated cluster IP stays until the Service becomes an ExternalName one.
    return was !== undefined && was !== "" && type !== "ExternalName" && ips[0] !== was
      ? [field.invalid("spec.clusterIPs[0]", ips, "may not change once set")]
      : [];
  },
  columns: SERVICE_COLUMNS,
};

/** The cluster IPs a client set: addresses (or "None", first), the first the same as clusterIP. */
function clusterIpProblems(spec: Json): StatusCause[] {
  const causes: StatusCause[] = [];
  (arrayAt(spec, "clusterIPs") ?? []).forEach((ip, i) => {
    if (i === 0 && ip === "None") return;
    if (typeof ip !== "string" || ipToNumber(ip) === undefined)
      causes.push(
        field.invalid(
          `spec.clusterIPs[${i}]`,
          ip,
          "must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)",
        ),
      );
  });
  return causes;
}
