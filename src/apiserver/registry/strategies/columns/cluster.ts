import type { KubeObject } from "../../../../core/index.ts";
import type { TableColumn } from "../../strategy.ts";
import { AGE, at, condition, humanDuration, int, items, NAME, str } from "./common.ts";

/*
 * The columns of the kinds that run the cluster itself: Leases, PriorityClasses, RuntimeClasses,
 * FlowSchemas, PriorityLevelConfigurations, CertificateSigningRequests and APIServices.
 */

/**
 * A Limited priority level's setting at `path` under `spec.limited` (a queuing one only when it
 * queues), `<none>` otherwise.
 */
function limited(level: KubeObject, path: string): number | string {
  const spec = at(level, "spec.limited");
  if (spec === undefined) return "<none>";
  if (path.startsWith("limitResponse.queuing.") && at(spec, "limitResponse.queuing") === undefined)
    return "<none>";
  return int(spec, path);
}

/** FlowSchemas as kube lists them: by matching precedence, then by name. */
export function flowSchemaOrder(a: KubeObject, b: KubeObject): number {
  const byPrecedence = int(a, "spec.matchingPrecedence") - int(b, "spec.matchingPrecedence");
  if (byPrecedence !== 0) return byPrecedence;
  const [x, y] = [a.metadata?.name ?? "", b.metadata?.name ?? ""];
  return x < y ? -1 : x > y ? 1 : 0;
}

/** Denied, else Approved, else Pending; then `,Failed` and `,Issued` when they apply. */
function csrCondition(csr: KubeObject): string {
  const types = new Set(items(csr, "status.conditions").map((c) => c.type));
  let status = types.has("Denied") ? "Denied" : types.has("Approved") ? "Approved" : "Pending";
  if (types.has("Failed")) status += ",Failed";
  if (str(csr, "status.certificate") !== "") status += ",Issued";
  return status;
}

/** The Available condition's status, with its reason unless True; `Unknown` without one. */
function apiServiceAvailable(service: KubeObject): string {
  const available = condition(service, "Available");
  if (available === undefined) return "Unknown";
  const status = str(available, "status");
  const reason = str(available, "reason");
  return status === "True" || reason === "" ? status : `${status} (${reason})`;
}

/** `kubectl get leases`. */
export const LEASE_COLUMNS: readonly TableColumn[] = [
  NAME,
  {
    name: "Holder",
    type: "string",
    description:
      "holderIdentity contains the identity of the holder of a current lease. If Coordinated Leader Election is used, the holder identity must be equal to the elected LeaseCandidate.metadata.name field.",
    cell: (o) => str(o, "spec.holderIdentity"),
  },
  AGE,
];

/** `kubectl get priorityclasses`. */
export const PRIORITY_CLASS_COLUMNS: readonly TableColumn[] = [
  NAME,
  {
    name: "Value",
    type: "integer",
    description:
      "value represents the integer value of this priority class. This is the actual priority that pods receive when they have the name of this class in their pod spec.",
    cell: (o) => int(o, "value"),
  },
  {
    name: "Global-Default",
    type: "boolean",
    description:
      "globalDefault specifies whether this PriorityClass should be considered as the default priority for pods that do not have any priority class. Only one PriorityClass can be marked as `globalDefault`. However, if more than one PriorityClasses exists with their `globalDefault` field set to true, the smallest value of such global default PriorityClasses will be used as the default priority.",
    cell: (o) => at(o, "globalDefault") === true,
  },
  AGE,
  {
    name: "PreemptionPolicy",
    type: "string",
    description:
      "preemptionPolicy is the Policy for preempting pods with lower priority. One of Never, PreemptLowerPriority. Defaults to PreemptLowerPriority if unset.",
    cell: (o) => str(o, "preemptionPolicy"),
  },
];

/** `kubectl get runtimeclasses`. */
export const RUNTIME_CLASS_COLUMNS: readonly TableColumn[] = [
  NAME,
  { name: "Handler", type: "string", description: "", cell: (o) => str(o, "handler") },
  AGE,
];

/** `kubectl get flowschemas`: MissingPL is the Dangling condition's status, `?` before the first. */
export const FLOW_SCHEMA_COLUMNS: readonly TableColumn[] = [
  NAME,
  {
    name: "PriorityLevel",
    type: "string",
    description:
      "`name` is the name of the priority level configuration being referenced Required.",
    cell: (o) => str(o, "spec.priorityLevelConfiguration.name"),
  },
  {
    name: "MatchingPrecedence",
    type: "string",
    description:
      "`matchingPrecedence` is used to choose among the FlowSchemas that match a given request. The chosen FlowSchema is among those with the numerically lowest (which we take to be logically highest) MatchingPrecedence.  Each MatchingPrecedence value must be ranged in [1,10000]. Note that if the precedence is not specified, it will be set to 1000 as default.",
    cell: (o) => int(o, "spec.matchingPrecedence"),
  },
  {
    name: "DistinguisherMethod",
    type: "string",
    description:
      "`distinguisherMethod` defines how to compute the flow distinguisher for requests that match this schema. `nil` specifies that the distinguisher is disabled and thus will always be the empty string.",
    cell: (o) =>
      at(o, "spec.distinguisherMethod") === undefined
        ? "<none>"
        : str(o, "spec.distinguisherMethod.type"),
  },
  AGE,
  {
    name: "MissingPL",
    type: "string",
    description: "references a broken or non-existent PriorityLevelConfiguration",
    cell: (o) => str(condition(o, "Dangling"), "status", "?"),
  },
];

