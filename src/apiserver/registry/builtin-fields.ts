// Generated from Kubernetes 1.36's OpenAPI documents (../shared/k8s-api) by
// test/apiserver/builtin-fields.test.ts (KONTROLLER_UPDATE_BUILTIN_FIELDS=1): do not edit.
// A data table, one entry per type.

/**
 * The fields of each type, space-separated, each `name` or `name:type`:
 * - no type: a string; `%int32`, `%int64`, `%float64`, `%bool`: a scalar of that Go type;
 *   `%intstr`, `%quantity`: a string or a number; `*`: arbitrary JSON; `*atomic`: arbitrary
 *   JSON replaced whole (a RawExtension); a type name: a struct of that type.
 * - `[…]X`: a list of X (nothing for scalars); between the brackets its list type: nothing for
 *   atomic, `set`, or `map=k1,k2` with its keys (`key:default` where a key has a default
 *   other than "" or 0; a number if it reads as one).
 * - `{}X` / `{atomic}X`: a map of X, merged key by key or replaced whole.
 * - After the type, its strategic merge patch strategy: `/merge=key` (a list merged by that
 *   key), `/merge` (a list of scalars merged as a set), `/retainKeys`, `/replace`.
 * - `name!`: Go always writes the field (a struct held by value) as `{}`; `name~`: as
 *   `null` (a list, map or pointer without `omitempty`).
 * A type whose entry starts with `@atomic` is replaced whole, never merged field by field.
 */
