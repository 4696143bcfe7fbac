import type { KubeObject } from "../../../../core/index.ts";
import type { TableColumn } from "../../strategy.ts";
import {
  AGE,
  at,
  count,
  defaultMarked,
  formatLabelSelector,
  formatLabels,
  int,
  items,
  NAME,
  str,
  strings,
} from "./common.ts";

/*
 * The columns of the kinds that route traffic: Services, Endpoints, EndpointSlices, Ingresses,
 * IngressClasses, NetworkPolicies, ServiceCIDRs and IPAddresses.
 */

/** How many addresses or ports a cell lists before `+ N more...`. */
const SHOWN = 3;

/** The IPs or hostnames of a load balancer status, sorted, without duplicates. */
function loadBalancerAddresses(object: KubeObject): string {
  const found = new Set<string>();
  for (const i of items(object, "status.loadBalancer.ingress")) {
    const address = str(i, "ip") || str(i, "hostname");
    if (address !== "") found.add(address);
  }
  return [...found].sort().join(",");
}

/**
 * A Service's external IPs by type: its `externalIPs` (a load balancer's own addresses first,
 * `<pending>` while it has none), an ExternalName's name, `<none>`.
 */
function serviceExternalIp(service: KubeObject): string {
  const external = strings(service, "spec.externalIPs");
  switch (str(service, "spec.type")) {
    case "ClusterIP":
    case "NodePort":
      return external.length > 0 ? external.join(",") : "<none>";
    case "LoadBalancer": {
      const balancer = loadBalancerAddresses(service);
      if (external.length > 0)
        return [...(balancer === "" ? [] : balancer.split(",")), ...external].join(",");
      return balancer === "" ? "<pending>" : balancer;
    }
    case "ExternalName":
      return str(service, "spec.externalName");
    default:
      return "<unknown>";
  }
}

/** `port/protocol`, or `port:nodePort/protocol`, for each port; `<none>` for none. */
function servicePorts(service: KubeObject): string {
  const ports = items(service, "spec.ports").map((p) => {
    const protocol = str(p, "protocol", "TCP");
    const nodePort = int(p, "nodePort");
    return nodePort > 0
      ? `${int(p, "port")}:${nodePort}/${protocol}`
      : `${int(p, "port")}/${protocol}`;
  });
  return ports.length === 0 ? "<none>" : ports.join(",");
}

/** `ip:port`, bracketing an IPv6 address. */
function hostPort(ip: string, port: number): string {
  return ip.includes(":") ? `[${ip}]:${port}` : `${ip}:${port}`;
}

/** A list cut at {@link SHOWN} entries, `+ N more...` after it, `<unset>` when empty. */
function listWithMore(list: string[]): string {
  const shown = list.slice(0, SHOWN).join(",");
  if (list.length > SHOWN) return `${shown} + ${list.length - SHOWN} more...`;
  return shown === "" ? "<unset>" : shown;
}

/**
 * The ready addresses of an Endpoints object, `ip:port` for each port of their subset (only
 * the IP in a subset without ports), the first three and how many more; `<none>` without
 * subsets.
 */
function formatEndpoints(endpoints: KubeObject): string {
  const subsets = items(endpoints, "subsets");
  if (subsets.length === 0) return "<none>";
  const list: string[] = [];
  for (const subset of subsets) {
    const ips = items(subset, "addresses").map((a) => str(a, "ip"));
    const ports = items(subset, "ports");
    if (ports.length === 0) list.push(...ips);
    for (const p of ports) list.push(...ips.map((ip) => hostPort(ip, int(p, "port"))));
  }
  const shown = list.slice(0, SHOWN).join(",");
  return list.length > SHOWN ? `${shown} + ${list.length - SHOWN} more...` : shown;
}

/** An EndpointSlice's ports: numbers, else names, else `*`. */
function slicePorts(slice: KubeObject): string {
  const ports = items(slice, "ports").map((p) =>
    typeof p.port === "number" ? String(p.port) : typeof p.name === "string" ? p.name : "*",
  );
  return listWithMore(ports);
}

/** An EndpointSlice's addresses, of every endpoint. */
function sliceEndpoints(slice: KubeObject): string {
  const addresses = items(slice, "endpoints").flatMap((e) => strings(e, "addresses"));
  return listWithMore(addresses);
}

/**
 * An Ingress's rule hosts, up to three, then how many rules past the third (kube counts rules,
 * not hosts); `*` for none.
 */
function ingressHosts(ingress: KubeObject): string {
  const rules = items(ingress, "spec.rules");
  const hosts: string[] = [];
  let more = false;
  for (const rule of rules) {
    if (hosts.length === SHOWN) more = true;
    if (!more && str(rule, "host") !== "") hosts.push(str(rule, "host"));
  }
  if (hosts.length === 0) return "*";
  return more ? `${hosts.join(",")} + ${rules.length - SHOWN} more...` : hosts.join(",");
}

