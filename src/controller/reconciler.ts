import type { Logger } from "../cache/index.ts";

/** What to reconcile: an object's name, and its namespace if it has one. */
export interface Request {
  namespace?: string;
  name: string;
}

/** A short reference to the object whose event caused a reconcile. */
export interface ObjectRef {
  kind: string;
  namespace?: string;
  name: string;
}

/**
 * Why a reconcile runs. Events on the same key coalesce while it waits in the queue; the
 * reconcile gets all of them (`ctx.reasons`) and the first (`ctx.reason`). A requeue-after or a
 * retry counts from when its delay ends; one that an event overtook (the queue then cancels the
 * delay) is not a reason of the reconcile the event caused.
 */
export type ReconcileReason =
  | {
      type: "event";
      /** `add` from the initial list is `initial`; `resync` is a periodic or relist no-op update. */
      event: "add" | "initial" | "update" | "resync" | "delete";
      /** `self`: the object itself; `owned`: a child it controls; `watch`: a mapped watch. */
      source: "self" | "owned" | "watch";
      object: ObjectRef;
    }
  | { type: "requeue-after"; afterMs: number }
  | { type: "requeue" }
  | { type: "retry"; attempt: number; error: string };

/** What a reconcile gets besides the request. */
export interface ReconcileContext {
  /** Aborts when the reconcile times out or the controller stops without draining. */
  signal: AbortSignal;
  /** A logger with the controller, key, reconcile id and reason bound. */
  log: Logger;
  /** Why this reconcile runs: the first reason that made the key ready. */
  reason: ReconcileReason;
  /** Every reason that made the key ready since it was queued, oldest first (at most 16 kept). */
  reasons: readonly ReconcileReason[];
  /** How long the key waited in the queue, ready, before this reconcile, in ms. */
  waitedMs: number;
  /** Unique per reconcile, in every log line. */
  reconcileId: string;
}

/** What a reconcile may ask for. Nothing (or `undefined`) means: done until something changes. */
export interface ReconcileResult {
  /** Reconcile again after this long (and forget the failure count). */
  requeueAfterMs?: number;
  /** Reconcile again soon, with the rate limiter's delay (without counting a failure). */
  requeue?: boolean;
  /** The priority of that next reconcile (priority queue only). */
  priority?: number;
}

/**
 * The business logic: bring the world in line with the object named by `request`. Read from
 * listers, write through the client, be idempotent. Throw to retry with backoff; throw a
 * `TerminalError` for a failure that retrying cannot fix.
 */
export type Reconciler = (
  request: Request,
  ctx: ReconcileContext,
) => ReconcileReturn | Promise<ReconcileReturn>;

/** What a reconciler returns; `void` so that `async () => {}` is a reconciler. */
// biome-ignore lint/suspicious/noConfusingVoidType: a reconciler may return nothing at all.
export type ReconcileReturn = ReconcileResult | undefined | void;
