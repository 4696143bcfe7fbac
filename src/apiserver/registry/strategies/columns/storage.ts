import type { KubeObject } from "../../../../core/index.ts";
import type { TableColumn } from "../../strategy.ts";
import { AGE, at, count, defaultMarked, NAME, quantity, str, strings } from "./common.ts";

/*
 * The columns of volumes and their classes: PersistentVolumes, PersistentVolumeClaims,
 * StorageClasses, CSIDrivers, CSINodes, VolumeAttachments and VolumeAttributesClasses.
 */

/** Access modes abbreviated in kube's order (`RWO,ROX,RWX,RWOP`), each once. */
function accessModes(modes: unknown): string {
  const set = new Set(Array.isArray(modes) ? modes : []);
  const order: [string, string][] = [
    ["ReadWriteOnce", "RWO"],
    ["ReadOnlyMany", "ROX"],
    ["ReadWriteMany", "RWX"],
    ["ReadWriteOncePod", "RWOP"],
  ];
  return order
    .filter(([mode]) => set.has(mode))
    .map(([, short]) => short)
    .join(",");
}

/** The phase, or `Terminating` while the object is being deleted. */
function phase(object: KubeObject): string {
  return object.metadata?.deletionTimestamp === undefined
    ? str(object, "status.phase")
    : "Terminating";
}

/** The class of a volume or claim: the beta annotation first, then `field`. */
function storageClass(object: KubeObject, field: string): string {
  const beta = object.metadata?.annotations?.["volume.beta.kubernetes.io/storage-class"];
  return beta ?? str(object, field);
}

/** A claim is bound once it names its volume: capacity and access modes print only then. */
const bound = (claim: KubeObject) => str(claim, "spec.volumeName") !== "";

/** The audiences of a CSIDriver's token requests, `<unset>` when it requests none. */
function tokenRequests(driver: KubeObject): string {
  const requests = at(driver, "spec.tokenRequests");
  if (!Array.isArray(requests)) return "<unset>";
  return requests.map((r) => str(r, "audience")).join(",");
}

/** `kubectl get persistentvolumes [-o wide]`. */
export const PERSISTENT_VOLUME_COLUMNS: readonly TableColumn[] = [
  NAME,
  {
    name: "Capacity",
    type: "string",
    description:
      "capacity is the description of the persistent volume's resources and capacity. More info: https://kubernetes.io/docs/concepts/storage/persistent-volumes#capacity",
    cell: (o) => quantity(at(o, "spec.capacity.storage")),
  },
  {
    name: "Access Modes",
    type: "string",
    description:
      "accessModes contains all ways the volume can be mounted. More info: https://kubernetes.io/docs/concepts/storage/persistent-volumes#access-modes",
    cell: (o) => accessModes(at(o, "spec.accessModes")),
  },
  {
    name: "Reclaim Policy",
    type: "string",
    description:
      "persistentVolumeReclaimPolicy defines what happens to a persistent volume when released from its claim. Valid options are Retain (default for manually created PersistentVolumes), Delete (default for dynamically provisioned PersistentVolumes), and Recycle (deprecated). Recycle must be supported by the volume plugin underlying this PersistentVolume. More info: https://kubernetes.io/docs/concepts/storage/persistent-volumes#reclaiming",
    cell: (o) => str(o, "spec.persistentVolumeReclaimPolicy"),
  },
  {
    name: "Status",
    type: "string",
    description:
      "phase indicates if a volume is available, bound to a claim, or released by a claim. More info: https://kubernetes.io/docs/concepts/storage/persistent-volumes#phase",
    cell: phase,
  },
  {
    name: "Claim",
    type: "string",
    description:
      "claimRef is part of a bi-directional binding between PersistentVolume and PersistentVolumeClaim. Expected to be non-nil when bound. claim.VolumeName is the authoritative bind between PV and PVC. More info: https://kubernetes.io/docs/concepts/storage/persistent-volumes#binding",
    cell: (o) =>
      at(o, "spec.claimRef") === undefined
        ? ""
        : `${str(o, "spec.claimRef.namespace")}/${str(o, "spec.claimRef.name")}`,
  },
  {
    name: "StorageClass",
    type: "string",
    description: "StorageClass of the pv",
    cell: (o) => storageClass(o, "spec.storageClassName"),
  },
  {
    name: "VolumeAttributesClass",
    type: "string",
    description: "VolumeAttributesClass of the pv",
    cell: (o) => str(o, "spec.volumeAttributesClassName", "<unset>"),
  },
  {
    name: "Reason",
    type: "string",
    description:
      "reason is a brief CamelCase string that describes any failure and is meant for machine parsing and tidy display in the CLI.",
    cell: (o) => str(o, "status.reason"),
  },
  AGE,
  {
    name: "VolumeMode",
    type: "string",
    priority: 1,
    description:
      "volumeMode defines if a volume is intended to be used with a formatted filesystem or to remain in raw block state. Value of Filesystem is implied when not included in spec.",
    cell: (o) => str(o, "spec.volumeMode", "<unset>"),
  },
];