/** `Kind.apiGroup/name` of an IngressClass's parameters, or `<none>`. */
function ingressClassParameters(ingressClass: KubeObject): string {
  if (at(ingressClass, "spec.parameters") === undefined) return "<none>";
  const group = at(ingressClass, "spec.parameters.apiGroup");
  const kind = str(ingressClass, "spec.parameters.kind");
  const name = str(ingressClass, "spec.parameters.name");
  return typeof group === "string" ? `${kind}.${group}/${name}` : `${kind}/${name}`;
}

/** `resource.group[/namespace]/name` of an IPAddress's parent, lowercased; `<none>`. */
function ipAddressParent(address: KubeObject): string {
  if (at(address, "spec.parentRef") === undefined) return "<none>";
  const resource = str(address, "spec.parentRef.resource");
  const group = str(address, "spec.parentRef.group");
  const namespace = str(address, "spec.parentRef.namespace");
  const parent = (group === "" ? resource : `${resource}.${group}`).toLowerCase();
  return `${parent}${namespace === "" ? "" : `/${namespace}`}/${str(address, "spec.parentRef.name")}`;
}

/** `kubectl get services [-o wide]`. */
export const SERVICE_COLUMNS: readonly TableColumn[] = [
  NAME,
  {
    name: "Type",
    type: "string",
    description:
      'type determines how the Service is exposed. Defaults to ClusterIP. Valid options are ExternalName, ClusterIP, NodePort, and LoadBalancer. "ClusterIP" allocates a cluster-internal IP address for load-balancing to endpoints. Endpoints are determined by the selector or if that is not specified, by manual construction of an Endpoints object or EndpointSlice objects. If clusterIP is "None", no virtual IP is allocated and the endpoints are published as a set of endpoints rather than a virtual IP. "NodePort" builds on ClusterIP and allocates a port on every node which routes to the same endpoints as the clusterIP. "LoadBalancer" builds on NodePort and creates an external load-balancer (if supported in the current cloud) which routes to the same endpoints as the clusterIP. "ExternalName" aliases this service to the specified externalName. Several other fields do not apply to ExternalName services. More info: https://kubernetes.io/docs/concepts/services-networking/service/#publishing-services-service-types',
    cell: (o) => str(o, "spec.type"),
  },
  {
    name: "Cluster-IP",
    type: "string",
    description:
      'clusterIP is the IP address of the service and is usually assigned randomly. If an address is specified manually, is in-range (as per system configuration), and is not in use, it will be allocated to the service; otherwise creation of the service will fail. This field may not be changed through updates unless the type field is also being changed to ExternalName (which requires this field to be blank) or the type field is being changed from ExternalName (in which case this field may optionally be specified, as describe above).  Valid values are "None", empty string (""), or a valid IP address. Setting this to "None" makes a "headless service" (no virtual IP), which is useful when direct endpoint connections are preferred and proxying is not required.  Only applies to types ClusterIP, NodePort, and LoadBalancer. If this field is specified when creating a Service of type ExternalName, creation will fail. This field will be wiped when updating a Service to type ExternalName. More info: https://kubernetes.io/docs/concepts/services-networking/service/#virtual-ips-and-service-proxies',
    cell: (o) => strings(o, "spec.clusterIPs")[0] ?? "<none>",
  },
  {
    name: "External-IP",
    type: "string",
    description:
      "externalIPs is a list of IP addresses for which nodes in the cluster will also accept traffic for this service.  These IPs are not managed by Kubernetes.  The user is responsible for ensuring that traffic arrives at a node with this IP.  A common example is external load-balancers that are not part of the Kubernetes system.",
    cell: serviceExternalIp,
  },
  {
    name: "Port(s)",
    type: "string",
    description:
      "The list of ports that are exposed by this service. More info: https://kubernetes.io/docs/concepts/services-networking/service/#virtual-ips-and-service-proxies",
    cell: servicePorts,
  },
  AGE,
  {
    name: "Selector",
    type: "string",
    priority: 1,
    description:
      "Route service traffic to pods with label keys and values matching this selector. If empty or not present, the service is assumed to have an external process managing its endpoints, which Kubernetes will not modify. Only applies to types ClusterIP, NodePort, and LoadBalancer. Ignored if type is ExternalName. More info: https://kubernetes.io/docs/concepts/services-networking/service/",
    cell: (o) => formatLabels(at(o, "spec.selector")),
  },
];

