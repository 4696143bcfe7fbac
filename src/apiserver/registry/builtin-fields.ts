// Generated from @kubernetes/client-node's models by test/apiserver/builtin-fields.test.ts
// (KONTROLLER_UPDATE_BUILTIN_FIELDS=1): do not edit. A data table, one entry per type.

/**
 * The fields of each type, space-separated: `name` for a scalar (or a list or map of scalars),
 * `name:T` for a field of type T, `name:[]T` / `name:{}T` for a list / map of T (wrappers
 * nest, outermost first), `name:*` for arbitrary JSON.
 */
export const BUILTIN_TYPES: Readonly<Record<string, string>> = {
  ApiextensionsV1ServiceReference: "name namespace path port",
  ApiextensionsV1WebhookClientConfig: "caBundle service:ApiextensionsV1ServiceReference url",
  CoreV1Event:
    "action apiVersion count eventTime firstTimestamp involvedObject:V1ObjectReference kind lastTimestamp message metadata:V1ObjectMeta reason related:V1ObjectReference reportingComponent reportingInstance series:CoreV1EventSeries source:V1EventSource type",
  CoreV1EventSeries: "count lastObservedTime",
  CoreV1ResourceClaim: "name request",
  V1AWSElasticBlockStoreVolumeSource: "fsType partition readOnly volumeID",
  V1Affinity:
    "nodeAffinity:V1NodeAffinity podAffinity:V1PodAffinity podAntiAffinity:V1PodAntiAffinity",
  V1AppArmorProfile: "localhostProfile type",
  V1AttachedVolume: "devicePath name",
  V1AzureDiskVolumeSource: "cachingMode diskName diskURI fsType kind readOnly",
  V1AzureFileVolumeSource: "readOnly secretName shareName",
  V1CSIVolumeSource:
    "driver fsType nodePublishSecretRef:V1LocalObjectReference readOnly volumeAttributes",
  V1Capabilities: "add drop",
  V1CephFSVolumeSource: "monitors path readOnly secretFile secretRef:V1LocalObjectReference user",
  V1CinderVolumeSource: "fsType readOnly secretRef:V1LocalObjectReference volumeID",
  V1ClientIPConfig: "timeoutSeconds",
  V1ClusterTrustBundleProjection: "labelSelector:V1LabelSelector name optional path signerName",
  V1Condition: "lastTransitionTime message observedGeneration reason status type",
  V1ConfigMap: "apiVersion binaryData data immutable kind metadata:V1ObjectMeta",
  V1ConfigMapEnvSource: "name optional",
  V1ConfigMapKeySelector: "key name optional",
  V1ConfigMapNodeConfigSource: "kubeletConfigKey name namespace resourceVersion uid",
  V1ConfigMapProjection: "items:[]V1KeyToPath name optional",
  V1ConfigMapVolumeSource: "defaultMode items:[]V1KeyToPath name optional",
  V1Container:
    "args command env:[]V1EnvVar envFrom:[]V1EnvFromSource image imagePullPolicy lifecycle:V1Lifecycle livenessProbe:V1Probe name ports:[]V1ContainerPort readinessProbe:V1Probe resizePolicy:[]V1ContainerResizePolicy resources:V1ResourceRequirements restartPolicy restartPolicyRules:[]V1ContainerRestartRule securityContext:V1SecurityContext startupProbe:V1Probe stdin stdinOnce terminationMessagePath terminationMessagePolicy tty volumeDevices:[]V1VolumeDevice volumeMounts:[]V1VolumeMount workingDir",
  V1ContainerExtendedResourceRequest: "containerName requestName resourceName",
  V1ContainerImage: "names sizeBytes",
  V1ContainerPort: "containerPort hostIP hostPort name protocol",
  V1ContainerResizePolicy: "resourceName restartPolicy",
  V1ContainerRestartRule: "action exitCodes:V1ContainerRestartRuleOnExitCodes",
  V1ContainerRestartRuleOnExitCodes: "operator values",
  V1ContainerState:
    "running:V1ContainerStateRunning terminated:V1ContainerStateTerminated waiting:V1ContainerStateWaiting",
  V1ContainerStateRunning: "startedAt",
  V1ContainerStateTerminated: "containerID exitCode finishedAt message reason signal startedAt",
  V1ContainerStateWaiting: "message reason",
  V1ContainerStatus:
    "allocatedResources allocatedResourcesStatus:[]V1ResourceStatus containerID image imageID lastState:V1ContainerState name ready resources:V1ResourceRequirements restartCount started state:V1ContainerState stopSignal user:V1ContainerUser volumeMounts:[]V1VolumeMountStatus",
  V1ContainerUser: "linux:V1LinuxContainerUser",
  V1CronJob: "apiVersion kind metadata:V1ObjectMeta spec:V1CronJobSpec status:V1CronJobStatus",
  V1CronJobSpec:
    "concurrencyPolicy failedJobsHistoryLimit jobTemplate:V1JobTemplateSpec schedule startingDeadlineSeconds successfulJobsHistoryLimit suspend timeZone",
  V1CronJobStatus: "active:[]V1ObjectReference lastScheduleTime lastSuccessfulTime",
  V1CustomResourceColumnDefinition: "description format jsonPath name priority type",
  V1CustomResourceConversion: "strategy webhook:V1WebhookConversion",
  V1CustomResourceDefinition:
    "apiVersion kind metadata:V1ObjectMeta spec:V1CustomResourceDefinitionSpec status:V1CustomResourceDefinitionStatus",
  V1CustomResourceDefinitionCondition:
    "lastTransitionTime message observedGeneration reason status type",
  V1CustomResourceDefinitionNames: "categories kind listKind plural shortNames singular",
  V1CustomResourceDefinitionSpec:
    "conversion:V1CustomResourceConversion group names:V1CustomResourceDefinitionNames preserveUnknownFields scope versions:[]V1CustomResourceDefinitionVersion",
  V1CustomResourceDefinitionStatus:
    "acceptedNames:V1CustomResourceDefinitionNames conditions:[]V1CustomResourceDefinitionCondition observedGeneration storedVersions",
  V1CustomResourceDefinitionVersion:
    "additionalPrinterColumns:[]V1CustomResourceColumnDefinition deprecated deprecationWarning name schema:V1CustomResourceValidation selectableFields:[]V1SelectableField served storage subresources:V1CustomResourceSubresources",
  V1CustomResourceSubresourceScale: "labelSelectorPath specReplicasPath statusReplicasPath",
  V1CustomResourceSubresources: "scale:V1CustomResourceSubresourceScale status:*",
  V1CustomResourceValidation: "openAPIV3Schema:V1JSONSchemaProps",
  V1DaemonEndpoint: "Port",
  V1DaemonSet:
    "apiVersion kind metadata:V1ObjectMeta spec:V1DaemonSetSpec status:V1DaemonSetStatus",
  V1DaemonSetCondition: "lastTransitionTime message reason status type",
  V1DaemonSetSpec:
    "minReadySeconds revisionHistoryLimit selector:V1LabelSelector template:V1PodTemplateSpec updateStrategy:V1DaemonSetUpdateStrategy",
  V1DaemonSetStatus:
    "collisionCount conditions:[]V1DaemonSetCondition currentNumberScheduled desiredNumberScheduled numberAvailable numberMisscheduled numberReady numberUnavailable observedGeneration updatedNumberScheduled",
  V1DaemonSetUpdateStrategy: "rollingUpdate:V1RollingUpdateDaemonSet type",
  V1Deployment:
    "apiVersion kind metadata:V1ObjectMeta spec:V1DeploymentSpec status:V1DeploymentStatus",
  V1DeploymentCondition: "lastTransitionTime lastUpdateTime message reason status type",
  V1DeploymentSpec:
    "minReadySeconds paused progressDeadlineSeconds replicas revisionHistoryLimit selector:V1LabelSelector strategy:V1DeploymentStrategy template:V1PodTemplateSpec",
  V1DeploymentStatus:
    "availableReplicas collisionCount conditions:[]V1DeploymentCondition observedGeneration readyReplicas replicas terminatingReplicas unavailableReplicas updatedReplicas",
  V1DeploymentStrategy: "rollingUpdate:V1RollingUpdateDeployment type",
  V1DownwardAPIProjection: "items:[]V1DownwardAPIVolumeFile",
  V1DownwardAPIVolumeFile:
    "fieldRef:V1ObjectFieldSelector mode path resourceFieldRef:V1ResourceFieldSelector",
  V1DownwardAPIVolumeSource: "defaultMode items:[]V1DownwardAPIVolumeFile",
  V1EmptyDirVolumeSource: "medium sizeLimit",
  V1EnvFromSource: "configMapRef:V1ConfigMapEnvSource prefix secretRef:V1SecretEnvSource",
  V1EnvVar: "name value valueFrom:V1EnvVarSource",
  V1EnvVarSource:
    "configMapKeyRef:V1ConfigMapKeySelector fieldRef:V1ObjectFieldSelector fileKeyRef:V1FileKeySelector resourceFieldRef:V1ResourceFieldSelector secretKeyRef:V1SecretKeySelector",
  V1EphemeralContainer:
    "args command env:[]V1EnvVar envFrom:[]V1EnvFromSource image imagePullPolicy lifecycle:V1Lifecycle livenessProbe:V1Probe name ports:[]V1ContainerPort readinessProbe:V1Probe resizePolicy:[]V1ContainerResizePolicy resources:V1ResourceRequirements restartPolicy restartPolicyRules:[]V1ContainerRestartRule securityContext:V1SecurityContext startupProbe:V1Probe stdin stdinOnce targetContainerName terminationMessagePath terminationMessagePolicy tty volumeDevices:[]V1VolumeDevice volumeMounts:[]V1VolumeMount workingDir",
  V1EphemeralVolumeSource: "volumeClaimTemplate:V1PersistentVolumeClaimTemplate",
  V1EventSource: "component host",
  V1ExecAction: "command",
  V1ExternalDocumentation: "description url",
  V1FCVolumeSource: "fsType lun readOnly targetWWNs wwids",
  V1FileKeySelector: "key optional path volumeName",
  V1FlexVolumeSource: "driver fsType options readOnly secretRef:V1LocalObjectReference",
  V1FlockerVolumeSource: "datasetName datasetUUID",
  V1GCEPersistentDiskVolumeSource: "fsType partition pdName readOnly",
  V1GRPCAction: "port service",
  V1GitRepoVolumeSource: "directory repository revision",
  V1GlusterfsVolumeSource: "endpoints path readOnly",
  V1HTTPGetAction: "host httpHeaders:[]V1HTTPHeader path port scheme",
  V1HTTPHeader: "name value",
  V1HostAlias: "hostnames ip",
  V1HostIP: "ip",
  V1HostPathVolumeSource: "path type",
  V1ISCSIVolumeSource:
    "chapAuthDiscovery chapAuthSession fsType initiatorName iqn iscsiInterface lun portals readOnly secretRef:V1LocalObjectReference targetPortal",
  V1ImageVolumeSource: "pullPolicy reference",
  V1ImageVolumeStatus: "imageRef",
  V1JSONSchemaProps:
    "$ref $schema additionalItems:* additionalProperties:* allOf:[]V1JSONSchemaProps anyOf:[]V1JSONSchemaProps default:* definitions:{}V1JSONSchemaProps dependencies:* description enum:* example:* exclusiveMaximum exclusiveMinimum externalDocs:V1ExternalDocumentation format id items:* maxItems maxLength maxProperties maximum minItems minLength minProperties minimum multipleOf not:V1JSONSchemaProps nullable oneOf:[]V1JSONSchemaProps pattern patternProperties:{}V1JSONSchemaProps properties:{}V1JSONSchemaProps required title type uniqueItems x-kubernetes-embedded-resource x-kubernetes-int-or-string x-kubernetes-list-map-keys x-kubernetes-list-type x-kubernetes-map-type x-kubernetes-preserve-unknown-fields x-kubernetes-validations:[]V1ValidationRule",
  V1Job: "apiVersion kind metadata:V1ObjectMeta spec:V1JobSpec status:V1JobStatus",
  V1JobCondition: "lastProbeTime lastTransitionTime message reason status type",
  V1JobSpec:
    "activeDeadlineSeconds backoffLimit backoffLimitPerIndex completionMode completions managedBy manualSelector maxFailedIndexes parallelism podFailurePolicy:V1PodFailurePolicy podReplacementPolicy selector:V1LabelSelector successPolicy:V1SuccessPolicy suspend template:V1PodTemplateSpec ttlSecondsAfterFinished",
  V1JobStatus:
    "active completedIndexes completionTime conditions:[]V1JobCondition failed failedIndexes ready startTime succeeded terminating uncountedTerminatedPods:V1UncountedTerminatedPods",
  V1JobTemplateSpec: "metadata:V1ObjectMeta spec:V1JobSpec",
  V1KeyToPath: "key mode path",
  V1LabelSelector: "matchExpressions:[]V1LabelSelectorRequirement matchLabels",
  V1LabelSelectorRequirement: "key operator values",
  V1Lease: "apiVersion kind metadata:V1ObjectMeta spec:V1LeaseSpec",
  V1LeaseSpec:
    "acquireTime holderIdentity leaseDurationSeconds leaseTransitions preferredHolder renewTime strategy",
  V1Lifecycle: "postStart:V1LifecycleHandler preStop:V1LifecycleHandler stopSignal",
  V1LifecycleHandler:
    "exec:V1ExecAction httpGet:V1HTTPGetAction sleep:V1SleepAction tcpSocket:V1TCPSocketAction",
  V1LinuxContainerUser: "gid supplementalGroups uid",
  V1LoadBalancerIngress: "hostname ip ipMode ports:[]V1PortStatus",
  V1LoadBalancerStatus: "ingress:[]V1LoadBalancerIngress",
  V1LocalObjectReference: "name",
  V1ManagedFieldsEntry: "apiVersion fieldsType fieldsV1:* manager operation subresource time",
  V1ModifyVolumeStatus: "status targetVolumeAttributesClassName",
  V1NFSVolumeSource: "path readOnly server",
  V1Namespace:
    "apiVersion kind metadata:V1ObjectMeta spec:V1NamespaceSpec status:V1NamespaceStatus",
  V1NamespaceCondition: "lastTransitionTime message reason status type",
  V1NamespaceSpec: "finalizers",
  V1NamespaceStatus: "conditions:[]V1NamespaceCondition phase",
  V1Node: "apiVersion kind metadata:V1ObjectMeta spec:V1NodeSpec status:V1NodeStatus",
  V1NodeAddress: "address type",
  V1NodeAffinity:
    "preferredDuringSchedulingIgnoredDuringExecution:[]V1PreferredSchedulingTerm requiredDuringSchedulingIgnoredDuringExecution:V1NodeSelector",
  V1NodeAllocatableResourceClaimStatus: "containers resourceClaimName resources",
  V1NodeCondition: "lastHeartbeatTime lastTransitionTime message reason status type",
  V1NodeConfigSource: "configMap:V1ConfigMapNodeConfigSource",
  V1NodeConfigStatus:
    "active:V1NodeConfigSource assigned:V1NodeConfigSource error lastKnownGood:V1NodeConfigSource",
  V1NodeDaemonEndpoints: "kubeletEndpoint:V1DaemonEndpoint",
  V1NodeFeatures: "supplementalGroupsPolicy",
  V1NodeRuntimeHandler: "features:V1NodeRuntimeHandlerFeatures name",
  V1NodeRuntimeHandlerFeatures: "recursiveReadOnlyMounts userNamespaces",
  V1NodeSelector: "nodeSelectorTerms:[]V1NodeSelectorTerm",
  V1NodeSelectorRequirement: "key operator values",
  V1NodeSelectorTerm:
    "matchExpressions:[]V1NodeSelectorRequirement matchFields:[]V1NodeSelectorRequirement",
  V1NodeSpec:
    "configSource:V1NodeConfigSource externalID podCIDR podCIDRs providerID taints:[]V1Taint unschedulable",
  V1NodeStatus:
    "addresses:[]V1NodeAddress allocatable capacity conditions:[]V1NodeCondition config:V1NodeConfigStatus daemonEndpoints:V1NodeDaemonEndpoints declaredFeatures features:V1NodeFeatures images:[]V1ContainerImage nodeInfo:V1NodeSystemInfo phase runtimeHandlers:[]V1NodeRuntimeHandler volumesAttached:[]V1AttachedVolume volumesInUse",
  V1NodeSwapStatus: "capacity",
  V1NodeSystemInfo:
    "architecture bootID containerRuntimeVersion kernelVersion kubeProxyVersion kubeletVersion machineID operatingSystem osImage swap:V1NodeSwapStatus systemUUID",
  V1ObjectFieldSelector: "apiVersion fieldPath",
  V1ObjectMeta:
    "annotations creationTimestamp deletionGracePeriodSeconds deletionTimestamp finalizers generateName generation labels managedFields:[]V1ManagedFieldsEntry name namespace ownerReferences:[]V1OwnerReference resourceVersion selfLink uid",
  V1ObjectReference: "apiVersion fieldPath kind name namespace resourceVersion uid",
  V1OwnerReference: "apiVersion blockOwnerDeletion controller kind name uid",
  V1PersistentVolumeClaim:
    "apiVersion kind metadata:V1ObjectMeta spec:V1PersistentVolumeClaimSpec status:V1PersistentVolumeClaimStatus",
  V1PersistentVolumeClaimCondition: "lastProbeTime lastTransitionTime message reason status type",
  V1PersistentVolumeClaimSpec:
    "accessModes dataSource:V1TypedLocalObjectReference dataSourceRef:V1TypedObjectReference resources:V1VolumeResourceRequirements selector:V1LabelSelector storageClassName volumeAttributesClassName volumeMode volumeName",
  V1PersistentVolumeClaimStatus:
    "accessModes allocatedResourceStatuses allocatedResources capacity conditions:[]V1PersistentVolumeClaimCondition currentVolumeAttributesClassName modifyVolumeStatus:V1ModifyVolumeStatus phase",
  V1PersistentVolumeClaimTemplate: "metadata:V1ObjectMeta spec:V1PersistentVolumeClaimSpec",
  V1PersistentVolumeClaimVolumeSource: "claimName readOnly",
  V1PhotonPersistentDiskVolumeSource: "fsType pdID",
  V1Pod: "apiVersion kind metadata:V1ObjectMeta spec:V1PodSpec status:V1PodStatus",
  V1PodAffinity:
    "preferredDuringSchedulingIgnoredDuringExecution:[]V1WeightedPodAffinityTerm requiredDuringSchedulingIgnoredDuringExecution:[]V1PodAffinityTerm",
  V1PodAffinityTerm:
    "labelSelector:V1LabelSelector matchLabelKeys mismatchLabelKeys namespaceSelector:V1LabelSelector namespaces topologyKey",
  V1PodAntiAffinity:
    "preferredDuringSchedulingIgnoredDuringExecution:[]V1WeightedPodAffinityTerm requiredDuringSchedulingIgnoredDuringExecution:[]V1PodAffinityTerm",
  V1PodCertificateProjection:
    "certificateChainPath credentialBundlePath keyPath keyType maxExpirationSeconds signerName userAnnotations",
  V1PodCondition: "lastProbeTime lastTransitionTime message observedGeneration reason status type",
  V1PodDNSConfig: "nameservers options:[]V1PodDNSConfigOption searches",
  V1PodDNSConfigOption: "name value",
  V1PodExtendedResourceClaimStatus:
    "requestMappings:[]V1ContainerExtendedResourceRequest resourceClaimName",
  V1PodFailurePolicy: "rules:[]V1PodFailurePolicyRule",
  V1PodFailurePolicyOnExitCodesRequirement: "containerName operator values",
  V1PodFailurePolicyOnPodConditionsPattern: "status type",
  V1PodFailurePolicyRule:
    "action onExitCodes:V1PodFailurePolicyOnExitCodesRequirement onPodConditions:[]V1PodFailurePolicyOnPodConditionsPattern",
  V1PodIP: "ip",
  V1PodOS: "name",
  V1PodReadinessGate: "conditionType",
  V1PodResourceClaim: "name resourceClaimName resourceClaimTemplateName",
  V1PodResourceClaimStatus: "name resourceClaimName",
  V1PodSchedulingGate: "name",
  V1PodSchedulingGroup: "podGroupName",
  V1PodSecurityContext:
    "appArmorProfile:V1AppArmorProfile fsGroup fsGroupChangePolicy runAsGroup runAsNonRoot runAsUser seLinuxChangePolicy seLinuxOptions:V1SELinuxOptions seccompProfile:V1SeccompProfile supplementalGroups supplementalGroupsPolicy sysctls:[]V1Sysctl windowsOptions:V1WindowsSecurityContextOptions",
  V1PodSpec:
    "activeDeadlineSeconds affinity:V1Affinity automountServiceAccountToken containers:[]V1Container dnsConfig:V1PodDNSConfig dnsPolicy enableServiceLinks ephemeralContainers:[]V1EphemeralContainer hostAliases:[]V1HostAlias hostIPC hostNetwork hostPID hostUsers hostname hostnameOverride imagePullSecrets:[]V1LocalObjectReference initContainers:[]V1Container nodeName nodeSelector os:V1PodOS overhead preemptionPolicy priority priorityClassName readinessGates:[]V1PodReadinessGate resourceClaims:[]V1PodResourceClaim resources:V1ResourceRequirements restartPolicy runtimeClassName schedulerName schedulingGates:[]V1PodSchedulingGate schedulingGroup:V1PodSchedulingGroup securityContext:V1PodSecurityContext serviceAccount serviceAccountName setHostnameAsFQDN shareProcessNamespace subdomain terminationGracePeriodSeconds tolerations:[]V1Toleration topologySpreadConstraints:[]V1TopologySpreadConstraint volumes:[]V1Volume",
  V1PodStatus:
    "allocatedResources conditions:[]V1PodCondition containerStatuses:[]V1ContainerStatus ephemeralContainerStatuses:[]V1ContainerStatus extendedResourceClaimStatus:V1PodExtendedResourceClaimStatus hostIP hostIPs:[]V1HostIP initContainerStatuses:[]V1ContainerStatus message nodeAllocatableResourceClaimStatuses:[]V1NodeAllocatableResourceClaimStatus nominatedNodeName observedGeneration phase podIP podIPs:[]V1PodIP qosClass reason resize resourceClaimStatuses:[]V1PodResourceClaimStatus resources:V1ResourceRequirements startTime",
  V1PodTemplate: "apiVersion kind metadata:V1ObjectMeta template:V1PodTemplateSpec",
  V1PodTemplateSpec: "metadata:V1ObjectMeta spec:V1PodSpec",
  V1PortStatus: "error port protocol",
  V1PortworxVolumeSource: "fsType readOnly volumeID",
  V1PreferredSchedulingTerm: "preference:V1NodeSelectorTerm weight",
  V1Probe:
    "exec:V1ExecAction failureThreshold grpc:V1GRPCAction httpGet:V1HTTPGetAction initialDelaySeconds periodSeconds successThreshold tcpSocket:V1TCPSocketAction terminationGracePeriodSeconds timeoutSeconds",
  V1ProjectedVolumeSource: "defaultMode sources:[]V1VolumeProjection",
  V1QuobyteVolumeSource: "group readOnly registry tenant user volume",
  V1RBDVolumeSource:
    "fsType image keyring monitors pool readOnly secretRef:V1LocalObjectReference user",
  V1ReplicaSet:
    "apiVersion kind metadata:V1ObjectMeta spec:V1ReplicaSetSpec status:V1ReplicaSetStatus",
  V1ReplicaSetCondition: "lastTransitionTime message reason status type",
  V1ReplicaSetSpec: "minReadySeconds replicas selector:V1LabelSelector template:V1PodTemplateSpec",
  V1ReplicaSetStatus:
    "availableReplicas conditions:[]V1ReplicaSetCondition fullyLabeledReplicas observedGeneration readyReplicas replicas terminatingReplicas",
  V1ReplicationController:
    "apiVersion kind metadata:V1ObjectMeta spec:V1ReplicationControllerSpec status:V1ReplicationControllerStatus",
  V1ReplicationControllerCondition: "lastTransitionTime message reason status type",
  V1ReplicationControllerSpec: "minReadySeconds replicas selector template:V1PodTemplateSpec",
  V1ReplicationControllerStatus:
    "availableReplicas conditions:[]V1ReplicationControllerCondition fullyLabeledReplicas observedGeneration readyReplicas replicas",
  V1ResourceFieldSelector: "containerName divisor resource",
  V1ResourceHealth: "health message resourceID",
  V1ResourceRequirements: "claims:[]CoreV1ResourceClaim limits requests",
  V1ResourceStatus: "name resources:[]V1ResourceHealth",
  V1RollingUpdateDaemonSet: "maxSurge maxUnavailable",
  V1RollingUpdateDeployment: "maxSurge maxUnavailable",
  V1RollingUpdateStatefulSetStrategy: "maxUnavailable partition",
  V1SELinuxOptions: "level role type user",
  V1ScaleIOVolumeSource:
    "fsType gateway protectionDomain readOnly secretRef:V1LocalObjectReference sslEnabled storageMode storagePool system volumeName",
  V1SeccompProfile: "localhostProfile type",
  V1Secret: "apiVersion data immutable kind metadata:V1ObjectMeta stringData type",
  V1SecretEnvSource: "name optional",
  V1SecretKeySelector: "key name optional",
  V1SecretProjection: "items:[]V1KeyToPath name optional",
  V1SecretVolumeSource: "defaultMode items:[]V1KeyToPath optional secretName",
  V1SecurityContext:
    "allowPrivilegeEscalation appArmorProfile:V1AppArmorProfile capabilities:V1Capabilities privileged procMount readOnlyRootFilesystem runAsGroup runAsNonRoot runAsUser seLinuxOptions:V1SELinuxOptions seccompProfile:V1SeccompProfile windowsOptions:V1WindowsSecurityContextOptions",
  V1SelectableField: "jsonPath",
  V1Service: "apiVersion kind metadata:V1ObjectMeta spec:V1ServiceSpec status:V1ServiceStatus",
  V1ServiceAccount:
    "apiVersion automountServiceAccountToken imagePullSecrets:[]V1LocalObjectReference kind metadata:V1ObjectMeta secrets:[]V1ObjectReference",
  V1ServiceAccountTokenProjection: "audience expirationSeconds path",
  V1ServicePort: "appProtocol name nodePort port protocol targetPort",
  V1ServiceSpec:
    "allocateLoadBalancerNodePorts clusterIP clusterIPs externalIPs externalName externalTrafficPolicy healthCheckNodePort internalTrafficPolicy ipFamilies ipFamilyPolicy loadBalancerClass loadBalancerIP loadBalancerSourceRanges ports:[]V1ServicePort publishNotReadyAddresses selector sessionAffinity sessionAffinityConfig:V1SessionAffinityConfig trafficDistribution type",
  V1ServiceStatus: "conditions:[]V1Condition loadBalancer:V1LoadBalancerStatus",
  V1SessionAffinityConfig: "clientIP:V1ClientIPConfig",
  V1SleepAction: "seconds",
  V1StatefulSet:
    "apiVersion kind metadata:V1ObjectMeta spec:V1StatefulSetSpec status:V1StatefulSetStatus",
  V1StatefulSetCondition: "lastTransitionTime message reason status type",
  V1StatefulSetOrdinals: "start",
  V1StatefulSetPersistentVolumeClaimRetentionPolicy: "whenDeleted whenScaled",
  V1StatefulSetSpec:
    "minReadySeconds ordinals:V1StatefulSetOrdinals persistentVolumeClaimRetentionPolicy:V1StatefulSetPersistentVolumeClaimRetentionPolicy podManagementPolicy replicas revisionHistoryLimit selector:V1LabelSelector serviceName template:V1PodTemplateSpec updateStrategy:V1StatefulSetUpdateStrategy volumeClaimTemplates:[]V1PersistentVolumeClaim",
  V1StatefulSetStatus:
    "availableReplicas collisionCount conditions:[]V1StatefulSetCondition currentReplicas currentRevision observedGeneration readyReplicas replicas updateRevision updatedReplicas",
  V1StatefulSetUpdateStrategy: "rollingUpdate:V1RollingUpdateStatefulSetStrategy type",
  V1StorageOSVolumeSource:
    "fsType readOnly secretRef:V1LocalObjectReference volumeName volumeNamespace",
  V1SuccessPolicy: "rules:[]V1SuccessPolicyRule",
  V1SuccessPolicyRule: "succeededCount succeededIndexes",
  V1Sysctl: "name value",
  V1TCPSocketAction: "host port",
  V1Taint: "effect key timeAdded value",
  V1Toleration: "effect key operator tolerationSeconds value",
  V1TopologySpreadConstraint:
    "labelSelector:V1LabelSelector matchLabelKeys maxSkew minDomains nodeAffinityPolicy nodeTaintsPolicy topologyKey whenUnsatisfiable",
  V1TypedLocalObjectReference: "apiGroup kind name",
  V1TypedObjectReference: "apiGroup kind name namespace",
  V1UncountedTerminatedPods: "failed succeeded",
  V1ValidationRule: "fieldPath message messageExpression optionalOldSelf reason rule",
  V1Volume:
    "awsElasticBlockStore:V1AWSElasticBlockStoreVolumeSource azureDisk:V1AzureDiskVolumeSource azureFile:V1AzureFileVolumeSource cephfs:V1CephFSVolumeSource cinder:V1CinderVolumeSource configMap:V1ConfigMapVolumeSource csi:V1CSIVolumeSource downwardAPI:V1DownwardAPIVolumeSource emptyDir:V1EmptyDirVolumeSource ephemeral:V1EphemeralVolumeSource fc:V1FCVolumeSource flexVolume:V1FlexVolumeSource flocker:V1FlockerVolumeSource gcePersistentDisk:V1GCEPersistentDiskVolumeSource gitRepo:V1GitRepoVolumeSource glusterfs:V1GlusterfsVolumeSource hostPath:V1HostPathVolumeSource image:V1ImageVolumeSource iscsi:V1ISCSIVolumeSource name nfs:V1NFSVolumeSource persistentVolumeClaim:V1PersistentVolumeClaimVolumeSource photonPersistentDisk:V1PhotonPersistentDiskVolumeSource portworxVolume:V1PortworxVolumeSource projected:V1ProjectedVolumeSource quobyte:V1QuobyteVolumeSource rbd:V1RBDVolumeSource scaleIO:V1ScaleIOVolumeSource secret:V1SecretVolumeSource storageos:V1StorageOSVolumeSource vsphereVolume:V1VsphereVirtualDiskVolumeSource",
  V1VolumeDevice: "devicePath name",
  V1VolumeMount: "mountPath mountPropagation name readOnly recursiveReadOnly subPath subPathExpr",
  V1VolumeMountStatus: "mountPath name readOnly recursiveReadOnly volumeStatus:V1VolumeStatus",
  V1VolumeProjection:
    "clusterTrustBundle:V1ClusterTrustBundleProjection configMap:V1ConfigMapProjection downwardAPI:V1DownwardAPIProjection podCertificate:V1PodCertificateProjection secret:V1SecretProjection serviceAccountToken:V1ServiceAccountTokenProjection",
  V1VolumeResourceRequirements: "limits requests",
  V1VolumeStatus: "image:V1ImageVolumeStatus",
  V1VsphereVirtualDiskVolumeSource: "fsType storagePolicyID storagePolicyName volumePath",
  V1WebhookConversion: "clientConfig:ApiextensionsV1WebhookClientConfig conversionReviewVersions",
  V1WeightedPodAffinityTerm: "podAffinityTerm:V1PodAffinityTerm weight",
  V1WindowsSecurityContextOptions:
    "gmsaCredentialSpec gmsaCredentialSpecName hostProcess runAsUserName",
};

/** The root type of each served built-in kind. */
export const BUILTIN_ROOTS: Readonly<Record<string, string>> = {
  Namespace: "V1Namespace",
  ConfigMap: "V1ConfigMap",
  Secret: "V1Secret",
  Service: "V1Service",
  ServiceAccount: "V1ServiceAccount",
  Pod: "V1Pod",
  Node: "V1Node",
  Event: "CoreV1Event",
  Lease: "V1Lease",
  Deployment: "V1Deployment",
  CustomResourceDefinition: "V1CustomResourceDefinition",
  ReplicaSet: "V1ReplicaSet",
  StatefulSet: "V1StatefulSet",
  DaemonSet: "V1DaemonSet",
  Job: "V1Job",
  CronJob: "V1CronJob",
  ReplicationController: "V1ReplicationController",
  PodTemplate: "V1PodTemplate",
};
