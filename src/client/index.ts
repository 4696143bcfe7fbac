/**
 * kontroller/client — talking to an API server: `createClient()`, typed `ResourceClient`s
 * (get, list, listAll, watch, create, update, updateStatus, patch, delete, deleteCollection),
 * streaming watch and list decoding, retries, and the `Transport` seam with its HTTP default.
 */
export {
  type BuiltinKinds,
  Client,
  type ClientConstructorOptions,
  type ClientOptions,
  createClient,
  type ResourceOptions,
} from "./client.ts";
export { DecodeError, type DecodeErrorReason, isDecodeError } from "./decode-error.ts";
export {
  type ApiGroupInfo,
  type DiscoveredResource,
  type Discovery,
  DiscoveryClient,
  type DiscoveryClientOptions,
} from "./discovery.ts";
export { HttpTransport, type HttpTransportOptions } from "./http-transport.ts";
export {
  contextNamespace,
  type KubeConfigTransportOptions,
  kubeConfigTransport,
  loadKubeConfig,
} from "./kubeconfig.ts";
export type {
  CallOptions,
  DeleteCollectionOptions,
  DeleteOptions,
  GetOptions,
  ListAllOptions,
  ListOptions,
  ListResult,
  PatchOptions,
  PatchType,
  Preconditions,
  SelectorOptions,
  WatchOptions,
  WriteOptions,
} from "./request-options.ts";
export { ResourceClient, type ResourceClientOptions } from "./resource-client.ts";
export type { RetryOptions } from "./retry.ts";
export {
  type HttpMethod,
  isConnectionRefused,
  isTransportError,
  type Transport,
  TransportError,
  type TransportRequest,
  type TransportResponse,
} from "./transport.ts";
