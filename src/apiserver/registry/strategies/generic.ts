import type { BuiltinResourceFacts } from "../../../resources/index.ts";
import type { NameRule } from "../object-meta.ts";
import type { Strategy } from "../strategy.ts";
import { ADMISSION_KINDS } from "./admission-kinds.ts";
import { CERTIFICATE_KINDS } from "./certificate-kinds.ts";
import { COLUMNS_BY_RESOURCE, TABLE_ORDER_BY_RESOURCE } from "./columns/by-resource.ts";
import type { KindRules } from "./kind-rules.ts";
import { ipAddressName, NETWORK_KINDS } from "./network-kinds.ts";
import { POLICY_KINDS } from "./policy-kinds.ts";
import { RESOURCE_KINDS } from "./resource-kinds.ts";
import { STORAGE_KINDS } from "./storage-kinds.ts";
import { WORKLOAD_KINDS } from "./workload-kinds.ts";

/**
 * Resources whose kube strategy sets `metadata.generation` to 1 on create and raises it when
 * anything but metadata and status changes: the kinds with a spec a controller acts on.
 */
const TRACK_GENERATION = new Set([
  "podtemplates",
  "replicationcontrollers",
  "admissionregistration.k8s.io/mutatingadmissionpolicies",
  "admissionregistration.k8s.io/mutatingadmissionpolicybindings",
  "admissionregistration.k8s.io/mutatingwebhookconfigurations",
  "admissionregistration.k8s.io/validatingadmissionpolicies",
  "admissionregistration.k8s.io/validatingadmissionpolicybindings",
  "admissionregistration.k8s.io/validatingwebhookconfigurations",
  "apps/daemonsets",
  "apps/replicasets",
  "apps/statefulsets",
  "autoscaling/horizontalpodautoscalers",
  "batch/cronjobs",
  "batch/jobs",
  "discovery.k8s.io/endpointslices",
  "flowcontrol.apiserver.k8s.io/flowschemas",
  "flowcontrol.apiserver.k8s.io/prioritylevelconfigurations",
  "networking.k8s.io/ingressclasses",
  "networking.k8s.io/ingresses",
  "networking.k8s.io/networkpolicies",
  "policy/poddisruptionbudgets",
  "resource.k8s.io/deviceclasses",
  "resource.k8s.io/resourceslices",
  "scheduling.k8s.io/priorityclasses",
]);

/** The rules of the kinds that have rules of their own, by `group/plural` (`plural` in core). */
const KIND_RULES: Readonly<Record<string, KindRules>> = {
  ...WORKLOAD_KINDS,
  ...ADMISSION_KINDS,
  ...STORAGE_KINDS,
  ...NETWORK_KINDS,
  ...POLICY_KINDS,
  ...RESOURCE_KINDS,
  ...CERTIFICATE_KINDS,
};

/**
 * The name rules of the kinds whose kube validation does not name them as DNS subdomains (by
 * `group/plural`, or a whole group): RBAC objects by path segment (`system:controller:x`), as
 * kube's ValidateRBACName; StatefulSets by DNS label (they name their pods' hostnames);
 * CertificateSigningRequests by any name (their validation checks their metadata but not
 * the name); PodDisruptionBudgets by none — their validation checks the spec only, so only
 * the generic checks of every kind apply; IPAddresses by being an IP address.
 */
const NAME_RULES: Readonly<Record<string, NameRule>> = {
  "rbac.authorization.k8s.io": "path-segment",
  "apps/statefulsets": "label",
  "certificates.k8s.io/certificatesigningrequests": "any",
  "policy/poddisruptionbudgets": "none",
  "networking.k8s.io/ipaddresses": ipAddressName,
};

/**
 * How a built-in kind with no strategy of its own is served: pruned of unknown fields as any
 * built-in kind, otherwise stored as sent (validated only as metadata), its `status`
 * subresource where kube has one, its generation where kube tracks it, its Table columns as
 * kube prints them — with the defaulting, registry rules and validation of the kinds that have
 * rules of their own (`KIND_RULES`).
 */
export function genericStrategy(facts: BuiltinResourceFacts): Strategy {
  const key = facts.group === "" ? facts.plural : `${facts.group}/${facts.plural}`;
  return {
    nameRule: NAME_RULES[key] ?? NAME_RULES[facts.group] ?? "subdomain",
    trackGeneration: TRACK_GENERATION.has(key),
    statusSubresource: facts.subresources.some((s) => s.name === "status"),
    columns: COLUMNS_BY_RESOURCE[key],
    tableOrder: TABLE_ORDER_BY_RESOURCE[key],
    ...KIND_RULES[key],
  };
}