/** `kubectl get endpoints`. */
export const ENDPOINTS_COLUMNS: readonly TableColumn[] = [
  NAME,
  {
    name: "Endpoints",
    type: "string",
    description:
      "The set of all endpoints is the union of all subsets. Addresses are placed into subsets according to the IPs they share. A single address with multiple ports, some of which are ready and some of which are not (because they come from different containers) will result in the address being displayed in different subsets for the different ports. No address will appear in both Addresses and NotReadyAddresses in the same subset. Sets of addresses and ports that comprise a service.",
    cell: formatEndpoints,
  },
  AGE,
];

/** `kubectl get endpointslices`. */
export const ENDPOINT_SLICE_COLUMNS: readonly TableColumn[] = [
  NAME,
  {
    name: "AddressType",
    type: "string",
    description:
      'addressType specifies the type of address carried by this EndpointSlice. All addresses in this slice must be the same type. This field is immutable after creation. The following address types are currently supported: * IPv4: Represents an IPv4 Address. * IPv6: Represents an IPv6 Address. * FQDN: Represents a Fully Qualified Domain Name. (Deprecated) The EndpointSlice controller only generates, and kube-proxy only processes, slices of addressType "IPv4" and "IPv6". No semantics are defined for the "FQDN" type.',
    cell: (o) => str(o, "addressType"),
  },
  {
    name: "Ports",
    type: "string",
    description:
      "ports specifies the list of network ports exposed by each endpoint in this slice. Each port must have a unique name. Each slice may include a maximum of 100 ports. Services always have at least 1 port, so EndpointSlices generated by the EndpointSlice controller will likewise always have at least 1 port. EndpointSlices used for other purposes may have an empty ports list.",
    cell: slicePorts,
  },
  {
    name: "Endpoints",
    type: "string",
    description:
      "endpoints is a list of unique endpoints in this slice. Each slice may include a maximum of 1000 endpoints.",
    cell: sliceEndpoints,
  },
  AGE,
];

/** `kubectl get ingresses`. */
export const INGRESS_COLUMNS: readonly TableColumn[] = [
  NAME,
  {
    name: "Class",
    type: "string",
    description:
      "The name of the IngressClass resource that should be used for additional configuration",
    cell: (o) => str(o, "spec.ingressClassName", "<none>"),
  },
  {
    name: "Hosts",
    type: "string",
    description: "Hosts that incoming requests are matched against before the ingress rule",
    cell: ingressHosts,
  },
  {
    name: "Address",
    type: "string",
    description: "Address is a list containing ingress points for the load-balancer",
    cell: (o) => loadBalancerAddresses(o),
  },
  {
    name: "Ports",
    type: "string",
    description: "Ports of TLS configurations that open",
    cell: (o) => (count(o, "spec.tls") > 0 ? "80, 443" : "80"),
  },
  AGE,
];

/** `kubectl get ingressclasses`: the default class is named `name (default)`. */
export const INGRESS_CLASS_COLUMNS: readonly TableColumn[] = [
  { ...NAME, cell: defaultMarked("ingressclass.kubernetes.io/is-default-class") },
  {
    name: "Controller",
    type: "string",
    description: "Controller that is responsible for handling this class",
    cell: (o) => str(o, "spec.controller"),
  },
  {
    name: "Parameters",
    type: "string",
    description: "A reference to a resource with additional parameters",
    cell: ingressClassParameters,
  },
  AGE,
];

/** `kubectl get networkpolicies`. */
export const NETWORK_POLICY_COLUMNS: readonly TableColumn[] = [
  NAME,
  {
    name: "Pod-Selector",
    type: "string",
    description:
      "podSelector selects the pods to which this NetworkPolicy object applies. The array of rules is applied to any pods selected by this field. An empty selector matches all pods in the policy's namespace. Multiple network policies can select the same set of pods. In this case, the ingress rules for each are combined additively. This field is optional. If it is not specified, it defaults to an empty selector.",
    cell: (o) => formatLabelSelector(at(o, "spec.podSelector") ?? {}),
  },
  AGE,
];

/** `kubectl get servicecidrs`. */
export const SERVICE_CIDR_COLUMNS: readonly TableColumn[] = [
  NAME,
  {
    name: "CIDRs",
    type: "string",
    description:
      'CIDRs defines the IP blocks in CIDR notation (e.g. "192.168.0.0/24" or "2001:db8::/64") from which to assign service cluster IPs. Max of two CIDRs is allowed, one of each IP family. This field is immutable.',
    cell: (o) => strings(o, "spec.cidrs").join(","),
  },
  AGE,
];

/** `kubectl get ipaddresses`: kube prints an age in each row without declaring its column. */
export const IP_ADDRESS_COLUMNS: readonly TableColumn[] = [
  NAME,
  {
    name: "ParentRef",
    type: "string",
    description:
      "ParentRef references the resource that an IPAddress is attached to. An IPAddress must reference a parent object.",
    cell: ipAddressParent,
  },
  { ...AGE, undeclared: true },
];