export const BUILTIN_TYPES: Readonly<Record<string, string>> = {
  "admissionregistration.v1.ApplyConfiguration": "expression",
  "admissionregistration.v1.AuditAnnotation": "key valueExpression",
  "admissionregistration.v1.ExpressionWarning": "fieldRef warning",
  "admissionregistration.v1.JSONPatch": "expression",
  "admissionregistration.v1.MatchCondition": "expression name",
  "admissionregistration.v1.MatchResources":
    "@atomic excludeResourceRules:[]admissionregistration.v1.NamedRuleWithOperations matchPolicy namespaceSelector:meta.v1.LabelSelector objectSelector:meta.v1.LabelSelector resourceRules:[]admissionregistration.v1.NamedRuleWithOperations",
  "admissionregistration.v1.MutatingAdmissionPolicy":
    "apiVersion kind metadata!:meta.v1.ObjectMeta spec!:admissionregistration.v1.MutatingAdmissionPolicySpec",
  "admissionregistration.v1.MutatingAdmissionPolicyBinding":
    "apiVersion kind metadata!:meta.v1.ObjectMeta spec!:admissionregistration.v1.MutatingAdmissionPolicyBindingSpec",
  "admissionregistration.v1.MutatingAdmissionPolicyBindingSpec":
    "matchResources:admissionregistration.v1.MatchResources paramRef:admissionregistration.v1.ParamRef policyName",
  "admissionregistration.v1.MutatingAdmissionPolicySpec":
    "failurePolicy matchConditions:[map=name]admissionregistration.v1.MatchCondition/merge=name matchConstraints:admissionregistration.v1.MatchResources mutations:[]admissionregistration.v1.Mutation paramKind:admissionregistration.v1.ParamKind reinvocationPolicy variables:[]admissionregistration.v1.Variable",
  "admissionregistration.v1.MutatingWebhook":
    "admissionReviewVersions~:[] clientConfig!:admissionregistration.v1.WebhookClientConfig failurePolicy matchConditions:[map=name]admissionregistration.v1.MatchCondition/merge=name matchPolicy name namespaceSelector:meta.v1.LabelSelector objectSelector:meta.v1.LabelSelector reinvocationPolicy rules:[]admissionregistration.v1.RuleWithOperations sideEffects timeoutSeconds:%int32",
  "admissionregistration.v1.MutatingWebhookConfiguration":
    "apiVersion kind metadata!:meta.v1.ObjectMeta webhooks:[map=name]admissionregistration.v1.MutatingWebhook/merge=name",
  "admissionregistration.v1.Mutation":
    "applyConfiguration:admissionregistration.v1.ApplyConfiguration jsonPatch:admissionregistration.v1.JSONPatch patchType",
  "admissionregistration.v1.NamedRuleWithOperations":
    "@atomic apiGroups:[] apiVersions:[] operations:[] resourceNames:[] resources:[] scope",
  "admissionregistration.v1.ParamKind": "@atomic apiVersion kind",
  "admissionregistration.v1.ParamRef":
    "@atomic name namespace parameterNotFoundAction selector:meta.v1.LabelSelector",
  "admissionregistration.v1.RuleWithOperations":
    "apiGroups:[] apiVersions:[] operations:[] resources:[] scope",
  "admissionregistration.v1.ServiceReference": "name namespace path port:%int32",
  "admissionregistration.v1.TypeChecking":
    "expressionWarnings:[]admissionregistration.v1.ExpressionWarning",
  "admissionregistration.v1.ValidatingAdmissionPolicy":
    "apiVersion kind metadata!:meta.v1.ObjectMeta spec!:admissionregistration.v1.ValidatingAdmissionPolicySpec status!:admissionregistration.v1.ValidatingAdmissionPolicyStatus",
  "admissionregistration.v1.ValidatingAdmissionPolicyBinding":
    "apiVersion kind metadata!:meta.v1.ObjectMeta spec!:admissionregistration.v1.ValidatingAdmissionPolicyBindingSpec",
  "admissionregistration.v1.ValidatingAdmissionPolicyBindingSpec":
    "matchResources:admissionregistration.v1.MatchResources paramRef:admissionregistration.v1.ParamRef policyName validationActions:[set]",
  "admissionregistration.v1.ValidatingAdmissionPolicySpec":
    "auditAnnotations:[]admissionregistration.v1.AuditAnnotation failurePolicy matchConditions:[map=name]admissionregistration.v1.MatchCondition/merge=name matchConstraints:admissionregistration.v1.MatchResources paramKind:admissionregistration.v1.ParamKind validations:[]admissionregistration.v1.Validation variables:[map=name]admissionregistration.v1.Variable/merge=name",
  "admissionregistration.v1.ValidatingAdmissionPolicyStatus":
    "conditions:[map=type]meta.v1.Condition observedGeneration:%int64 typeChecking:admissionregistration.v1.TypeChecking",
  "admissionregistration.v1.ValidatingWebhook":
    "admissionReviewVersions~:[] clientConfig!:admissionregistration.v1.WebhookClientConfig failurePolicy matchConditions:[map=name]admissionregistration.v1.MatchCondition/merge=name matchPolicy name namespaceSelector:meta.v1.LabelSelector objectSelector:meta.v1.LabelSelector rules:[]admissionregistration.v1.RuleWithOperations sideEffects timeoutSeconds:%int32",
  "admissionregistration.v1.ValidatingWebhookConfiguration":
    "apiVersion kind metadata!:meta.v1.ObjectMeta webhooks:[map=name]admissionregistration.v1.ValidatingWebhook/merge=name",
  "admissionregistration.v1.Validation": "expression message messageExpression reason",
  "admissionregistration.v1.Variable": "@atomic expression name",
  "admissionregistration.v1.WebhookClientConfig":
    "caBundle service:admissionregistration.v1.ServiceReference url",
  "apiextensions.v1.CustomResourceColumnDefinition":
    "description format jsonPath name priority:%int32 type",
  "apiextensions.v1.CustomResourceConversion":
    "strategy webhook:apiextensions.v1.WebhookConversion",
  "apiextensions.v1.CustomResourceDefinition":
    "apiVersion kind metadata!:meta.v1.ObjectMeta spec!:apiextensions.v1.CustomResourceDefinitionSpec status!:apiextensions.v1.CustomResourceDefinitionStatus",
  "apiextensions.v1.CustomResourceDefinitionCondition":
    "lastTransitionTime message observedGeneration:%int64 reason status type",
  "apiextensions.v1.CustomResourceDefinitionNames":
    "categories:[] kind listKind plural shortNames:[] singular",
  "apiextensions.v1.CustomResourceDefinitionSpec":
    "conversion:apiextensions.v1.CustomResourceConversion group names!:apiextensions.v1.CustomResourceDefinitionNames preserveUnknownFields:%bool scope versions~:[]apiextensions.v1.CustomResourceDefinitionVersion",
  "apiextensions.v1.CustomResourceDefinitionStatus":
    "acceptedNames!:apiextensions.v1.CustomResourceDefinitionNames conditions~:[map=type]apiextensions.v1.CustomResourceDefinitionCondition observedGeneration:%int64 storedVersions~:[]",
  "apiextensions.v1.CustomResourceDefinitionVersion":
    "additionalPrinterColumns:[]apiextensions.v1.CustomResourceColumnDefinition deprecated:%bool deprecationWarning name schema:apiextensions.v1.CustomResourceValidation selectableFields:[]apiextensions.v1.SelectableField served:%bool storage:%bool subresources:apiextensions.v1.CustomResourceSubresources",
  "apiextensions.v1.CustomResourceSubresourceScale":
    "labelSelectorPath specReplicasPath statusReplicasPath",
  "apiextensions.v1.CustomResourceSubresources":
    "scale:apiextensions.v1.CustomResourceSubresourceScale status:*",
  "apiextensions.v1.CustomResourceValidation": "openAPIV3Schema:apiextensions.v1.JSONSchemaProps",
  "apiextensions.v1.ExternalDocumentation": "description url",
  "apiextensions.v1.JSONSchemaProps":
    "$ref $schema additionalItems:* additionalProperties:* allOf:[]apiextensions.v1.JSONSchemaProps anyOf:[]apiextensions.v1.JSONSchemaProps default:* definitions:{}apiextensions.v1.JSONSchemaProps dependencies:{}* description enum:[]* example:* exclusiveMaximum:%bool exclusiveMinimum:%bool externalDocs:apiextensions.v1.ExternalDocumentation format id items:* maxItems:%int64 maxLength:%int64 maxProperties:%int64 maximum:%float64 minItems:%int64 minLength:%int64 minProperties:%int64 minimum:%float64 multipleOf:%float64 not:apiextensions.v1.JSONSchemaProps nullable:%bool oneOf:[]apiextensions.v1.JSONSchemaProps pattern patternProperties:{}apiextensions.v1.JSONSchemaProps properties:{}apiextensions.v1.JSONSchemaProps required:[] title type uniqueItems:%bool x-kubernetes-embedded-resource:%bool x-kubernetes-int-or-string:%bool x-kubernetes-list-map-keys:[] x-kubernetes-list-type x-kubernetes-map-type x-kubernetes-preserve-unknown-fields:%bool x-kubernetes-validations:[map=rule]apiextensions.v1.ValidationRule/merge=rule",
  "apiextensions.v1.SelectableField": "jsonPath",
  "apiextensions.v1.ServiceReference": "name namespace path port:%int32",
  "apiextensions.v1.ValidationRule":
    "fieldPath message messageExpression optionalOldSelf:%bool reason rule",
  "apiextensions.v1.WebhookClientConfig": "caBundle service:apiextensions.v1.ServiceReference url",
  "apiextensions.v1.WebhookConversion":
    "clientConfig:apiextensions.v1.WebhookClientConfig conversionReviewVersions~:[]",
  "apiregistration.v1.APIService":
    "apiVersion kind metadata!:meta.v1.ObjectMeta spec!:apiregistration.v1.APIServiceSpec status!:apiregistration.v1.APIServiceStatus",
  "apiregistration.v1.APIServiceCondition": "lastTransitionTime message reason status type",
  "apiregistration.v1.APIServiceSpec":
    "caBundle group groupPriorityMinimum:%int32 insecureSkipTLSVerify:%bool service:apiregistration.v1.ServiceReference version versionPriority:%int32",
  "apiregistration.v1.APIServiceStatus":
    "conditions:[map=type]apiregistration.v1.APIServiceCondition/merge=type",
  "apiregistration.v1.ServiceReference": "name namespace port:%int32",
  "apps.v1.ControllerRevision":
    "apiVersion data:*atomic kind metadata!:meta.v1.ObjectMeta revision:%int64",
  "apps.v1.DaemonSet":
    "apiVersion kind metadata!:meta.v1.ObjectMeta spec!:apps.v1.DaemonSetSpec status!:apps.v1.DaemonSetStatus",
  "apps.v1.DaemonSetCondition": "lastTransitionTime message reason status type",
  "apps.v1.DaemonSetSpec":
    "minReadySeconds:%int32 revisionHistoryLimit:%int32 selector~:meta.v1.LabelSelector template!:core.v1.PodTemplateSpec updateStrategy!:apps.v1.DaemonSetUpdateStrategy",
  "apps.v1.DaemonSetStatus":
    "collisionCount:%int32 conditions:[map=type]apps.v1.DaemonSetCondition/merge=type currentNumberScheduled:%int32 desiredNumberScheduled:%int32 numberAvailable:%int32 numberMisscheduled:%int32 numberReady:%int32 numberUnavailable:%int32 observedGeneration:%int64 updatedNumberScheduled:%int32",
  "apps.v1.DaemonSetUpdateStrategy": "rollingUpdate:apps.v1.RollingUpdateDaemonSet type",
  "apps.v1.Deployment":
    "apiVersion kind metadata!:meta.v1.ObjectMeta spec!:apps.v1.DeploymentSpec status!:apps.v1.DeploymentStatus",
  "apps.v1.DeploymentCondition": "lastTransitionTime lastUpdateTime message reason status type",
  "apps.v1.DeploymentSpec":
    "minReadySeconds:%int32 paused:%bool progressDeadlineSeconds:%int32 replicas:%int32 revisionHistoryLimit:%int32 selector~:meta.v1.LabelSelector strategy!:apps.v1.DeploymentStrategy/retainKeys template!:core.v1.PodTemplateSpec",
  "apps.v1.DeploymentStatus":
    "availableReplicas:%int32 collisionCount:%int32 conditions:[map=type]apps.v1.DeploymentCondition/merge=type observedGeneration:%int64 readyReplicas:%int32 replicas:%int32 terminatingReplicas:%int32 unavailableReplicas:%int32 updatedReplicas:%int32",
  "apps.v1.DeploymentStrategy": "rollingUpdate:apps.v1.RollingUpdateDeployment type",
  "apps.v1.ReplicaSet":
    "apiVersion kind metadata!:meta.v1.ObjectMeta spec!:apps.v1.ReplicaSetSpec status!:apps.v1.ReplicaSetStatus",
  "apps.v1.ReplicaSetCondition": "lastTransitionTime message reason status type",
  "apps.v1.ReplicaSetSpec":
    "minReadySeconds:%int32 replicas:%int32 selector~:meta.v1.LabelSelector template!:core.v1.PodTemplateSpec",
  "apps.v1.ReplicaSetStatus":
    "availableReplicas:%int32 conditions:[map=type]apps.v1.ReplicaSetCondition/merge=type fullyLabeledReplicas:%int32 observedGeneration:%int64 readyReplicas:%int32 replicas:%int32 terminatingReplicas:%int32",
  "apps.v1.RollingUpdateDaemonSet": "maxSurge:%intstr maxUnavailable:%intstr",
  "apps.v1.RollingUpdateDeployment": "maxSurge:%intstr maxUnavailable:%intstr",
  "apps.v1.RollingUpdateStatefulSetStrategy": "maxUnavailable:%intstr partition:%int32",
  "apps.v1.StatefulSet":
    "apiVersion kind metadata!:meta.v1.ObjectMeta spec!:apps.v1.StatefulSetSpec status!:apps.v1.StatefulSetStatus",
  "apps.v1.StatefulSetCondition": "lastTransitionTime message reason status type",
  "apps.v1.StatefulSetOrdinals": "start:%int32",
  "apps.v1.StatefulSetPersistentVolumeClaimRetentionPolicy": "whenDeleted whenScaled",
  "apps.v1.StatefulSetSpec":
    "minReadySeconds:%int32 ordinals:apps.v1.StatefulSetOrdinals persistentVolumeClaimRetentionPolicy:apps.v1.StatefulSetPersistentVolumeClaimRetentionPolicy podManagementPolicy replicas:%int32 revisionHistoryLimit:%int32 selector~:meta.v1.LabelSelector serviceName template!:core.v1.PodTemplateSpec updateStrategy!:apps.v1.StatefulSetUpdateStrategy volumeClaimTemplates:[]core.v1.PersistentVolumeClaim",
  "apps.v1.StatefulSetStatus":
    "availableReplicas:%int32 collisionCount:%int32 conditions:[map=type]apps.v1.StatefulSetCondition/merge=type currentReplicas:%int32 currentRevision observedGeneration:%int64 readyReplicas:%int32 replicas:%int32 updateRevision updatedReplicas:%int32",
  "apps.v1.StatefulSetUpdateStrategy":
    "rollingUpdate:apps.v1.RollingUpdateStatefulSetStrategy type",
  "authentication.v1.SelfSubjectReview":
    "apiVersion kind metadata!:meta.v1.ObjectMeta status!:authentication.v1.SelfSubjectReviewStatus",
  "authentication.v1.SelfSubjectReviewStatus": "userInfo!:authentication.v1.UserInfo",
  "authentication.v1.TokenReview":
    "apiVersion kind metadata!:meta.v1.ObjectMeta spec!:authentication.v1.TokenReviewSpec status!:authentication.v1.TokenReviewStatus",
  "authentication.v1.TokenReviewSpec": "audiences:[] token",
  "authentication.v1.TokenReviewStatus":
    "audiences:[] authenticated:%bool error user!:authentication.v1.UserInfo",
  "authentication.v1.UserInfo": "extra:{}[] groups:[] uid username",
  "authorization.v1.FieldSelectorAttributes":
    "rawSelector requirements:[]meta.v1.FieldSelectorRequirement",
  "authorization.v1.LabelSelectorAttributes":
    "rawSelector requirements:[]meta.v1.LabelSelectorRequirement",
  "authorization.v1.LocalSubjectAccessReview":
    "apiVersion kind metadata!:meta.v1.ObjectMeta spec!:authorization.v1.SubjectAccessReviewSpec status!:authorization.v1.SubjectAccessReviewStatus",
  "authorization.v1.NonResourceAttributes": "path verb",
  "authorization.v1.NonResourceRule": "nonResourceURLs:[] verbs~:[]",
  "authorization.v1.ResourceAttributes":
    "fieldSelector:authorization.v1.FieldSelectorAttributes group labelSelector:authorization.v1.LabelSelectorAttributes name namespace resource subresource verb version",
  "authorization.v1.ResourceRule": "apiGroups:[] resourceNames:[] resources:[] verbs~:[]",
  "authorization.v1.SelfSubjectAccessReview":
    "apiVersion kind metadata!:meta.v1.ObjectMeta spec!:authorization.v1.SelfSubjectAccessReviewSpec status!:authorization.v1.SubjectAccessReviewStatus",
  "authorization.v1.SelfSubjectAccessReviewSpec":
    "nonResourceAttributes:authorization.v1.NonResourceAttributes resourceAttributes:authorization.v1.ResourceAttributes",
  "authorization.v1.SelfSubjectRulesReview":
    "apiVersion kind metadata!:meta.v1.ObjectMeta spec!:authorization.v1.SelfSubjectRulesReviewSpec status!:authorization.v1.SubjectRulesReviewStatus",
  "authorization.v1.SelfSubjectRulesReviewSpec": "namespace",
  "authorization.v1.SubjectAccessReview":
    "apiVersion kind metadata!:meta.v1.ObjectMeta spec!:authorization.v1.SubjectAccessReviewSpec status!:authorization.v1.SubjectAccessReviewStatus",
  "authorization.v1.SubjectAccessReviewSpec":
    "extra:{}[] groups:[] nonResourceAttributes:authorization.v1.NonResourceAttributes resourceAttributes:authorization.v1.ResourceAttributes uid user",
  "authorization.v1.SubjectAccessReviewStatus": "allowed:%bool denied:%bool evaluationError reason",
  "authorization.v1.SubjectRulesReviewStatus":
    "evaluationError incomplete:%bool nonResourceRules~:[]authorization.v1.NonResourceRule resourceRules~:[]authorization.v1.ResourceRule",
  "autoscaling.v1.CrossVersionObjectReference": "@atomic apiVersion kind name",
  "autoscaling.v1.HorizontalPodAutoscaler":
    "apiVersion kind metadata!:meta.v1.ObjectMeta spec!:autoscaling.v1.HorizontalPodAutoscalerSpec status!:autoscaling.v1.HorizontalPodAutoscalerStatus",
  "autoscaling.v1.HorizontalPodAutoscalerSpec":
    "maxReplicas:%int32 minReplicas:%int32 scaleTargetRef!:autoscaling.v1.CrossVersionObjectReference targetCPUUtilizationPercentage:%int32",
  "autoscaling.v1.HorizontalPodAutoscalerStatus":
    "currentCPUUtilizationPercentage:%int32 currentReplicas:%int32 desiredReplicas:%int32 lastScaleTime observedGeneration:%int64",
  "autoscaling.v2.ContainerResourceMetricSource":
    "container name target!:autoscaling.v2.MetricTarget",
  "autoscaling.v2.ContainerResourceMetricStatus":
    "container current!:autoscaling.v2.MetricValueStatus name",
  "autoscaling.v2.CrossVersionObjectReference": "apiVersion kind name",
  "autoscaling.v2.ExternalMetricSource":
    "metric!:autoscaling.v2.MetricIdentifier target!:autoscaling.v2.MetricTarget",
  "autoscaling.v2.ExternalMetricStatus":
    "current!:autoscaling.v2.MetricValueStatus metric!:autoscaling.v2.MetricIdentifier",
  "autoscaling.v2.HPAScalingPolicy": "periodSeconds:%int32 type value:%int32",
  "autoscaling.v2.HPAScalingRules":
    "policies:[]autoscaling.v2.HPAScalingPolicy selectPolicy stabilizationWindowSeconds:%int32 tolerance:%quantity",
  "autoscaling.v2.HorizontalPodAutoscaler":
    "apiVersion kind metadata!:meta.v1.ObjectMeta spec!:autoscaling.v2.HorizontalPodAutoscalerSpec status!:autoscaling.v2.HorizontalPodAutoscalerStatus",
  "autoscaling.v2.HorizontalPodAutoscalerBehavior":
    "scaleDown:autoscaling.v2.HPAScalingRules scaleUp:autoscaling.v2.HPAScalingRules",
  "autoscaling.v2.HorizontalPodAutoscalerCondition":
    "lastTransitionTime message reason status type",
  "autoscaling.v2.HorizontalPodAutoscalerSpec":
    "behavior:autoscaling.v2.HorizontalPodAutoscalerBehavior maxReplicas:%int32 metrics:[]autoscaling.v2.MetricSpec minReplicas:%int32 scaleTargetRef!:autoscaling.v2.CrossVersionObjectReference",
  "autoscaling.v2.HorizontalPodAutoscalerStatus":
    "conditions:[map=type]autoscaling.v2.HorizontalPodAutoscalerCondition/merge=type currentMetrics~:[]autoscaling.v2.MetricStatus currentReplicas:%int32 desiredReplicas:%int32 lastScaleTime observedGeneration:%int64",
  "autoscaling.v2.MetricIdentifier": "name selector:meta.v1.LabelSelector",
  "autoscaling.v2.MetricSpec":
    "containerResource:autoscaling.v2.ContainerResourceMetricSource external:autoscaling.v2.ExternalMetricSource object:autoscaling.v2.ObjectMetricSource pods:autoscaling.v2.PodsMetricSource resource:autoscaling.v2.ResourceMetricSource type",
  "autoscaling.v2.MetricStatus":
    "containerResource:autoscaling.v2.ContainerResourceMetricStatus external:autoscaling.v2.ExternalMetricStatus object:autoscaling.v2.ObjectMetricStatus pods:autoscaling.v2.PodsMetricStatus resource:autoscaling.v2.ResourceMetricStatus type",
  "autoscaling.v2.MetricTarget":
    "averageUtilization:%int32 averageValue:%quantity type value:%quantity",
  "autoscaling.v2.MetricValueStatus":
    "averageUtilization:%int32 averageValue:%quantity value:%quantity",
  "autoscaling.v2.ObjectMetricSource":
    "describedObject!:autoscaling.v2.CrossVersionObjectReference metric!:autoscaling.v2.MetricIdentifier target!:autoscaling.v2.MetricTarget",
  "autoscaling.v2.ObjectMetricStatus":
    "current!:autoscaling.v2.MetricValueStatus describedObject!:autoscaling.v2.CrossVersionObjectReference metric!:autoscaling.v2.MetricIdentifier",
  "autoscaling.v2.PodsMetricSource":
    "metric!:autoscaling.v2.MetricIdentifier target!:autoscaling.v2.MetricTarget",
  "autoscaling.v2.PodsMetricStatus":
    "current!:autoscaling.v2.MetricValueStatus metric!:autoscaling.v2.MetricIdentifier",
  "autoscaling.v2.ResourceMetricSource": "name target!:autoscaling.v2.MetricTarget",
  "autoscaling.v2.ResourceMetricStatus": "current!:autoscaling.v2.MetricValueStatus name",
  "batch.v1.CronJob":
    "apiVersion kind metadata!:meta.v1.ObjectMeta spec!:batch.v1.CronJobSpec status!:batch.v1.CronJobStatus",
  "batch.v1.CronJobSpec":
    "concurrencyPolicy failedJobsHistoryLimit:%int32 jobTemplate!:batch.v1.JobTemplateSpec schedule startingDeadlineSeconds:%int64 successfulJobsHistoryLimit:%int32 suspend:%bool timeZone",
  "batch.v1.CronJobStatus": "active:[]core.v1.ObjectReference lastScheduleTime lastSuccessfulTime",
  "batch.v1.Job":
    "apiVersion kind metadata!:meta.v1.ObjectMeta spec!:batch.v1.JobSpec status!:batch.v1.JobStatus",
  "batch.v1.JobCondition": "lastProbeTime lastTransitionTime message reason status type",
  "batch.v1.JobSpec":
    "activeDeadlineSeconds:%int64 backoffLimit:%int32 backoffLimitPerIndex:%int32 completionMode completions:%int32 managedBy manualSelector:%bool maxFailedIndexes:%int32 parallelism:%int32 podFailurePolicy:batch.v1.PodFailurePolicy podReplacementPolicy selector:meta.v1.LabelSelector successPolicy:batch.v1.SuccessPolicy suspend:%bool template!:core.v1.PodTemplateSpec ttlSecondsAfterFinished:%int32",
  "batch.v1.JobStatus":
    "active:%int32 completedIndexes completionTime conditions:[]batch.v1.JobCondition/merge=type failed:%int32 failedIndexes ready:%int32 startTime succeeded:%int32 terminating:%int32 uncountedTerminatedPods:batch.v1.UncountedTerminatedPods",
  "batch.v1.JobTemplateSpec": "metadata!:meta.v1.ObjectMeta spec!:batch.v1.JobSpec",
  "batch.v1.PodFailurePolicy": "rules~:[]batch.v1.PodFailurePolicyRule",
  "batch.v1.PodFailurePolicyOnExitCodesRequirement": "containerName operator values~:[set]%int32",
  "batch.v1.PodFailurePolicyOnPodConditionsPattern": "status type",
  "batch.v1.PodFailurePolicyRule":
    "action onExitCodes:batch.v1.PodFailurePolicyOnExitCodesRequirement onPodConditions:[]batch.v1.PodFailurePolicyOnPodConditionsPattern",
  "batch.v1.SuccessPolicy": "rules~:[]batch.v1.SuccessPolicyRule",
  "batch.v1.SuccessPolicyRule": "succeededCount:%int32 succeededIndexes",
  "batch.v1.UncountedTerminatedPods": "failed:[set] succeeded:[set]",
  "certificates.v1.CertificateSigningRequest":
    "apiVersion kind metadata!:meta.v1.ObjectMeta spec!:certificates.v1.CertificateSigningRequestSpec status!:certificates.v1.CertificateSigningRequestStatus",
  "certificates.v1.CertificateSigningRequestCondition":
    "lastTransitionTime lastUpdateTime message reason status type",
  "certificates.v1.CertificateSigningRequestSpec":
    "expirationSeconds:%int32 extra:{}[] groups:[] request signerName uid usages:[] username",
  "certificates.v1.CertificateSigningRequestStatus":
    "certificate conditions:[map=type]certificates.v1.CertificateSigningRequestCondition",
  "coordination.v1.Lease":
    "apiVersion kind metadata!:meta.v1.ObjectMeta spec!:coordination.v1.LeaseSpec",
  "coordination.v1.LeaseSpec":
    "acquireTime holderIdentity leaseDurationSeconds:%int32 leaseTransitions:%int32 preferredHolder renewTime strategy",
  "core.v1.AWSElasticBlockStoreVolumeSource": "fsType partition:%int32 readOnly:%bool volumeID",
  "core.v1.Affinity":
    "nodeAffinity:core.v1.NodeAffinity podAffinity:core.v1.PodAffinity podAntiAffinity:core.v1.PodAntiAffinity",
  "core.v1.AppArmorProfile": "localhostProfile type",
  "core.v1.AttachedVolume": "devicePath name",
  "core.v1.AzureDiskVolumeSource": "cachingMode diskName diskURI fsType kind readOnly:%bool",
  "core.v1.AzureFilePersistentVolumeSource": "readOnly:%bool secretName secretNamespace shareName",
  "core.v1.AzureFileVolumeSource": "readOnly:%bool secretName shareName",
  "core.v1.Binding": "apiVersion kind metadata!:meta.v1.ObjectMeta target!:core.v1.ObjectReference",
  "core.v1.CSIPersistentVolumeSource":
    "controllerExpandSecretRef:core.v1.SecretReference controllerPublishSecretRef:core.v1.SecretReference driver fsType nodeExpandSecretRef:core.v1.SecretReference nodePublishSecretRef:core.v1.SecretReference nodeStageSecretRef:core.v1.SecretReference readOnly:%bool volumeAttributes:{} volumeHandle",
  "core.v1.CSIVolumeSource":
    "driver fsType nodePublishSecretRef:core.v1.LocalObjectReference readOnly:%bool volumeAttributes:{}",
  "core.v1.Capabilities": "add:[] drop:[]",
  "core.v1.CephFSPersistentVolumeSource":
    "monitors~:[] path readOnly:%bool secretFile secretRef:core.v1.SecretReference user",
  "core.v1.CephFSVolumeSource":
    "monitors~:[] path readOnly:%bool secretFile secretRef:core.v1.LocalObjectReference user",
  "core.v1.CinderPersistentVolumeSource":
    "fsType readOnly:%bool secretRef:core.v1.SecretReference volumeID",
  "core.v1.CinderVolumeSource":
    "fsType readOnly:%bool secretRef:core.v1.LocalObjectReference volumeID",
  "core.v1.ClientIPConfig": "timeoutSeconds:%int32",
  "core.v1.ClusterTrustBundleProjection":
    "labelSelector:meta.v1.LabelSelector name optional:%bool path signerName",
  "core.v1.ComponentCondition": "error message status type",
  "core.v1.ComponentStatus":
    "apiVersion conditions:[map=type]core.v1.ComponentCondition/merge=type kind metadata!:meta.v1.ObjectMeta",
  "core.v1.ConfigMap":
    "apiVersion binaryData:{} data:{} immutable:%bool kind metadata!:meta.v1.ObjectMeta",
  "core.v1.ConfigMapEnvSource": "name optional:%bool",
  "core.v1.ConfigMapKeySelector": "@atomic key name optional:%bool",
  "core.v1.ConfigMapNodeConfigSource": "kubeletConfigKey name namespace resourceVersion uid",
  "core.v1.ConfigMapProjection": "items:[]core.v1.KeyToPath name optional:%bool",
  "core.v1.ConfigMapVolumeSource":
    "defaultMode:%int32 items:[]core.v1.KeyToPath name optional:%bool",
  "core.v1.Container":
    "args:[] command:[] env:[map=name]core.v1.EnvVar/merge=name envFrom:[]core.v1.EnvFromSource image imagePullPolicy lifecycle:core.v1.Lifecycle livenessProbe:core.v1.Probe name ports:[map=containerPort,protocol:TCP]core.v1.ContainerPort/merge=containerPort readinessProbe:core.v1.Probe resizePolicy:[]core.v1.ContainerResizePolicy resources!:core.v1.ResourceRequirements restartPolicy restartPolicyRules:[]core.v1.ContainerRestartRule securityContext:core.v1.SecurityContext startupProbe:core.v1.Probe stdin:%bool stdinOnce:%bool terminationMessagePath terminationMessagePolicy tty:%bool volumeDevices:[map=devicePath]core.v1.VolumeDevice/merge=devicePath volumeMounts:[map=mountPath]core.v1.VolumeMount/merge=mountPath workingDir",
  "core.v1.ContainerExtendedResourceRequest": "containerName requestName resourceName",
  "core.v1.ContainerImage": "names~:[] sizeBytes:%int64",
  "core.v1.ContainerPort": "containerPort:%int32 hostIP hostPort:%int32 name protocol",
  "core.v1.ContainerResizePolicy": "resourceName restartPolicy",
  "core.v1.ContainerRestartRule": "action exitCodes:core.v1.ContainerRestartRuleOnExitCodes",
  "core.v1.ContainerRestartRuleOnExitCodes": "operator values:[set]%int32",
  "core.v1.ContainerState":
    "running:core.v1.ContainerStateRunning terminated:core.v1.ContainerStateTerminated waiting:core.v1.ContainerStateWaiting",
  "core.v1.ContainerStateRunning": "startedAt",
  "core.v1.ContainerStateTerminated":
    "containerID exitCode:%int32 finishedAt message reason signal:%int32 startedAt",
  "core.v1.ContainerStateWaiting": "message reason",
  "core.v1.ContainerStatus":
    "allocatedResources:{}%quantity allocatedResourcesStatus:[map=name]core.v1.ResourceStatus/merge=name containerID image imageID lastState!:core.v1.ContainerState name ready:%bool resources:core.v1.ResourceRequirements restartCount:%int32 started:%bool state!:core.v1.ContainerState stopSignal user:core.v1.ContainerUser volumeMounts:[map=mountPath]core.v1.VolumeMountStatus/merge=mountPath",
  "core.v1.ContainerUser": "linux:core.v1.LinuxContainerUser",
  "core.v1.DaemonEndpoint": "Port:%int32",
  "core.v1.DownwardAPIProjection": "items:[]core.v1.DownwardAPIVolumeFile",
  "core.v1.DownwardAPIVolumeFile":
    "fieldRef:core.v1.ObjectFieldSelector mode:%int32 path resourceFieldRef:core.v1.ResourceFieldSelector",
  "core.v1.DownwardAPIVolumeSource": "defaultMode:%int32 items:[]core.v1.DownwardAPIVolumeFile",
  "core.v1.EmptyDirVolumeSource": "medium sizeLimit:%quantity",
  "core.v1.EndpointAddress": "@atomic hostname ip nodeName targetRef:core.v1.ObjectReference",
  "core.v1.EndpointPort": "@atomic appProtocol name port:%int32 protocol",
  "core.v1.EndpointSubset":
    "addresses:[]core.v1.EndpointAddress notReadyAddresses:[]core.v1.EndpointAddress ports:[]core.v1.EndpointPort",
  "core.v1.Endpoints":
    "apiVersion kind metadata!:meta.v1.ObjectMeta subsets:[]core.v1.EndpointSubset",
  "core.v1.EnvFromSource":
    "configMapRef:core.v1.ConfigMapEnvSource prefix secretRef:core.v1.SecretEnvSource",
  "core.v1.EnvVar": "name value valueFrom:core.v1.EnvVarSource",
  "core.v1.EnvVarSource":
    "configMapKeyRef:core.v1.ConfigMapKeySelector fieldRef:core.v1.ObjectFieldSelector fileKeyRef:core.v1.FileKeySelector resourceFieldRef:core.v1.ResourceFieldSelector secretKeyRef:core.v1.SecretKeySelector",
  "core.v1.EphemeralContainer":
    "args:[] command:[] env:[map=name]core.v1.EnvVar/merge=name envFrom:[]core.v1.EnvFromSource image imagePullPolicy lifecycle:core.v1.Lifecycle livenessProbe:core.v1.Probe name ports:[map=containerPort,protocol:TCP]core.v1.ContainerPort/merge=containerPort readinessProbe:core.v1.Probe resizePolicy:[]core.v1.ContainerResizePolicy resources!:core.v1.ResourceRequirements restartPolicy restartPolicyRules:[]core.v1.ContainerRestartRule securityContext:core.v1.SecurityContext startupProbe:core.v1.Probe stdin:%bool stdinOnce:%bool targetContainerName terminationMessagePath terminationMessagePolicy tty:%bool volumeDevices:[map=devicePath]core.v1.VolumeDevice/merge=devicePath volumeMounts:[map=mountPath]core.v1.VolumeMount/merge=mountPath workingDir",
  "core.v1.EphemeralVolumeSource": "volumeClaimTemplate:core.v1.PersistentVolumeClaimTemplate",
  "core.v1.Event":
    "action apiVersion count:%int32 eventTime firstTimestamp involvedObject!:core.v1.ObjectReference kind lastTimestamp message metadata!:meta.v1.ObjectMeta reason related:core.v1.ObjectReference reportingComponent reportingInstance series:core.v1.EventSeries source!:core.v1.EventSource type",
  "core.v1.EventSeries": "count:%int32 lastObservedTime",
  "core.v1.EventSource": "component host",
  "core.v1.ExecAction": "command:[]",
  "core.v1.FCVolumeSource": "fsType lun:%int32 readOnly:%bool targetWWNs:[] wwids:[]",
  "core.v1.FileKeySelector": "@atomic key optional:%bool path volumeName",
  "core.v1.FlexPersistentVolumeSource":
    "driver fsType options:{} readOnly:%bool secretRef:core.v1.SecretReference",
  "core.v1.FlexVolumeSource":
    "driver fsType options:{} readOnly:%bool secretRef:core.v1.LocalObjectReference",
  "core.v1.FlockerVolumeSource": "datasetName datasetUUID",
  "core.v1.GCEPersistentDiskVolumeSource": "fsType partition:%int32 pdName readOnly:%bool",
  "core.v1.GRPCAction": "port:%int32 service",
  "core.v1.GitRepoVolumeSource": "directory repository revision",
  "core.v1.GlusterfsPersistentVolumeSource": "endpoints endpointsNamespace path readOnly:%bool",
  "core.v1.GlusterfsVolumeSource": "endpoints path readOnly:%bool",
  "core.v1.HTTPGetAction": "host httpHeaders:[]core.v1.HTTPHeader path port:%intstr scheme",
  "core.v1.HTTPHeader": "name value",
  "core.v1.HostAlias": "hostnames:[] ip",
  "core.v1.HostIP": "ip",
  "core.v1.HostPathVolumeSource": "path type",
  "core.v1.ISCSIPersistentVolumeSource":
    "chapAuthDiscovery:%bool chapAuthSession:%bool fsType initiatorName iqn iscsiInterface lun:%int32 portals:[] readOnly:%bool secretRef:core.v1.SecretReference targetPortal",
  "core.v1.ISCSIVolumeSource":
    "chapAuthDiscovery:%bool chapAuthSession:%bool fsType initiatorName iqn iscsiInterface lun:%int32 portals:[] readOnly:%bool secretRef:core.v1.LocalObjectReference targetPortal",
  "core.v1.ImageVolumeSource": "pullPolicy reference",
  "core.v1.ImageVolumeStatus": "imageRef",
  "core.v1.KeyToPath": "key mode:%int32 path",
  "core.v1.Lifecycle":
    "postStart:core.v1.LifecycleHandler preStop:core.v1.LifecycleHandler stopSignal",
  "core.v1.LifecycleHandler":
    "exec:core.v1.ExecAction httpGet:core.v1.HTTPGetAction sleep:core.v1.SleepAction tcpSocket:core.v1.TCPSocketAction",
  "core.v1.LimitRange": "apiVersion kind metadata!:meta.v1.ObjectMeta spec!:core.v1.LimitRangeSpec",
  "core.v1.LimitRangeItem":
    "default:{}%quantity defaultRequest:{}%quantity max:{}%quantity maxLimitRequestRatio:{}%quantity min:{}%quantity type",
  "core.v1.LimitRangeSpec": "limits~:[]core.v1.LimitRangeItem",
  "core.v1.LinuxContainerUser": "gid:%int64 supplementalGroups:[]%int64 uid:%int64",
  "core.v1.LoadBalancerIngress": "hostname ip ipMode ports:[]core.v1.PortStatus",
  "core.v1.LoadBalancerStatus": "ingress:[]core.v1.LoadBalancerIngress",
  "core.v1.LocalObjectReference": "@atomic name",
  "core.v1.LocalVolumeSource": "fsType path",
  "core.v1.ModifyVolumeStatus": "status targetVolumeAttributesClassName",
  "core.v1.NFSVolumeSource": "path readOnly:%bool server",
  "core.v1.Namespace":
    "apiVersion kind metadata!:meta.v1.ObjectMeta spec!:core.v1.NamespaceSpec status!:core.v1.NamespaceStatus",
  "core.v1.NamespaceCondition": "lastTransitionTime message reason status type",
  "core.v1.NamespaceSpec": "finalizers:[]",
  "core.v1.NamespaceStatus": "conditions:[map=type]core.v1.NamespaceCondition/merge=type phase",
  "core.v1.Node":
    "apiVersion kind metadata!:meta.v1.ObjectMeta spec!:core.v1.NodeSpec status!:core.v1.NodeStatus",
  "core.v1.NodeAddress": "address type",
  "core.v1.NodeAffinity":
    "preferredDuringSchedulingIgnoredDuringExecution:[]core.v1.PreferredSchedulingTerm requiredDuringSchedulingIgnoredDuringExecution:core.v1.NodeSelector",
  "core.v1.NodeAllocatableResourceClaimStatus":
    "containers:[set] resourceClaimName resources~:{}%quantity",
  "core.v1.NodeCondition": "lastHeartbeatTime lastTransitionTime message reason status type",
  "core.v1.NodeConfigSource": "configMap:core.v1.ConfigMapNodeConfigSource",
  "core.v1.NodeConfigStatus":
    "active:core.v1.NodeConfigSource assigned:core.v1.NodeConfigSource error lastKnownGood:core.v1.NodeConfigSource",
  "core.v1.NodeDaemonEndpoints": "kubeletEndpoint!:core.v1.DaemonEndpoint",
  "core.v1.NodeFeatures": "supplementalGroupsPolicy:%bool",
  "core.v1.NodeRuntimeHandler": "features:core.v1.NodeRuntimeHandlerFeatures name",
  "core.v1.NodeRuntimeHandlerFeatures": "recursiveReadOnlyMounts:%bool userNamespaces:%bool",
  "core.v1.NodeSelector": "@atomic nodeSelectorTerms~:[]core.v1.NodeSelectorTerm",
  "core.v1.NodeSelectorRequirement": "key operator values:[]",
  "core.v1.NodeSelectorTerm":
    "@atomic matchExpressions:[]core.v1.NodeSelectorRequirement matchFields:[]core.v1.NodeSelectorRequirement",
  "core.v1.NodeSpec":
    "configSource:core.v1.NodeConfigSource externalID podCIDR podCIDRs:[set]/merge providerID taints:[]core.v1.Taint unschedulable:%bool",
  "core.v1.NodeStatus":
    "addresses:[map=type]core.v1.NodeAddress/merge=type allocatable:{}%quantity capacity:{}%quantity conditions:[map=type]core.v1.NodeCondition/merge=type config:core.v1.NodeConfigStatus daemonEndpoints!:core.v1.NodeDaemonEndpoints declaredFeatures:[] features:core.v1.NodeFeatures images:[]core.v1.ContainerImage nodeInfo!:core.v1.NodeSystemInfo phase runtimeHandlers:[]core.v1.NodeRuntimeHandler volumesAttached:[]core.v1.AttachedVolume volumesInUse:[]",
  "core.v1.NodeSwapStatus": "capacity:%int64",
  "core.v1.NodeSystemInfo":
    "architecture bootID containerRuntimeVersion kernelVersion kubeProxyVersion kubeletVersion machineID operatingSystem osImage swap:core.v1.NodeSwapStatus systemUUID",
  "core.v1.ObjectFieldSelector": "@atomic apiVersion fieldPath",
  "core.v1.ObjectReference": "@atomic apiVersion fieldPath kind name namespace resourceVersion uid",
  "core.v1.PersistentVolume":
    "apiVersion kind metadata!:meta.v1.ObjectMeta spec!:core.v1.PersistentVolumeSpec status!:core.v1.PersistentVolumeStatus",
  "core.v1.PersistentVolumeClaim":
    "apiVersion kind metadata!:meta.v1.ObjectMeta spec!:core.v1.PersistentVolumeClaimSpec status!:core.v1.PersistentVolumeClaimStatus",
  "core.v1.PersistentVolumeClaimCondition":
    "lastProbeTime lastTransitionTime message reason status type",
  "core.v1.PersistentVolumeClaimSpec":
    "accessModes:[] dataSource:core.v1.TypedLocalObjectReference dataSourceRef:core.v1.TypedObjectReference resources!:core.v1.VolumeResourceRequirements selector:meta.v1.LabelSelector storageClassName volumeAttributesClassName volumeMode volumeName",
  "core.v1.PersistentVolumeClaimStatus":
    "accessModes:[] allocatedResourceStatuses:{} allocatedResources:{}%quantity capacity:{}%quantity conditions:[map=type]core.v1.PersistentVolumeClaimCondition/merge=type currentVolumeAttributesClassName modifyVolumeStatus:core.v1.ModifyVolumeStatus phase",
  "core.v1.PersistentVolumeClaimTemplate":
    "metadata!:meta.v1.ObjectMeta spec!:core.v1.PersistentVolumeClaimSpec",
  "core.v1.PersistentVolumeClaimVolumeSource": "claimName readOnly:%bool",
  "core.v1.PersistentVolumeSpec":
    "accessModes:[] awsElasticBlockStore:core.v1.AWSElasticBlockStoreVolumeSource azureDisk:core.v1.AzureDiskVolumeSource azureFile:core.v1.AzureFilePersistentVolumeSource capacity:{}%quantity cephfs:core.v1.CephFSPersistentVolumeSource cinder:core.v1.CinderPersistentVolumeSource claimRef:core.v1.ObjectReference csi:core.v1.CSIPersistentVolumeSource fc:core.v1.FCVolumeSource flexVolume:core.v1.FlexPersistentVolumeSource flocker:core.v1.FlockerVolumeSource gcePersistentDisk:core.v1.GCEPersistentDiskVolumeSource glusterfs:core.v1.GlusterfsPersistentVolumeSource hostPath:core.v1.HostPathVolumeSource iscsi:core.v1.ISCSIPersistentVolumeSource local:core.v1.LocalVolumeSource mountOptions:[] nfs:core.v1.NFSVolumeSource nodeAffinity:core.v1.VolumeNodeAffinity persistentVolumeReclaimPolicy photonPersistentDisk:core.v1.PhotonPersistentDiskVolumeSource portworxVolume:core.v1.PortworxVolumeSource quobyte:core.v1.QuobyteVolumeSource rbd:core.v1.RBDPersistentVolumeSource scaleIO:core.v1.ScaleIOPersistentVolumeSource storageClassName storageos:core.v1.StorageOSPersistentVolumeSource volumeAttributesClassName volumeMode vsphereVolume:core.v1.VsphereVirtualDiskVolumeSource",
  "core.v1.PersistentVolumeStatus": "lastPhaseTransitionTime message phase reason",
  "core.v1.PhotonPersistentDiskVolumeSource": "fsType pdID",
  "core.v1.Pod":
    "apiVersion kind metadata!:meta.v1.ObjectMeta spec!:core.v1.PodSpec status!:core.v1.PodStatus",
  "core.v1.PodAffinity":
    "preferredDuringSchedulingIgnoredDuringExecution:[]core.v1.WeightedPodAffinityTerm requiredDuringSchedulingIgnoredDuringExecution:[]core.v1.PodAffinityTerm",
  "core.v1.PodAffinityTerm":
    "labelSelector:meta.v1.LabelSelector matchLabelKeys:[] mismatchLabelKeys:[] namespaceSelector:meta.v1.LabelSelector namespaces:[] topologyKey",
  "core.v1.PodAntiAffinity":
    "preferredDuringSchedulingIgnoredDuringExecution:[]core.v1.WeightedPodAffinityTerm requiredDuringSchedulingIgnoredDuringExecution:[]core.v1.PodAffinityTerm",
  "core.v1.PodCertificateProjection":
    "certificateChainPath credentialBundlePath keyPath keyType maxExpirationSeconds:%int32 signerName userAnnotations:{}",
  "core.v1.PodCondition":
    "lastProbeTime lastTransitionTime message observedGeneration:%int64 reason status type",
  "core.v1.PodDNSConfig": "nameservers:[] options:[]core.v1.PodDNSConfigOption searches:[]",
  "core.v1.PodDNSConfigOption": "name value",
  "core.v1.PodExtendedResourceClaimStatus":
    "requestMappings~:[]core.v1.ContainerExtendedResourceRequest resourceClaimName",
  "core.v1.PodIP": "ip",
  "core.v1.PodOS": "name",
  "core.v1.PodReadinessGate": "conditionType",
  "core.v1.PodResourceClaim": "name resourceClaimName resourceClaimTemplateName",
  "core.v1.PodResourceClaimStatus": "name resourceClaimName",
  "core.v1.PodSchedulingGate": "name",
  "core.v1.PodSchedulingGroup": "podGroupName",
  "core.v1.PodSecurityContext":
    "appArmorProfile:core.v1.AppArmorProfile fsGroup:%int64 fsGroupChangePolicy runAsGroup:%int64 runAsNonRoot:%bool runAsUser:%int64 seLinuxChangePolicy seLinuxOptions:core.v1.SELinuxOptions seccompProfile:core.v1.SeccompProfile supplementalGroups:[]%int64 supplementalGroupsPolicy sysctls:[]core.v1.Sysctl windowsOptions:core.v1.WindowsSecurityContextOptions",
  "core.v1.PodSpec":
    "activeDeadlineSeconds:%int64 affinity:core.v1.Affinity automountServiceAccountToken:%bool containers~:[map=name]core.v1.Container/merge=name dnsConfig:core.v1.PodDNSConfig dnsPolicy enableServiceLinks:%bool ephemeralContainers:[map=name]core.v1.EphemeralContainer/merge=name hostAliases:[map=ip]core.v1.HostAlias/merge=ip hostIPC:%bool hostNetwork:%bool hostPID:%bool hostUsers:%bool hostname hostnameOverride imagePullSecrets:[map=name]core.v1.LocalObjectReference/merge=name initContainers:[map=name]core.v1.Container/merge=name nodeName nodeSelector:{atomic} os:core.v1.PodOS overhead:{}%quantity preemptionPolicy priority:%int32 priorityClassName readinessGates:[]core.v1.PodReadinessGate resourceClaims:[map=name]core.v1.PodResourceClaim/merge=name/retainKeys resources:core.v1.ResourceRequirements restartPolicy runtimeClassName schedulerName schedulingGates:[map=name]core.v1.PodSchedulingGate/merge=name schedulingGroup:core.v1.PodSchedulingGroup securityContext:core.v1.PodSecurityContext serviceAccount serviceAccountName setHostnameAsFQDN:%bool shareProcessNamespace:%bool subdomain terminationGracePeriodSeconds:%int64 tolerations:[]core.v1.Toleration topologySpreadConstraints:[map=topologyKey,whenUnsatisfiable]core.v1.TopologySpreadConstraint/merge=topologyKey volumes:[map=name]core.v1.Volume/merge=name/retainKeys",
  "core.v1.PodStatus":
    "allocatedResources:{}%quantity conditions:[map=type]core.v1.PodCondition/merge=type containerStatuses:[]core.v1.ContainerStatus ephemeralContainerStatuses:[]core.v1.ContainerStatus extendedResourceClaimStatus:core.v1.PodExtendedResourceClaimStatus hostIP hostIPs:[]core.v1.HostIP/merge=ip initContainerStatuses:[]core.v1.ContainerStatus message nodeAllocatableResourceClaimStatuses:[]core.v1.NodeAllocatableResourceClaimStatus nominatedNodeName observedGeneration:%int64 phase podIP podIPs:[map=ip]core.v1.PodIP/merge=ip qosClass reason resize resourceClaimStatuses:[map=name]core.v1.PodResourceClaimStatus/merge=name/retainKeys resources:core.v1.ResourceRequirements startTime",
  "core.v1.PodTemplate":
    "apiVersion kind metadata!:meta.v1.ObjectMeta template!:core.v1.PodTemplateSpec",
  "core.v1.PodTemplateSpec": "metadata!:meta.v1.ObjectMeta spec!:core.v1.PodSpec",
  "core.v1.PortStatus": "error port:%int32 protocol",
  "core.v1.PortworxVolumeSource": "fsType readOnly:%bool volumeID",
  "core.v1.PreferredSchedulingTerm": "preference!:core.v1.NodeSelectorTerm weight:%int32",
  "core.v1.Probe":
    "exec:core.v1.ExecAction failureThreshold:%int32 grpc:core.v1.GRPCAction httpGet:core.v1.HTTPGetAction initialDelaySeconds:%int32 periodSeconds:%int32 successThreshold:%int32 tcpSocket:core.v1.TCPSocketAction terminationGracePeriodSeconds:%int64 timeoutSeconds:%int32",
  "core.v1.ProjectedVolumeSource": "defaultMode:%int32 sources~:[]core.v1.VolumeProjection",
  "core.v1.QuobyteVolumeSource": "group readOnly:%bool registry tenant user volume",
  "core.v1.RBDPersistentVolumeSource":
    "fsType image keyring monitors~:[] pool readOnly:%bool secretRef:core.v1.SecretReference user",
  "core.v1.RBDVolumeSource":
    "fsType image keyring monitors~:[] pool readOnly:%bool secretRef:core.v1.LocalObjectReference user",
  "core.v1.ReplicationController":
    "apiVersion kind metadata!:meta.v1.ObjectMeta spec!:core.v1.ReplicationControllerSpec status!:core.v1.ReplicationControllerStatus",
  "core.v1.ReplicationControllerCondition": "lastTransitionTime message reason status type",
  "core.v1.ReplicationControllerSpec":
    "minReadySeconds:%int32 replicas:%int32 selector:{atomic} template:core.v1.PodTemplateSpec",
  "core.v1.ReplicationControllerStatus":
    "availableReplicas:%int32 conditions:[map=type]core.v1.ReplicationControllerCondition/merge=type fullyLabeledReplicas:%int32 observedGeneration:%int64 readyReplicas:%int32 replicas:%int32",
  "core.v1.ResourceClaim": "name request",
  "core.v1.ResourceFieldSelector": "@atomic containerName divisor:%quantity resource",
  "core.v1.ResourceHealth": "health message resourceID",
  "core.v1.ResourceQuota":
    "apiVersion kind metadata!:meta.v1.ObjectMeta spec!:core.v1.ResourceQuotaSpec status!:core.v1.ResourceQuotaStatus",
  "core.v1.ResourceQuotaSpec": "hard:{}%quantity scopeSelector:core.v1.ScopeSelector scopes:[]",
  "core.v1.ResourceQuotaStatus": "hard:{}%quantity used:{}%quantity",
  "core.v1.ResourceRequirements":
    "claims:[map=name]core.v1.ResourceClaim limits:{}%quantity requests:{}%quantity",
  "core.v1.ResourceStatus": "name resources:[map=resourceID]core.v1.ResourceHealth",
  "core.v1.SELinuxOptions": "level role type user",
  "core.v1.ScaleIOPersistentVolumeSource":
    "fsType gateway protectionDomain readOnly:%bool secretRef~:core.v1.SecretReference sslEnabled:%bool storageMode storagePool system volumeName",
  "core.v1.ScaleIOVolumeSource":
    "fsType gateway protectionDomain readOnly:%bool secretRef~:core.v1.LocalObjectReference sslEnabled:%bool storageMode storagePool system volumeName",
  "core.v1.ScopeSelector": "@atomic matchExpressions:[]core.v1.ScopedResourceSelectorRequirement",
  "core.v1.ScopedResourceSelectorRequirement": "operator scopeName values:[]",
  "core.v1.SeccompProfile": "localhostProfile type",
  "core.v1.Secret":
    "apiVersion data:{} immutable:%bool kind metadata!:meta.v1.ObjectMeta stringData:{} type",
  "core.v1.SecretEnvSource": "name optional:%bool",
  "core.v1.SecretKeySelector": "@atomic key name optional:%bool",
  "core.v1.SecretProjection": "items:[]core.v1.KeyToPath name optional:%bool",
  "core.v1.SecretReference": "@atomic name namespace",
  "core.v1.SecretVolumeSource":
    "defaultMode:%int32 items:[]core.v1.KeyToPath optional:%bool secretName",
  "core.v1.SecurityContext":
    "allowPrivilegeEscalation:%bool appArmorProfile:core.v1.AppArmorProfile capabilities:core.v1.Capabilities privileged:%bool procMount readOnlyRootFilesystem:%bool runAsGroup:%int64 runAsNonRoot:%bool runAsUser:%int64 seLinuxOptions:core.v1.SELinuxOptions seccompProfile:core.v1.SeccompProfile windowsOptions:core.v1.WindowsSecurityContextOptions",
  "core.v1.Service":
    "apiVersion kind metadata!:meta.v1.ObjectMeta spec!:core.v1.ServiceSpec status!:core.v1.ServiceStatus",
  "core.v1.ServiceAccount":
    "apiVersion automountServiceAccountToken:%bool imagePullSecrets:[]core.v1.LocalObjectReference kind metadata!:meta.v1.ObjectMeta secrets:[map=name]core.v1.ObjectReference/merge=name",
  "core.v1.ServiceAccountTokenProjection": "audience expirationSeconds:%int64 path",
  "core.v1.ServicePort": "appProtocol name nodePort:%int32 port:%int32 protocol targetPort:%intstr",
  "core.v1.ServiceSpec":
    "allocateLoadBalancerNodePorts:%bool clusterIP clusterIPs:[] externalIPs:[] externalName externalTrafficPolicy healthCheckNodePort:%int32 internalTrafficPolicy ipFamilies:[] ipFamilyPolicy loadBalancerClass loadBalancerIP loadBalancerSourceRanges:[] ports:[map=port,protocol:TCP]core.v1.ServicePort/merge=port publishNotReadyAddresses:%bool selector:{atomic} sessionAffinity sessionAffinityConfig:core.v1.SessionAffinityConfig trafficDistribution type",
  "core.v1.ServiceStatus":
    "conditions:[map=type]meta.v1.Condition/merge=type loadBalancer!:core.v1.LoadBalancerStatus",
  "core.v1.SessionAffinityConfig": "clientIP:core.v1.ClientIPConfig",
  "core.v1.SleepAction": "seconds:%int64",
  "core.v1.StorageOSPersistentVolumeSource":
    "fsType readOnly:%bool secretRef:core.v1.ObjectReference volumeName volumeNamespace",
  "core.v1.StorageOSVolumeSource":
    "fsType readOnly:%bool secretRef:core.v1.LocalObjectReference volumeName volumeNamespace",
  "core.v1.Sysctl": "name value",
  "core.v1.TCPSocketAction": "host port:%intstr",
  "core.v1.Taint": "effect key timeAdded value",
  "core.v1.Toleration": "effect key operator tolerationSeconds:%int64 value",
  "core.v1.TopologySelectorLabelRequirement": "key values~:[]",
  "core.v1.TopologySelectorTerm":
    "@atomic matchLabelExpressions:[]core.v1.TopologySelectorLabelRequirement",
  "core.v1.TopologySpreadConstraint":
    "labelSelector:meta.v1.LabelSelector matchLabelKeys:[] maxSkew:%int32 minDomains:%int32 nodeAffinityPolicy nodeTaintsPolicy topologyKey whenUnsatisfiable",
  "core.v1.TypedLocalObjectReference": "@atomic apiGroup kind name",
  "core.v1.TypedObjectReference": "apiGroup kind name namespace",
  "core.v1.Volume":
    "awsElasticBlockStore:core.v1.AWSElasticBlockStoreVolumeSource azureDisk:core.v1.AzureDiskVolumeSource azureFile:core.v1.AzureFileVolumeSource cephfs:core.v1.CephFSVolumeSource cinder:core.v1.CinderVolumeSource configMap:core.v1.ConfigMapVolumeSource csi:core.v1.CSIVolumeSource downwardAPI:core.v1.DownwardAPIVolumeSource emptyDir:core.v1.EmptyDirVolumeSource ephemeral:core.v1.EphemeralVolumeSource fc:core.v1.FCVolumeSource flexVolume:core.v1.FlexVolumeSource flocker:core.v1.FlockerVolumeSource gcePersistentDisk:core.v1.GCEPersistentDiskVolumeSource gitRepo:core.v1.GitRepoVolumeSource glusterfs:core.v1.GlusterfsVolumeSource hostPath:core.v1.HostPathVolumeSource image:core.v1.ImageVolumeSource iscsi:core.v1.ISCSIVolumeSource name nfs:core.v1.NFSVolumeSource persistentVolumeClaim:core.v1.PersistentVolumeClaimVolumeSource photonPersistentDisk:core.v1.PhotonPersistentDiskVolumeSource portworxVolume:core.v1.PortworxVolumeSource projected:core.v1.ProjectedVolumeSource quobyte:core.v1.QuobyteVolumeSource rbd:core.v1.RBDVolumeSource scaleIO:core.v1.ScaleIOVolumeSource secret:core.v1.SecretVolumeSource storageos:core.v1.StorageOSVolumeSource vsphereVolume:core.v1.VsphereVirtualDiskVolumeSource",
  "core.v1.VolumeDevice": "devicePath name",
  "core.v1.VolumeMount":
    "mountPath mountPropagation name readOnly:%bool recursiveReadOnly subPath subPathExpr",
  "core.v1.VolumeMountStatus":
    "mountPath name readOnly:%bool recursiveReadOnly volumeStatus:core.v1.VolumeStatus",
  "core.v1.VolumeNodeAffinity": "required:core.v1.NodeSelector",
  "core.v1.VolumeProjection":
    "clusterTrustBundle:core.v1.ClusterTrustBundleProjection configMap:core.v1.ConfigMapProjection downwardAPI:core.v1.DownwardAPIProjection podCertificate:core.v1.PodCertificateProjection secret:core.v1.SecretProjection serviceAccountToken:core.v1.ServiceAccountTokenProjection",
  "core.v1.VolumeResourceRequirements": "limits:{}%quantity requests:{}%quantity",
  "core.v1.VolumeStatus": "image:core.v1.ImageVolumeStatus",
  "core.v1.VsphereVirtualDiskVolumeSource": "fsType storagePolicyID storagePolicyName volumePath",
  "core.v1.WeightedPodAffinityTerm": "podAffinityTerm!:core.v1.PodAffinityTerm weight:%int32",
  "core.v1.WindowsSecurityContextOptions":
    "gmsaCredentialSpec gmsaCredentialSpecName hostProcess:%bool runAsUserName",
  "discovery.v1.Endpoint":
    "addresses~:[set] conditions!:discovery.v1.EndpointConditions deprecatedTopology:{} hints:discovery.v1.EndpointHints hostname nodeName targetRef:core.v1.ObjectReference zone",
  "discovery.v1.EndpointConditions": "ready:%bool serving:%bool terminating:%bool",
  "discovery.v1.EndpointHints": "forNodes:[]discovery.v1.ForNode forZones:[]discovery.v1.ForZone",
  "discovery.v1.EndpointPort": "@atomic appProtocol name port:%int32 protocol",
  "discovery.v1.EndpointSlice":
    "addressType apiVersion endpoints~:[]discovery.v1.Endpoint kind metadata!:meta.v1.ObjectMeta ports~:[]discovery.v1.EndpointPort",
  "discovery.v1.ForNode": "name",
  "discovery.v1.ForZone": "name",
  "events.v1.Event":
    "action apiVersion deprecatedCount:%int32 deprecatedFirstTimestamp deprecatedLastTimestamp deprecatedSource!:core.v1.EventSource eventTime kind metadata!:meta.v1.ObjectMeta note reason regarding!:core.v1.ObjectReference related:core.v1.ObjectReference reportingController reportingInstance series:events.v1.EventSeries type",
  "events.v1.EventSeries": "count:%int32 lastObservedTime",
  "flowcontrol.v1.ExemptPriorityLevelConfiguration":
    "lendablePercent:%int32 nominalConcurrencyShares:%int32",
  "flowcontrol.v1.FlowDistinguisherMethod": "type",
  "flowcontrol.v1.FlowSchema":
    "apiVersion kind metadata!:meta.v1.ObjectMeta spec!:flowcontrol.v1.FlowSchemaSpec status!:flowcontrol.v1.FlowSchemaStatus",
  "flowcontrol.v1.FlowSchemaCondition": "lastTransitionTime message reason status type",
  "flowcontrol.v1.FlowSchemaSpec":
    "distinguisherMethod:flowcontrol.v1.FlowDistinguisherMethod matchingPrecedence:%int32 priorityLevelConfiguration!:flowcontrol.v1.PriorityLevelConfigurationReference rules:[]flowcontrol.v1.PolicyRulesWithSubjects",
  "flowcontrol.v1.FlowSchemaStatus":
    "conditions:[map=type]flowcontrol.v1.FlowSchemaCondition/merge=type",
  "flowcontrol.v1.GroupSubject": "name",
  "flowcontrol.v1.LimitResponse": "queuing:flowcontrol.v1.QueuingConfiguration type",
  "flowcontrol.v1.LimitedPriorityLevelConfiguration":
    "borrowingLimitPercent:%int32 lendablePercent:%int32 limitResponse!:flowcontrol.v1.LimitResponse nominalConcurrencyShares:%int32",
  "flowcontrol.v1.NonResourcePolicyRule": "nonResourceURLs~:[set] verbs~:[set]",
  "flowcontrol.v1.PolicyRulesWithSubjects":
    "nonResourceRules:[]flowcontrol.v1.NonResourcePolicyRule resourceRules:[]flowcontrol.v1.ResourcePolicyRule subjects~:[]flowcontrol.v1.Subject",
  "flowcontrol.v1.PriorityLevelConfiguration":
    "apiVersion kind metadata!:meta.v1.ObjectMeta spec!:flowcontrol.v1.PriorityLevelConfigurationSpec status!:flowcontrol.v1.PriorityLevelConfigurationStatus",
  "flowcontrol.v1.PriorityLevelConfigurationCondition":
    "lastTransitionTime message reason status type",
  "flowcontrol.v1.PriorityLevelConfigurationReference": "name",
  "flowcontrol.v1.PriorityLevelConfigurationSpec":
    "exempt:flowcontrol.v1.ExemptPriorityLevelConfiguration limited:flowcontrol.v1.LimitedPriorityLevelConfiguration type",
  "flowcontrol.v1.PriorityLevelConfigurationStatus":
    "conditions:[map=type]flowcontrol.v1.PriorityLevelConfigurationCondition/merge=type",
  "flowcontrol.v1.QueuingConfiguration": "handSize:%int32 queueLengthLimit:%int32 queues:%int32",
  "flowcontrol.v1.ResourcePolicyRule":
    "apiGroups~:[set] clusterScope:%bool namespaces~:[set] resources~:[set] verbs~:[set]",
  "flowcontrol.v1.ServiceAccountSubject": "name namespace",
  "flowcontrol.v1.Subject":
    "group:flowcontrol.v1.GroupSubject kind serviceAccount:flowcontrol.v1.ServiceAccountSubject user:flowcontrol.v1.UserSubject",
  "flowcontrol.v1.UserSubject": "name",
  "meta.v1.Condition": "lastTransitionTime message observedGeneration:%int64 reason status type",
  "meta.v1.FieldSelectorRequirement": "key operator values:[]",
  "meta.v1.LabelSelector":
    "@atomic matchExpressions:[]meta.v1.LabelSelectorRequirement matchLabels:{}",
  "meta.v1.LabelSelectorRequirement": "key operator values:[]",
  "meta.v1.ManagedFieldsEntry":
    "apiVersion fieldsType fieldsV1:* manager operation subresource time",
  "meta.v1.ObjectMeta":
    "annotations:{} creationTimestamp deletionGracePeriodSeconds:%int64 deletionTimestamp finalizers:[set]/merge generateName generation:%int64 labels:{} managedFields:[]meta.v1.ManagedFieldsEntry name namespace ownerReferences:[map=uid]meta.v1.OwnerReference/merge=uid resourceVersion selfLink uid",
  "meta.v1.OwnerReference":
    "@atomic apiVersion blockOwnerDeletion:%bool controller:%bool kind name uid",
  "networking.v1.HTTPIngressPath": "backend!:networking.v1.IngressBackend path pathType",
  "networking.v1.HTTPIngressRuleValue": "paths~:[]networking.v1.HTTPIngressPath",
  "networking.v1.IPAddress":
    "apiVersion kind metadata!:meta.v1.ObjectMeta spec!:networking.v1.IPAddressSpec",
  "networking.v1.IPAddressSpec": "parentRef:networking.v1.ParentReference",
  "networking.v1.IPBlock": "cidr except:[]",
  "networking.v1.Ingress":
    "apiVersion kind metadata!:meta.v1.ObjectMeta spec!:networking.v1.IngressSpec status!:networking.v1.IngressStatus",
  "networking.v1.IngressBackend":
    "resource:core.v1.TypedLocalObjectReference service:networking.v1.IngressServiceBackend",
  "networking.v1.IngressClass":
    "apiVersion kind metadata!:meta.v1.ObjectMeta spec!:networking.v1.IngressClassSpec",
  "networking.v1.IngressClassParametersReference": "apiGroup kind name namespace scope",
  "networking.v1.IngressClassSpec":
    "controller parameters:networking.v1.IngressClassParametersReference",
  "networking.v1.IngressLoadBalancerIngress": "hostname ip ports:[]networking.v1.IngressPortStatus",
  "networking.v1.IngressLoadBalancerStatus": "ingress:[]networking.v1.IngressLoadBalancerIngress",
  "networking.v1.IngressPortStatus": "error port:%int32 protocol",
  "networking.v1.IngressRule": "host http:networking.v1.HTTPIngressRuleValue",
  "networking.v1.IngressServiceBackend": "name port!:networking.v1.ServiceBackendPort",
  "networking.v1.IngressSpec":
    "defaultBackend:networking.v1.IngressBackend ingressClassName rules:[]networking.v1.IngressRule tls:[]networking.v1.IngressTLS",
  "networking.v1.IngressStatus": "loadBalancer!:networking.v1.IngressLoadBalancerStatus",
  "networking.v1.IngressTLS": "hosts:[] secretName",
  "networking.v1.NetworkPolicy":
    "apiVersion kind metadata!:meta.v1.ObjectMeta spec!:networking.v1.NetworkPolicySpec",
  "networking.v1.NetworkPolicyEgressRule":
    "ports:[]networking.v1.NetworkPolicyPort to:[]networking.v1.NetworkPolicyPeer",
  "networking.v1.NetworkPolicyIngressRule":
    "from:[]networking.v1.NetworkPolicyPeer ports:[]networking.v1.NetworkPolicyPort",
  "networking.v1.NetworkPolicyPeer":
    "ipBlock:networking.v1.IPBlock namespaceSelector:meta.v1.LabelSelector podSelector:meta.v1.LabelSelector",
  "networking.v1.NetworkPolicyPort": "endPort:%int32 port:%intstr protocol",
  "networking.v1.NetworkPolicySpec":
    "egress:[]networking.v1.NetworkPolicyEgressRule ingress:[]networking.v1.NetworkPolicyIngressRule podSelector!:meta.v1.LabelSelector policyTypes:[]",
  "networking.v1.ParentReference": "group name namespace resource",
  "networking.v1.ServiceBackendPort": "@atomic name number:%int32",
  "networking.v1.ServiceCIDR":
    "apiVersion kind metadata!:meta.v1.ObjectMeta spec!:networking.v1.ServiceCIDRSpec status!:networking.v1.ServiceCIDRStatus",
  "networking.v1.ServiceCIDRSpec": "cidrs:[]",
  "networking.v1.ServiceCIDRStatus": "conditions:[map=type]meta.v1.Condition/merge=type",
  "node.v1.Overhead": "podFixed:{}%quantity",
  "node.v1.RuntimeClass":
    "apiVersion handler kind metadata!:meta.v1.ObjectMeta overhead:node.v1.Overhead scheduling:node.v1.Scheduling",
  "node.v1.Scheduling": "nodeSelector:{atomic} tolerations:[]core.v1.Toleration",
  "policy.v1.PodDisruptionBudget":
    "apiVersion kind metadata!:meta.v1.ObjectMeta spec!:policy.v1.PodDisruptionBudgetSpec status!:policy.v1.PodDisruptionBudgetStatus",
  "policy.v1.PodDisruptionBudgetSpec":
    "maxUnavailable:%intstr minAvailable:%intstr selector:meta.v1.LabelSelector/replace unhealthyPodEvictionPolicy",
  "policy.v1.PodDisruptionBudgetStatus":
    "conditions:[map=type]meta.v1.Condition/merge=type currentHealthy:%int32 desiredHealthy:%int32 disruptedPods:{} disruptionsAllowed:%int32 expectedPods:%int32 observedGeneration:%int64",
  "rbac.v1.AggregationRule": "clusterRoleSelectors:[]meta.v1.LabelSelector",
  "rbac.v1.ClusterRole":
    "aggregationRule:rbac.v1.AggregationRule apiVersion kind metadata!:meta.v1.ObjectMeta rules~:[]rbac.v1.PolicyRule",
  "rbac.v1.ClusterRoleBinding":
    "apiVersion kind metadata!:meta.v1.ObjectMeta roleRef!:rbac.v1.RoleRef subjects:[]rbac.v1.Subject",
  "rbac.v1.PolicyRule": "apiGroups:[] nonResourceURLs:[] resourceNames:[] resources:[] verbs~:[]",
  "rbac.v1.Role": "apiVersion kind metadata!:meta.v1.ObjectMeta rules~:[]rbac.v1.PolicyRule",
  "rbac.v1.RoleBinding":
    "apiVersion kind metadata!:meta.v1.ObjectMeta roleRef!:rbac.v1.RoleRef subjects:[]rbac.v1.Subject",
  "rbac.v1.RoleRef": "@atomic apiGroup kind name",
  "rbac.v1.Subject": "@atomic apiGroup kind name namespace",
  "resource.v1.AllocatedDeviceStatus":
    "conditions~:[map=type]meta.v1.Condition data:*atomic device driver networkData:resource.v1.NetworkDeviceData pool shareID",
  "resource.v1.AllocationResult":
    "allocationTimestamp devices!:resource.v1.DeviceAllocationResult nodeSelector:core.v1.NodeSelector",
  "resource.v1.CELDeviceSelector": "expression",
  "resource.v1.CapacityRequestPolicy":
    "default:%quantity validRange:resource.v1.CapacityRequestPolicyRange validValues:[]%quantity",
  "resource.v1.CapacityRequestPolicyRange": "max:%quantity min:%quantity step:%quantity",
  "resource.v1.CapacityRequirements": "requests:{}%quantity",
  "resource.v1.Counter": "value:%quantity",
  "resource.v1.CounterSet": "counters:{}resource.v1.Counter name",
  "resource.v1.Device":
    "allNodes:%bool allowMultipleAllocations:%bool attributes:{}resource.v1.DeviceAttribute bindingConditions:[] bindingFailureConditions:[] bindsToNode:%bool capacity:{}resource.v1.DeviceCapacity consumesCounters:[]resource.v1.DeviceCounterConsumption name nodeAllocatableResourceMappings:{}resource.v1.NodeAllocatableResourceMapping nodeName nodeSelector:core.v1.NodeSelector taints:[]resource.v1.DeviceTaint",
  "resource.v1.DeviceAllocationConfiguration":
    "opaque:resource.v1.OpaqueDeviceConfiguration requests:[] source",
  "resource.v1.DeviceAllocationResult":
    "config:[]resource.v1.DeviceAllocationConfiguration results:[]resource.v1.DeviceRequestAllocationResult",
  "resource.v1.DeviceAttribute":
    "bool:%bool bools:[]%bool int:%int64 ints:[]%int64 string strings:[] version versions:[]",
  "resource.v1.DeviceCapacity": "requestPolicy:resource.v1.CapacityRequestPolicy value:%quantity",
  "resource.v1.DeviceClaim":
    "config:[]resource.v1.DeviceClaimConfiguration constraints:[]resource.v1.DeviceConstraint requests~:[]resource.v1.DeviceRequest",
  "resource.v1.DeviceClaimConfiguration":
    "opaque:resource.v1.OpaqueDeviceConfiguration requests:[]",
  "resource.v1.DeviceClass":
    "apiVersion kind metadata!:meta.v1.ObjectMeta spec!:resource.v1.DeviceClassSpec",
  "resource.v1.DeviceClassConfiguration": "opaque:resource.v1.OpaqueDeviceConfiguration",
  "resource.v1.DeviceClassSpec":
    "config:[]resource.v1.DeviceClassConfiguration extendedResourceName selectors:[]resource.v1.DeviceSelector",
  "resource.v1.DeviceConstraint": "distinctAttribute matchAttribute requests:[]",
  "resource.v1.DeviceCounterConsumption": "counterSet counters:{}resource.v1.Counter",
  "resource.v1.DeviceRequest":
    "exactly:resource.v1.ExactDeviceRequest firstAvailable:[]resource.v1.DeviceSubRequest name",
  "resource.v1.DeviceRequestAllocationResult":
    "adminAccess:%bool bindingConditions:[] bindingFailureConditions:[] consumedCapacity:{}%quantity device driver pool request shareID tolerations:[]resource.v1.DeviceToleration",
  "resource.v1.DeviceSelector": "cel:resource.v1.CELDeviceSelector",
  "resource.v1.DeviceSubRequest":
    "allocationMode capacity:resource.v1.CapacityRequirements count:%int64 deviceClassName name selectors:[]resource.v1.DeviceSelector tolerations:[]resource.v1.DeviceToleration",
  "resource.v1.DeviceTaint": "effect key timeAdded value",
  "resource.v1.DeviceToleration": "effect key operator tolerationSeconds:%int64 value",
  "resource.v1.ExactDeviceRequest":
    "adminAccess:%bool allocationMode capacity:resource.v1.CapacityRequirements count:%int64 deviceClassName selectors:[]resource.v1.DeviceSelector tolerations:[]resource.v1.DeviceToleration",
  "resource.v1.NetworkDeviceData": "hardwareAddress interfaceName ips:[]",
  "resource.v1.NodeAllocatableResourceMapping": "allocationMultiplier:%quantity capacityKey",
  "resource.v1.OpaqueDeviceConfiguration": "driver parameters~:*atomic",
  "resource.v1.ResourceClaim":
    "apiVersion kind metadata!:meta.v1.ObjectMeta spec!:resource.v1.ResourceClaimSpec status!:resource.v1.ResourceClaimStatus",
  "resource.v1.ResourceClaimConsumerReference": "apiGroup name resource uid",
  "resource.v1.ResourceClaimSpec": "devices!:resource.v1.DeviceClaim",
  "resource.v1.ResourceClaimStatus":
    "allocation:resource.v1.AllocationResult devices:[map=driver,device,pool,shareID]resource.v1.AllocatedDeviceStatus reservedFor:[map=uid]resource.v1.ResourceClaimConsumerReference/merge=uid",
  "resource.v1.ResourceClaimTemplate":
    "apiVersion kind metadata!:meta.v1.ObjectMeta spec!:resource.v1.ResourceClaimTemplateSpec",
  "resource.v1.ResourceClaimTemplateSpec":
    "metadata!:meta.v1.ObjectMeta spec!:resource.v1.ResourceClaimSpec",
  "resource.v1.ResourcePool": "generation:%int64 name resourceSliceCount:%int64",
  "resource.v1.ResourceSlice":
    "apiVersion kind metadata!:meta.v1.ObjectMeta spec!:resource.v1.ResourceSliceSpec",
  "resource.v1.ResourceSliceSpec":
    "allNodes:%bool devices:[]resource.v1.Device driver nodeName nodeSelector:core.v1.NodeSelector perDeviceNodeSelection:%bool pool!:resource.v1.ResourcePool sharedCounters:[]resource.v1.CounterSet",
  "scheduling.v1.PriorityClass":
    "apiVersion description globalDefault:%bool kind metadata!:meta.v1.ObjectMeta preemptionPolicy value:%int32",
  "storage.v1.CSIDriver":
    "apiVersion kind metadata!:meta.v1.ObjectMeta spec!:storage.v1.CSIDriverSpec",
  "storage.v1.CSIDriverSpec":
    "attachRequired:%bool fsGroupPolicy nodeAllocatableUpdatePeriodSeconds:%int64 podInfoOnMount:%bool preventPodSchedulingIfMissing:%bool requiresRepublish:%bool seLinuxMount:%bool serviceAccountTokenInSecrets:%bool storageCapacity:%bool tokenRequests:[]storage.v1.TokenRequest volumeLifecycleModes:[set]",
  "storage.v1.CSINode": "apiVersion kind metadata!:meta.v1.ObjectMeta spec!:storage.v1.CSINodeSpec",
  "storage.v1.CSINodeDriver":
    "allocatable:storage.v1.VolumeNodeResources name nodeID topologyKeys~:[]",
  "storage.v1.CSINodeSpec": "drivers~:[map=name]storage.v1.CSINodeDriver/merge=name",
  "storage.v1.CSIStorageCapacity":
    "apiVersion capacity:%quantity kind maximumVolumeSize:%quantity metadata!:meta.v1.ObjectMeta nodeTopology:meta.v1.LabelSelector storageClassName",
  "storage.v1.StorageClass":
    "allowVolumeExpansion:%bool allowedTopologies:[]core.v1.TopologySelectorTerm apiVersion kind metadata!:meta.v1.ObjectMeta mountOptions:[] parameters:{} provisioner reclaimPolicy volumeBindingMode",
  "storage.v1.TokenRequest": "audience expirationSeconds:%int64",
  "storage.v1.VolumeAttachment":
    "apiVersion kind metadata!:meta.v1.ObjectMeta spec!:storage.v1.VolumeAttachmentSpec status!:storage.v1.VolumeAttachmentStatus",
  "storage.v1.VolumeAttachmentSource":
    "inlineVolumeSpec:core.v1.PersistentVolumeSpec persistentVolumeName",
  "storage.v1.VolumeAttachmentSpec": "attacher nodeName source!:storage.v1.VolumeAttachmentSource",
  "storage.v1.VolumeAttachmentStatus":
    "attachError:storage.v1.VolumeError attached:%bool attachmentMetadata:{} detachError:storage.v1.VolumeError",
  "storage.v1.VolumeAttributesClass":
    "apiVersion driverName kind metadata!:meta.v1.ObjectMeta parameters:{}",
  "storage.v1.VolumeError": "errorCode:%int32 message time",
  "storage.v1.VolumeNodeResources": "count:%int32",
};