/** `kubectl get persistentvolumeclaims [-o wide]`: capacity and access modes once bound. */
export const PERSISTENT_VOLUME_CLAIM_COLUMNS: readonly TableColumn[] = [
  NAME,
  {
    name: "Status",
    type: "string",
    description: "phase represents the current phase of PersistentVolumeClaim.",
    cell: phase,
  },
  {
    name: "Volume",
    type: "string",
    description: "volumeName is the binding reference to the PersistentVolume backing this claim.",
    cell: (o) => str(o, "spec.volumeName"),
  },
  {
    name: "Capacity",
    type: "string",
    description: "capacity represents the actual resources of the underlying volume.",
    cell: (o) => (bound(o) ? quantity(at(o, "status.capacity.storage")) : ""),
  },
  {
    name: "Access Modes",
    type: "string",
    description:
      "accessModes contains the actual access modes the volume backing the PVC has. More info: https://kubernetes.io/docs/concepts/storage/persistent-volumes#access-modes-1",
    cell: (o) => (bound(o) ? accessModes(at(o, "status.accessModes")) : ""),
  },
  {
    name: "StorageClass",
    type: "string",
    description: "StorageClass of the pvc",
    cell: (o) => storageClass(o, "spec.storageClassName"),
  },
  {
    name: "VolumeAttributesClass",
    type: "string",
    description: "VolumeAttributesClass of the pvc",
    cell: (o) => str(o, "spec.volumeAttributesClassName", "<unset>"),
  },
  AGE,
  {
    name: "VolumeMode",
    type: "string",
    priority: 1,
    description:
      "volumeMode defines what type of volume is required by the claim. Value of Filesystem is implied when not included in claim spec.",
    cell: (o) => str(o, "spec.volumeMode", "<unset>"),
  },
];

/** `kubectl get storageclasses`: the default class is named `name (default)`. */
export const STORAGE_CLASS_COLUMNS: readonly TableColumn[] = [
  {
    ...NAME,
    cell: defaultMarked(
      "storageclass.kubernetes.io/is-default-class",
      "storageclass.beta.kubernetes.io/is-default-class",
    ),
  },
  {
    name: "Provisioner",
    type: "string",
    description: "provisioner indicates the type of the provisioner.",
    cell: (o) => str(o, "provisioner"),
  },
  {
    name: "ReclaimPolicy",
    type: "string",
    description:
      "reclaimPolicy controls the reclaimPolicy for dynamically provisioned PersistentVolumes of this storage class. Defaults to Delete.",
    cell: (o) => str(o, "reclaimPolicy", "Delete"),
  },
  {
    name: "VolumeBindingMode",
    type: "string",
    description:
      "volumeBindingMode indicates how PersistentVolumeClaims should be provisioned and bound.  When unset, VolumeBindingImmediate is used. This field is only honored by servers that enable the VolumeScheduling feature.",
    cell: (o) => str(o, "volumeBindingMode", "Immediate"),
  },
  {
    name: "AllowVolumeExpansion",
    type: "string",
    description: "allowVolumeExpansion shows whether the storage class allow volume expand.",
    cell: (o) => at(o, "allowVolumeExpansion") === true,
  },
  AGE,
];