/** `kubectl get prioritylevelconfigurations`: the limits of a Limited level, `<none>` for others. */
export const PRIORITY_LEVEL_COLUMNS: readonly TableColumn[] = [
  NAME,
  {
    name: "Type",
    type: "string",
    description:
      '`type` indicates whether this priority level is subject to limitation on request execution.  A value of `"Exempt"` means that requests of this priority level are not subject to a limit (and thus are never queued) and do not detract from the capacity made available to other priority levels.  A value of `"Limited"` means that (a) requests of this priority level _are_ subject to limits and (b) some of the server\'s limited capacity is made available exclusively to this priority level. Required.',
    cell: (o) => str(o, "spec.type"),
  },
  {
    name: "NominalConcurrencyShares",
    type: "string",
    description:
      '`nominalConcurrencyShares` (NCS) contributes to the computation of the NominalConcurrencyLimit (NominalCL) of this level. This is the number of execution seats available at this priority level. This is used both for requests dispatched from this priority level as well as requests dispatched from other priority levels borrowing seats from this level. The server\'s concurrency limit (ServerCL) is divided among the Limited priority levels in proportion to their NCS values:\n\nNominalCL(i)  = ceil( ServerCL * NCS(i) / sum_ncs ) sum_ncs = sum[priority level k] NCS(k)\n\nBigger numbers mean a larger nominal concurrency limit, at the expense of every other priority level.\n\nIf not specified, this field defaults to a value of 30.\n\nSetting this field to zero supports the construction of a "jail" for this priority level that is used to hold some request(s)',
    cell: (o) => limited(o, "nominalConcurrencyShares"),
  },
  {
    name: "Queues",
    type: "string",
    description:
      "`queues` is the number of queues for this priority level. The queues exist independently at each apiserver. The value must be positive.  Setting it to 1 effectively precludes shufflesharding and thus makes the distinguisher method of associated flow schemas irrelevant.  This field has a default value of 64.",
    cell: (o) => limited(o, "limitResponse.queuing.queues"),
  },
  {
    name: "HandSize",
    type: "string",
    description:
      "`handSize` is a small positive number that configures the shuffle sharding of requests into queues.  When enqueuing a request at this priority level the request's flow identifier (a string pair) is hashed and the hash value is used to shuffle the list of queues and deal a hand of the size specified here.  The request is put into one of the shortest queues in that hand. `handSize` must be no larger than `queues`, and should be significantly smaller (so that a few heavy flows do not saturate most of the queues).  See the user-facing documentation for more extensive guidance on setting this field.  This field has a default value of 8.",
    cell: (o) => limited(o, "limitResponse.queuing.handSize"),
  },
  {
    name: "QueueLengthLimit",
    type: "string",
    description:
      "`queueLengthLimit` is the maximum number of requests allowed to be waiting in a given queue of this priority level at a time; excess requests are rejected.  This value must be positive.  If not specified, it will be defaulted to 50.",
    cell: (o) => limited(o, "limitResponse.queuing.queueLengthLimit"),
  },
  AGE,
];

/** `kubectl get certificatesigningrequests`: the age second, the condition summed up. */
export const CSR_COLUMNS: readonly TableColumn[] = [
  NAME,
  AGE,
  {
    name: "SignerName",
    type: "string",
    description:
      'Requested signer for the request. It is a qualified name in the form: `scope-hostname.io/name`. If empty, it will be defaulted:\n 1. If it\'s a kubelet client certificate, it is assigned\n    "kubernetes.io/kube-apiserver-client-kubelet".\n 2. If it\'s a kubelet serving certificate, it is assigned\n    "kubernetes.io/kubelet-serving".\n 3. Otherwise, it is assigned "kubernetes.io/legacy-unknown".\nDistribution of trust for signers happens out of band. You can select on this field using `spec.signerName`.',
    cell: (o) => str(o, "spec.signerName", "<none>"),
  },
  {
    name: "Requestor",
    type: "string",
    description: "Base64-encoded PKCS#10 CSR data",
    cell: (o) => str(o, "spec.username"),
  },
  {
    name: "RequestedDuration",
    type: "string",
    description:
      "expirationSeconds is the requested duration of validity of the issued certificate. The certificate signer may issue a certificate with a different validity duration so a client must check the delta between the notBefore and and notAfter fields in the issued certificate to determine the actual duration.\n\nThe v1.22+ in-tree implementations of the well-known Kubernetes signers will honor this field as long as the requested duration is not greater than the maximum duration they will honor per the --cluster-signing-duration CLI flag to the Kubernetes controller manager.\n\nCertificate signers may not honor this field for various reasons:\n\n  1. Old signer that is unaware of the field (such as the in-tree\n     implementations prior to v1.22)\n  2. Signer whose configured maximum is shorter than the requested duration\n  3. Signer whose configured minimum is longer than the requested duration\n\nThe minimum valid value for expirationSeconds is 600, i.e. 10 minutes.",
    cell: (o) =>
      typeof at(o, "spec.expirationSeconds") === "number"
        ? humanDuration(int(o, "spec.expirationSeconds") * 1000)
        : "<none>",
  },
  {
    name: "Condition",
    type: "string",
    description: "Conditions applied to the request, such as approval or denial.",
    cell: csrCondition,
  },
];

/** `kubectl get apiservices`: `Local` for the server's own groups. */
export const API_SERVICE_COLUMNS: readonly TableColumn[] = [
  NAME,
  {
    name: "Service",
    type: "string",
    description: "The reference to the service that hosts this API endpoint.",
    cell: (o) =>
      at(o, "spec.service") === undefined
        ? "Local"
        : `${str(o, "spec.service.namespace")}/${str(o, "spec.service.name")}`,
  },
  {
    name: "Available",
    type: "string",
    description: "Whether this service is available.",
    cell: apiServiceAvailable,
  },
  AGE,
];
