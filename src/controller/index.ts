/**
 * kontroller/controller — the controller runtime: helpers for owner references, finalizers,
 * create-or-update, predicates and events (the Controller, builder and Manager join them).
 */
export {
  createOrPatch,
  createOrUpdate,
  type Mutate,
  type OperationResult,
} from "./create-or-update.ts";
export { type EventInit, EventRecorder, type EventRecorderOptions } from "./event-recorder.ts";
export { addFinalizer, hasFinalizer, removeFinalizer } from "./finalizers.ts";
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
