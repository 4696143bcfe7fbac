/**
 * kontroller/resources — resource definitions: where each kind is served and how it is named,
 * with the TypeScript type of its objects. The built-in kinds the embedded API server serves
 * are defined here.
 */
export type {
  BuiltinResourceFacts,
  BuiltinSubresourceFacts,
} from "./builtin-resource-facts.ts";
export { BUILTIN_RESOURCES } from "./builtin-resources.ts";
export {
  builtinResources,
  type ConfigMap,
  configMaps,
  customResourceDefinitions,
  type Deployment,
  deployments,
  type Event,
  type EventsV1Event,
  events,
  eventsV1,
  type Lease,
  leases,
  type Namespace,
  type Node,
  namespaces,
  nodes,
  type Pod,
  pods,
  type Secret,
  type Service,
  type ServiceAccount,
  secrets,
  serviceAccounts,
  services,
} from "./builtins.ts";
export { type CodegenOptions, definitionModule, typeBox } from "./codegen.ts";
export {
  type CustomResourceDefinition,
  type CustomResourceDefinitionVersion,
  isEstablished,
} from "./crd-type.ts";
export type {
  CrdManifest,
  CrdVersion,
  CustomObject,
  CustomObjectOf,
  CustomResourceDefinitionOf,
  DefineResourceInit,
  ObjectInit,
  PrinterColumn,
  ResourceOf,
  ScaleSubresource,
  VersionInit,
} from "./custom-resource.ts";
export { defineResource } from "./define-resource.ts";
export { fromTypeBox } from "./from-typebox.ts";
export { OPENAPI_SCHEMA_KEYWORDS, type OpenApiSchema } from "./openapi-schema.ts";
export {
  decodeMessage,
  decodeObject,
  type Envelope,
  hasProtobufMagic,
  ProtobufError,
  readEnvelope,
} from "./protobuf-codec.ts";
export { compactMessage } from "./protobuf-compact.ts";
export { encodeEnvelope, encodeMessage, encodeObject } from "./protobuf-encode.ts";
export {
  kindMessage,
  type ProtoField,
  type ProtoMessage,
  protoMessage,
} from "./protobuf-schema.ts";
export {
  type AggregatedRole,
  type AggregationRule,
  aggregateClusterRoles,
  aggregatedRules,
  sameRules,
} from "./rbac-aggregation.ts";
export {
  apiVersionOf,
  isNamespaced,
  type ResourceDefinition,
  type ResourceDefinitionInit,
  type ResourceScope,
  resourceDefinition,
} from "./resource-definition.ts";
export { applyDefaults } from "./schema-defaults.ts";
export { type PruneOptions, prune } from "./schema-prune.ts";
export { compileSchema, fieldPath, type SchemaValidator } from "./schema-validator.ts";
export { structuralProblems } from "./structural-schema.ts";