/** `kubectl get csidrivers`, with kube's defaults for unset fields. */
export const CSI_DRIVER_COLUMNS: readonly TableColumn[] = [
  NAME,
  {
    name: "AttachRequired",
    type: "boolean",
    description:
      "attachRequired indicates this CSI volume driver requires an attach operation (because it implements the CSI ControllerPublishVolume() method), and that the Kubernetes attach detach controller should call the attach volume interface which checks the volumeattachment status and waits until the volume is attached before proceeding to mounting. The CSI external-attacher coordinates with CSI volume driver and updates the volumeattachment status when the attach operation is complete. If the value is specified to false, the attach operation will be skipped. Otherwise the attach operation will be called.\n\nThis field is immutable.",
    cell: (o) => at(o, "spec.attachRequired") !== false,
  },
  {
    name: "PodInfoOnMount",
    type: "boolean",
    description:
      'podInfoOnMount indicates this CSI volume driver requires additional pod information (like podName, podUID, etc.) during mount operations, if set to true. If set to false, pod information will not be passed on mount. Default is false.\n\nThe CSI driver specifies podInfoOnMount as part of driver deployment. If true, Kubelet will pass pod information as VolumeContext in the CSI NodePublishVolume() calls. The CSI driver is responsible for parsing and validating the information passed in as VolumeContext.\n\nThe following VolumeContext will be passed if podInfoOnMount is set to true. This list might grow, but the prefix will be used. "csi.storage.k8s.io/pod.name": pod.Name "csi.storage.k8s.io/pod.namespace": pod.Namespace "csi.storage.k8s.io/pod.uid": string(pod.UID) "csi.storage.k8s.io/ephemeral": "true" if the volume is an ephemeral inline volume\n                                defined by a CSIVolumeSource, otherwise "false"\n\n"csi.storage.k8s.io/ephemeral" is a new feature in Kubernetes 1.16. It is only required for drivers which support both the "Persistent" and "Ephemeral" VolumeLifecycleMode. Other drivers can leave pod info disabled and/or ignore this field. As Kubernetes 1.15 doesn\'t support this field, drivers can only support one mode when deployed on such a cluster and the deployment determines which mode that is, for example via a command line parameter of the driver.\n\nThis field was immutable in Kubernetes < 1.29 and now is mutable.',
    cell: (o) => at(o, "spec.podInfoOnMount") === true,
  },
  {
    name: "StorageCapacity",
    type: "boolean",
    description:
      "storageCapacity indicates that the CSI volume driver wants pod scheduling to consider the storage capacity that the driver deployment will report by creating CSIStorageCapacity objects with capacity information, if set to true.\n\nThe check can be enabled immediately when deploying a driver. In that case, provisioning new volumes with late binding will pause until the driver deployment has published some suitable CSIStorageCapacity object.\n\nAlternatively, the driver can be deployed with the field unset or false and it can be flipped later when storage capacity information has been published.\n\nThis field was immutable in Kubernetes <= 1.22 and now is mutable.",
    cell: (o) => at(o, "spec.storageCapacity") === true,
  },
  {
    name: "TokenRequests",
    type: "string",
    description:
      'tokenRequests indicates the CSI driver needs pods\' service account tokens it is mounting volume for to do necessary authentication. Kubelet will pass the tokens in VolumeContext in the CSI NodePublishVolume calls. The CSI driver should parse and validate the following VolumeContext: "csi.storage.k8s.io/serviceAccount.tokens": {\n  "<audience>": {\n    "token": <token>,\n    "expirationTimestamp": <expiration timestamp in RFC3339>,\n  },\n  ...\n}\n\nNote: Audience in each TokenRequest should be different and at most one token is empty string. To receive a new token after expiry, RequiresRepublish can be used to trigger NodePublishVolume periodically.',
    cell: tokenRequests,
  },
  {
    name: "RequiresRepublish",
    type: "boolean",
    description:
      "requiresRepublish indicates the CSI driver wants `NodePublishVolume` being periodically called to reflect any possible change in the mounted volume. This field defaults to false.\n\nNote: After a successful initial NodePublishVolume call, subsequent calls to NodePublishVolume should only update the contents of the volume. New mount points will not be seen by a running container.",
    cell: (o) => at(o, "spec.requiresRepublish") === true,
  },
  {
    name: "Modes",
    type: "string",
    description:
      'volumeLifecycleModes defines what kind of volumes this CSI volume driver supports. The default if the list is empty is "Persistent", which is the usage defined by the CSI specification and implemented in Kubernetes via the usual PV/PVC mechanism.\n\nThe other mode is "Ephemeral". In this mode, volumes are defined inline inside the pod spec with CSIVolumeSource and their lifecycle is tied to the lifecycle of that pod. A driver has to be aware of this because it is only going to get a NodePublishVolume call for such a volume.\n\nFor more information about implementing this mode, see https://kubernetes-csi.github.io/docs/ephemeral-local-volumes.html A driver can support one or more of these modes and more modes may be added in the future.\n\nThis field is beta. This field is immutable.',
    cell: (o) => strings(o, "spec.volumeLifecycleModes").join(",") || "<none>",
  },
  AGE,
];

/** `kubectl get csinodes`. */
export const CSI_NODE_COLUMNS: readonly TableColumn[] = [
  NAME,
  {
    name: "Drivers",
    type: "integer",
    description: "Drivers indicates the number of CSI drivers registered on the node",
    cell: (o) => count(o, "spec.drivers"),
  },
  AGE,
];

/** `kubectl get volumeattachments`. */
export const VOLUME_ATTACHMENT_COLUMNS: readonly TableColumn[] = [
  NAME,
  {
    name: "Attacher",
    type: "string",
    format: "name",
    description:
      "attacher indicates the name of the volume driver that MUST handle this request. This is the name returned by GetPluginName().",
    cell: (o) => str(o, "spec.attacher"),
  },
  {
    name: "PV",
    type: "string",
    description: "persistentVolumeName represents the name of the persistent volume to attach.",
    cell: (o) => str(o, "spec.source.persistentVolumeName"),
  },
  {
    name: "Node",
    type: "string",
    description: "nodeName represents the node that the volume should be attached to.",
    cell: (o) => str(o, "spec.nodeName"),
  },
  {
    name: "Attached",
    type: "boolean",
    description:
      "attached indicates the volume is successfully attached. This field must only be set by the entity completing the attach operation, i.e. the external-attacher.",
    cell: (o) => at(o, "status.attached") === true,
  },
  AGE,
];

/** `kubectl get volumeattributesclasses`. */
export const VOLUME_ATTRIBUTES_CLASS_COLUMNS: readonly TableColumn[] = [
  NAME,
  {
    name: "DriverName",
    type: "string",
    description: "Name of the CSI driver This field is immutable.",
    cell: (o) => str(o, "driverName"),
  },
  AGE,
];
