import type { Strategy, TableColumn } from "../../strategy.ts";
import {
  MUTATING_POLICY_BINDING_COLUMNS,
  MUTATING_POLICY_COLUMNS,
  MUTATING_WEBHOOK_COLUMNS,
  VALIDATING_POLICY_BINDING_COLUMNS,
  VALIDATING_POLICY_COLUMNS,
  VALIDATING_WEBHOOK_COLUMNS,
} from "./admission.ts";
import { CRON_JOB_COLUMNS, JOB_COLUMNS } from "./batch.ts";
import {
  API_SERVICE_COLUMNS,
  CSR_COLUMNS,
  FLOW_SCHEMA_COLUMNS,
  flowSchemaOrder,
  PRIORITY_CLASS_COLUMNS,
  PRIORITY_LEVEL_COLUMNS,
  RUNTIME_CLASS_COLUMNS,
} from "./cluster.ts";
import { RESOURCE_QUOTA_COLUMNS } from "./core.ts";
import {
  DEVICE_CLASS_COLUMNS,
  RESOURCE_CLAIM_COLUMNS,
  RESOURCE_CLAIM_TEMPLATE_COLUMNS,
  RESOURCE_SLICE_COLUMNS,
} from "./dra.ts";
import {
  ENDPOINT_SLICE_COLUMNS,
  ENDPOINTS_COLUMNS,
  INGRESS_CLASS_COLUMNS,
  INGRESS_COLUMNS,
  IP_ADDRESS_COLUMNS,
  NETWORK_POLICY_COLUMNS,
  SERVICE_CIDR_COLUMNS,
} from "./networking.ts";
import { CLUSTER_ROLE_BINDING_COLUMNS, ROLE_BINDING_COLUMNS } from "./rbac.ts";
import { HPA_COLUMNS, PDB_COLUMNS } from "./scaling.ts";
import {
  CSI_DRIVER_COLUMNS,
  CSI_NODE_COLUMNS,
  PERSISTENT_VOLUME_CLAIM_COLUMNS,
  PERSISTENT_VOLUME_COLUMNS,
  STORAGE_CLASS_COLUMNS,
  VOLUME_ATTACHMENT_COLUMNS,
  VOLUME_ATTRIBUTES_CLASS_COLUMNS,
} from "./storage.ts";
import {
  CONTROLLER_REVISION_COLUMNS,
  DAEMON_SET_COLUMNS,
  POD_TEMPLATE_COLUMNS,
  REPLICA_SET_COLUMNS,
  REPLICATION_CONTROLLER_COLUMNS,
  STATEFUL_SET_COLUMNS,
} from "./workloads.ts";

/**
 * The columns of the kinds served on the generic strategy, by `group/plural` (`plural` in the
 * core group). The kinds with strategies of their own (pods, nodes, services, namespaces,
 * config maps, secrets, service accounts, events, leases, deployments) name theirs there. A kind
 * in neither place prints kube's default table, as kube-apiserver does for the kinds it has no
 * printer for: Roles, ClusterRoles, LimitRanges, CSIStorageCapacities,
 * CustomResourceDefinitions.
 */
export const COLUMNS_BY_RESOURCE: Readonly<Record<string, readonly TableColumn[]>> = {
  endpoints: ENDPOINTS_COLUMNS,
  persistentvolumeclaims: PERSISTENT_VOLUME_CLAIM_COLUMNS,
  persistentvolumes: PERSISTENT_VOLUME_COLUMNS,
  podtemplates: POD_TEMPLATE_COLUMNS,
  replicationcontrollers: REPLICATION_CONTROLLER_COLUMNS,
  resourcequotas: RESOURCE_QUOTA_COLUMNS,
  "admissionregistration.k8s.io/mutatingadmissionpolicies": MUTATING_POLICY_COLUMNS,
  "admissionregistration.k8s.io/mutatingadmissionpolicybindings": MUTATING_POLICY_BINDING_COLUMNS,
  "admissionregistration.k8s.io/mutatingwebhookconfigurations": MUTATING_WEBHOOK_COLUMNS,
  "admissionregistration.k8s.io/validatingadmissionpolicies": VALIDATING_POLICY_COLUMNS,
  "admissionregistration.k8s.io/validatingadmissionpolicybindings":
    VALIDATING_POLICY_BINDING_COLUMNS,
  "admissionregistration.k8s.io/validatingwebhookconfigurations": VALIDATING_WEBHOOK_COLUMNS,
  "apiregistration.k8s.io/apiservices": API_SERVICE_COLUMNS,
  "apps/controllerrevisions": CONTROLLER_REVISION_COLUMNS,
  "apps/daemonsets": DAEMON_SET_COLUMNS,
  "apps/replicasets": REPLICA_SET_COLUMNS,
  "apps/statefulsets": STATEFUL_SET_COLUMNS,
  "autoscaling/horizontalpodautoscalers": HPA_COLUMNS,
  "batch/cronjobs": CRON_JOB_COLUMNS,
  "batch/jobs": JOB_COLUMNS,
  "certificates.k8s.io/certificatesigningrequests": CSR_COLUMNS,
  "discovery.k8s.io/endpointslices": ENDPOINT_SLICE_COLUMNS,
  "flowcontrol.apiserver.k8s.io/flowschemas": FLOW_SCHEMA_COLUMNS,
  "flowcontrol.apiserver.k8s.io/prioritylevelconfigurations": PRIORITY_LEVEL_COLUMNS,
  "networking.k8s.io/ingressclasses": INGRESS_CLASS_COLUMNS,
  "networking.k8s.io/ingresses": INGRESS_COLUMNS,
  "networking.k8s.io/ipaddresses": IP_ADDRESS_COLUMNS,
  "networking.k8s.io/networkpolicies": NETWORK_POLICY_COLUMNS,
  "networking.k8s.io/servicecidrs": SERVICE_CIDR_COLUMNS,
  "node.k8s.io/runtimeclasses": RUNTIME_CLASS_COLUMNS,
  "policy/poddisruptionbudgets": PDB_COLUMNS,
  "rbac.authorization.k8s.io/clusterrolebindings": CLUSTER_ROLE_BINDING_COLUMNS,
  "rbac.authorization.k8s.io/rolebindings": ROLE_BINDING_COLUMNS,
  "resource.k8s.io/deviceclasses": DEVICE_CLASS_COLUMNS,
  "resource.k8s.io/resourceclaims": RESOURCE_CLAIM_COLUMNS,
  "resource.k8s.io/resourceclaimtemplates": RESOURCE_CLAIM_TEMPLATE_COLUMNS,
  "resource.k8s.io/resourceslices": RESOURCE_SLICE_COLUMNS,
  "scheduling.k8s.io/priorityclasses": PRIORITY_CLASS_COLUMNS,
  "storage.k8s.io/csidrivers": CSI_DRIVER_COLUMNS,
  "storage.k8s.io/csinodes": CSI_NODE_COLUMNS,
  "storage.k8s.io/storageclasses": STORAGE_CLASS_COLUMNS,
  "storage.k8s.io/volumeattachments": VOLUME_ATTACHMENT_COLUMNS,
  "storage.k8s.io/volumeattributesclasses": VOLUME_ATTRIBUTES_CLASS_COLUMNS,
};

/** The kinds whose Table rows kube's printers list in an order of their own, by `group/plural`. */
export const TABLE_ORDER_BY_RESOURCE: Readonly<Record<string, Strategy["tableOrder"]>> = {
  "flowcontrol.apiserver.k8s.io/flowschemas": flowSchemaOrder,
};
