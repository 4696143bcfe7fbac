/**
 * kontroller/cache — informers: the Reflector (a pure state machine with a thin I/O shell), the
 * DeltaFIFO, the Indexer with its read-only Store view, SharedInformer with per-handler
 * buffers, the InformerFactory, and Listers.
 */
export {
  type Delta,
  DeltaFIFO,
  type DeltaFIFOOptions,
  FifoClosedError,
  TransformOutputError,
} from "./delta-fifo.ts";
export { failureReason } from "./failure-reason.ts";
export { Indexer, type IndexerOptions } from "./indexer.ts";
export {
  InformerFactory,
  type InformerFactoryOptions,
  type InformerFor,
} from "./informer-factory.ts";
export {
  Lister,
  type ListerOptions,
  type NamespaceLister,
  type SelectorInput,
} from "./lister.ts";
export {
  type CollectionSelectors,
  type ListCall,
  type ListerWatcher,
  listerWatcherFor,
  type WatchCall,
} from "./lister-watcher.ts";
export { type Logger, silentLogger, stderrLogger } from "./logger.ts";
export type { EventHandler, HandlerRegistration, Notification } from "./processor-listener.ts";
export { Reflector, type ReflectorOptions } from "./reflector.ts";
export {
  InitialEventsTimeoutError,
  isResourceVersionTooLarge,
  type ReflectorFailure,
  type ReflectorPhase,
  type ReflectorRecovery,
  ShortWatchError,
  WatchIdleError,
} from "./reflector-errors.ts";
export {
  type Command,
  type Effect,
  type ListRequest,
  type MachineConfig,
  ReflectorMachine,
  type Step,
  type WatchRequest,
} from "./reflector-machine.ts";
export {
  type HandlerOptions,
  SharedInformer,
  type SharedInformerOptions,
} from "./shared-informer.ts";
export {
  type Indexers,
  type IndexFunc,
  NAMESPACE_INDEX,
  namespaceIndexFunc,
  type Store,
} from "./store.ts";
export { stripManagedFields } from "./transforms.ts";
