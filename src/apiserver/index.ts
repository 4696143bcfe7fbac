/**
 * kontroller/apiserver — the embedded Kubernetes-compatible API server: storage, watch cache,
 * registry, HTTP and TLS (its own CA, serving and client certificates).
 */

export { auditEventJson } from "./audit/event-json.ts";
export {
  AuditPolicyError,
  type ParseAuditPolicyOptions,
  parseAuditPolicy,
} from "./audit/policy-file.ts";
export {
  type RbacFromAudit,
  RbacFromAuditError,
  type RbacFromAuditOptions,
  type RbacManifest,
  type RbacSubject,
  rbacFromAudit,
  rbacYaml,
  subjectOf,
  subjectUsername,
} from "./audit/rbac-from-audit.ts";
export {
  parseAuditLog,
  type RecordedRequest,
  recordedRequests,
} from "./audit/recorded-requests.ts";
export {
  type AuditSink,
  FileAuditSink,
  type FileAuditSinkOptions,
  MemoryAuditSink,
} from "./audit/sinks.ts";
export type {
  AuditEvent,
  AuditGroupResources,
  AuditLevel,
  AuditObjectReference,
  AuditPolicy,
  AuditPolicyRule,
  AuditResponseStatus,
  AuditStage,
  AuditUser,
} from "./audit/types.ts";
export { AUTHORIZATION_MODES, type AuthorizationMode } from "./auth/authorization.ts";
export {
  parseTokenFile,
  readTokenFile,
  type StaticTokens,
  TokenFileError,
} from "./auth/token-file.ts";
export { type KubeconfigCredentials, kubeconfigFor } from "./http/kubeconfig.ts";
export { ApiServer, type ApiServerOptions } from "./http/server.ts";
export type { AuditOptions } from "./http/server-options.ts";
export {
  type EtcdReadyOptions,
  EtcdStorage,
  type EtcdStorageOptions,
} from "./storage/etcd-storage.ts";
export { MemoryStorage } from "./storage/memory-storage.ts";
export {
  type DeleteResult,
  eventRevision,
  type KeyValue,
  type Storage,
  type StorageEvent,
  type StorageListOptions,
  type StorageListResult,
  type StorageWatchOptions,
  type WatchBatch,
} from "./storage/storage.ts";
export { isStorageError, StorageError, type StorageErrorCode } from "./storage/storage-error.ts";
export { CERT_DIR_FILES, type ServingPki } from "./tls/cert-dir.ts";
export {
  CertificateAuthority,
  type CertificateAuthorityOptions,
  type ClientCertificateOptions,
  type KeyCertificate,
  type ServingCertificateOptions,
} from "./tls/certificate-authority.ts";
export { issueAdminCertificate, type ServingTlsOptions } from "./tls/serving.ts";
export type { WatchCacheStats } from "./watchcache/watch-cache.ts";
