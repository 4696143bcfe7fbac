/**
 * kontroller/controller — the controller runtime: controllers (sources → queue → workers →
 * reconcile), and helpers for owner references, finalizers, create-or-update, predicates and
 * events.
 */
export {
  type ControllerOptions,
  type ControllerSpec,
  controller,
  type MappedWatch,
  type PriorityEvent,
  type Source,
} from "./builder.ts";
export {
  Controller,
  type ControllerDeps,
  DEFAULT_GRACE_MS,
  ReconcileTimeoutError,
  type StopOptions,
} from "./controller.ts";
export {
  type ControllerQueue,
  type EnqueueOptions,
  LOW_PRIORITY,
  type QueueKind,
} from "./controller-queue.ts";
export {
  createOrPatch,
  createOrUpdate,
  type Mutate,
  type OperationResult,
} from "./create-or-update.ts";
export { type EventInit, EventRecorder, type EventRecorderOptions } from "./event-recorder.ts";
export { addFinalizer, hasFinalizer, removeFinalizer } from "./finalizers.ts";
export {
  type LeaderElectionOptions,
  LeadershipLostError,
  Manager,
  type ManagerOptions,
  onTerminate,
} from "./manager.ts";
export { mergePatchDiff } from "./merge-diff.ts";
export {
  AlreadyOwnedError,
  getControllerOf,
  isControlledBy,
  removeOwnerReference,
  setControllerReference,
  setOwnerReference,
} from "./owner-references.ts";
export {
  and,
  annotationsChanged,
  evaluate,
  generationChanged,
  labelSelector,
  labelsChanged,
  not,
  or,
  type Predicate,
  resourceVersionChanged,
} from "./predicates.ts";
export { describeReason } from "./reasons.ts";
export type {
  ObjectRef,
  ReconcileContext,
  ReconcileReason,
  ReconcileResult,
  Reconciler,
  Request,
} from "./reconciler.ts";
