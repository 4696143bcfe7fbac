import { isIP } from "node:net";
import { deepEqual } from "../../../core/index.ts";
import { createdStatus, eachAt, type KindRules, specOf } from "./kind-rules.ts";
import { child, type Json, rec, recordAt, setDefault } from "./util.ts";

/*
 * Endpoints, EndpointSlices and the networking.k8s.io kinds as kube-apiserver 1.36 defaults and
 * creates them: a port speaks TCP unless told otherwise, a NetworkPolicy without policy types
 * governs ingress (and egress when it has egress rules), an IngressClass's parameters are
 * cluster-scoped, an endpoint's conditions are always written, an Ingress starts with an empty
 * load balancer status. (Their generations are tracked by `genericStrategy`.)
 */

function defaultProtocols(ports: Json[]): void {
  for (const port of ports) setDefault(port, "protocol", "TCP");
}

const endpoints: KindRules = {
  defaults(object) {
    for (const subset of eachAt(rec(object), "subsets")) defaultProtocols(eachAt(subset, "ports"));
  },
};

const endpointSlice: KindRules = {
  defaults(object) {
    const o = rec(object);
    for (const port of eachAt(o, "ports")) {
      setDefault(port, "name", "");
      setDefault(port, "protocol", "TCP");
    }
    // kube writes an endpoint's conditions even when none is known.
    for (const endpoint of eachAt(o, "endpoints")) setDefault(endpoint, "conditions", {});
  },
  // A slice's labels (its service, its managing controller) are part of what its generation counts.
  prepareForUpdate(object, old) {
    const meta = child(rec(object), "metadata");
    if (!deepEqual(meta.labels ?? {}, old.metadata?.labels ?? {})) {
      meta.generation = (old.metadata?.generation ?? 0) + 1;
    }
  },
};

const networkPolicy: KindRules = {
  defaults(object) {
    const spec = specOf(object);
    const types = spec.policyTypes;
    if (!Array.isArray(types) || types.length === 0) {
      const egress = spec.egress;
      spec.policyTypes =
        Array.isArray(egress) && egress.length > 0 ? ["Ingress", "Egress"] : ["Ingress"];
    }
    for (const direction of ["ingress", "egress"]) {
      for (const rule of eachAt(spec, direction)) defaultProtocols(eachAt(rule, "ports"));
    }
  },
};

const ingress: KindRules = createdStatus(() => ({ loadBalancer: {} }));

const ingressClass: KindRules = {
  defaults(object) {
    const parameters = recordAt(specOf(object), "parameters");
    if (parameters !== undefined) setDefault(parameters, "scope", "Cluster");
  },
};

/** The kinds' rules, by `group/plural` (`plural` in the core group). */
/**
 * An IPAddress: a generateName is taken as the name (an address gets no random suffix); its parent
 * reference leaves out an empty group (Go's `omitempty`, before field management, so nobody owns
 * it), as kube stores one for a core resource.
 */
const ipAddress: KindRules = {
  nameIsGenerateName: true,
  defaults(object) {
    const parent = recordAt(specOf(object), "parentRef");
    if (parent?.group === "") delete parent.group;
  },
};

/** An IPAddress is named by its address (kube's ValidateIPAddressName); a prefix is never one. */
export function ipAddressName(name: string): string[] {
  return isIP(name) === 0 ? ["must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)"] : [];
}

/** A ServiceCIDR starts with an empty status, written as Go writes it: `{}`. */
const serviceCIDR: KindRules = createdStatus(() => ({}));

export const NETWORK_KINDS: Readonly<Record<string, KindRules>> = {
  endpoints,
  "discovery.k8s.io/endpointslices": endpointSlice,
  "networking.k8s.io/networkpolicies": networkPolicy,
  "networking.k8s.io/ingresses": ingress,
  "networking.k8s.io/ingressclasses": ingressClass,
  "networking.k8s.io/ipaddresses": ipAddress,
  "networking.k8s.io/servicecidrs": serviceCIDR,
};