/** The root type of each built-in kind, by `group/version/Kind` (the core group's `/v1/Kind`). */
export const BUILTIN_ROOTS: Readonly<Record<string, string>> = {
  "/v1/Binding": "core.v1.Binding",
  "/v1/ComponentStatus": "core.v1.ComponentStatus",
  "/v1/ConfigMap": "core.v1.ConfigMap",
  "/v1/Endpoints": "core.v1.Endpoints",
  "/v1/Event": "core.v1.Event",
  "/v1/LimitRange": "core.v1.LimitRange",
  "/v1/Namespace": "core.v1.Namespace",
  "/v1/Node": "core.v1.Node",
  "/v1/PersistentVolume": "core.v1.PersistentVolume",
  "/v1/PersistentVolumeClaim": "core.v1.PersistentVolumeClaim",
  "/v1/Pod": "core.v1.Pod",
  "/v1/PodTemplate": "core.v1.PodTemplate",
  "/v1/ReplicationController": "core.v1.ReplicationController",
  "/v1/ResourceQuota": "core.v1.ResourceQuota",
  "/v1/Secret": "core.v1.Secret",
  "/v1/Service": "core.v1.Service",
  "/v1/ServiceAccount": "core.v1.ServiceAccount",
  "admissionregistration.k8s.io/v1/MutatingAdmissionPolicy":
    "admissionregistration.v1.MutatingAdmissionPolicy",
  "admissionregistration.k8s.io/v1/MutatingAdmissionPolicyBinding":
    "admissionregistration.v1.MutatingAdmissionPolicyBinding",
  "admissionregistration.k8s.io/v1/MutatingWebhookConfiguration":
    "admissionregistration.v1.MutatingWebhookConfiguration",
  "admissionregistration.k8s.io/v1/ValidatingAdmissionPolicy":
    "admissionregistration.v1.ValidatingAdmissionPolicy",
  "admissionregistration.k8s.io/v1/ValidatingAdmissionPolicyBinding":
    "admissionregistration.v1.ValidatingAdmissionPolicyBinding",
  "admissionregistration.k8s.io/v1/ValidatingWebhookConfiguration":
    "admissionregistration.v1.ValidatingWebhookConfiguration",
  "apiextensions.k8s.io/v1/CustomResourceDefinition": "apiextensions.v1.CustomResourceDefinition",
  "apiregistration.k8s.io/v1/APIService": "apiregistration.v1.APIService",
  "apps/v1/ControllerRevision": "apps.v1.ControllerRevision",
  "apps/v1/DaemonSet": "apps.v1.DaemonSet",
  "apps/v1/Deployment": "apps.v1.Deployment",
  "apps/v1/ReplicaSet": "apps.v1.ReplicaSet",
  "apps/v1/StatefulSet": "apps.v1.StatefulSet",
  "authentication.k8s.io/v1/SelfSubjectReview": "authentication.v1.SelfSubjectReview",
  "authentication.k8s.io/v1/TokenReview": "authentication.v1.TokenReview",
  "authorization.k8s.io/v1/LocalSubjectAccessReview": "authorization.v1.LocalSubjectAccessReview",
  "authorization.k8s.io/v1/SelfSubjectAccessReview": "authorization.v1.SelfSubjectAccessReview",
  "authorization.k8s.io/v1/SelfSubjectRulesReview": "authorization.v1.SelfSubjectRulesReview",
  "authorization.k8s.io/v1/SubjectAccessReview": "authorization.v1.SubjectAccessReview",
  "autoscaling/v1/HorizontalPodAutoscaler": "autoscaling.v1.HorizontalPodAutoscaler",
  "autoscaling/v2/HorizontalPodAutoscaler": "autoscaling.v2.HorizontalPodAutoscaler",
  "batch/v1/CronJob": "batch.v1.CronJob",
  "batch/v1/Job": "batch.v1.Job",
  "certificates.k8s.io/v1/CertificateSigningRequest": "certificates.v1.CertificateSigningRequest",
  "coordination.k8s.io/v1/Lease": "coordination.v1.Lease",
  "discovery.k8s.io/v1/EndpointSlice": "discovery.v1.EndpointSlice",
  "events.k8s.io/v1/Event": "events.v1.Event",
  "flowcontrol.apiserver.k8s.io/v1/FlowSchema": "flowcontrol.v1.FlowSchema",
  "flowcontrol.apiserver.k8s.io/v1/PriorityLevelConfiguration":
    "flowcontrol.v1.PriorityLevelConfiguration",
  "networking.k8s.io/v1/IPAddress": "networking.v1.IPAddress",
  "networking.k8s.io/v1/Ingress": "networking.v1.Ingress",
  "networking.k8s.io/v1/IngressClass": "networking.v1.IngressClass",
  "networking.k8s.io/v1/NetworkPolicy": "networking.v1.NetworkPolicy",
  "networking.k8s.io/v1/ServiceCIDR": "networking.v1.ServiceCIDR",
  "node.k8s.io/v1/RuntimeClass": "node.v1.RuntimeClass",
  "policy/v1/PodDisruptionBudget": "policy.v1.PodDisruptionBudget",
  "rbac.authorization.k8s.io/v1/ClusterRole": "rbac.v1.ClusterRole",
  "rbac.authorization.k8s.io/v1/ClusterRoleBinding": "rbac.v1.ClusterRoleBinding",
  "rbac.authorization.k8s.io/v1/Role": "rbac.v1.Role",
  "rbac.authorization.k8s.io/v1/RoleBinding": "rbac.v1.RoleBinding",
  "resource.k8s.io/v1/DeviceClass": "resource.v1.DeviceClass",
  "resource.k8s.io/v1/ResourceClaim": "resource.v1.ResourceClaim",
  "resource.k8s.io/v1/ResourceClaimTemplate": "resource.v1.ResourceClaimTemplate",
  "resource.k8s.io/v1/ResourceSlice": "resource.v1.ResourceSlice",
  "scheduling.k8s.io/v1/PriorityClass": "scheduling.v1.PriorityClass",
  "storage.k8s.io/v1/CSIDriver": "storage.v1.CSIDriver",
  "storage.k8s.io/v1/CSINode": "storage.v1.CSINode",
  "storage.k8s.io/v1/CSIStorageCapacity": "storage.v1.CSIStorageCapacity",
  "storage.k8s.io/v1/StorageClass": "storage.v1.StorageClass",
  "storage.k8s.io/v1/VolumeAttachment": "storage.v1.VolumeAttachment",
  "storage.k8s.io/v1/VolumeAttributesClass": "storage.v1.VolumeAttributesClass",
};
