import type { KubeObject } from "../../core/index.ts";
import { cloneObject, metaOf } from "./codec.ts";
import { type DeleteOptions, timestamp } from "./deletion.ts";
import type { Strategy } from "./strategy.ts";
import { markedForDeletion } from "./system-fields.ts";

/**
 * What a DELETE does to a stored object (kube's BeforeDelete and its store's Delete): write
 * `write` first, if set — a deletion timestamp, finalizers — then remove the object from storage
 * if `remove`. Neither: a graceful deletion already under way, left as it is.
 */
export interface DeletionPlan {
  readonly write?: KubeObject;
  readonly remove: boolean;
}

/**
 * The plan for deleting `stored` with `options`. A kind deleted gracefully (a pod, whose kubelet
 * stops it first) is first written with its deletion time and grace period — and removed at once
 * only for a period of 0; the object waits otherwise — and a later DELETE may only shorten the
 * period. Finalizers (the object's, the propagation policy's, the kind's) keep any object.
 */
export function planDeletion(
  stored: KubeObject,
  strategy: Strategy,
  options: DeleteOptions,
  nowMs: number,
): DeletionPlan {
  const graceful =
    strategy.deletionGracePeriod === undefined
      ? undefined
      : gracefulStep(stored, strategy.deletionGracePeriod, options, nowMs);
  if (graceful === "pending") return { remove: false };
  const marked = markedForDeletion(graceful?.object ?? stored, strategy, options, nowMs);
  if (marked !== undefined) return { write: marked, remove: false };
  if (graceful !== undefined) return { write: graceful.object, remove: graceful.period === 0 };
  return { remove: true };
}

/**
 * The graceful step of a deletion: the object with its deletion time `period` seconds from now
 * and its next generation; for an object already deleting, a shorter period asked for (never a
 * time in the past), "pending" for none shorter, undefined where its period is already 0 (it is
 * removed as any other object).
 */
function gracefulStep(
  stored: KubeObject,
  periodOf: NonNullable<Strategy["deletionGracePeriod"]>,
  options: DeleteOptions,
  nowMs: number,
): { object: KubeObject; period: number } | "pending" | undefined {
  const current = metaOf(stored);
  const object = () => cloneObject(stored);
  if (current.deletionTimestamp) {
    const was = current.deletionGracePeriodSeconds;
    if (!was) return undefined;
    const asked = options.gracePeriodSeconds;
    if (asked === undefined || asked >= was) return "pending";
    let at = Date.parse(current.deletionTimestamp) + (asked - was) * 1000;
    let period = asked;
    if (at < nowMs) {
      at = nowMs;
      // The whole period has passed: the shortest graceful one, unless none was asked for.
      if (period !== 0) period = 1;
    }
    const shortened = object();
    Object.assign(metaOf(shortened), {
      deletionTimestamp: timestamp(at),
      deletionGracePeriodSeconds: period,
    });
    return { object: shortened, period };
  }
  const period = periodOf(stored, options);
  const marked = object();
  const meta = metaOf(marked);
  meta.deletionTimestamp = timestamp(nowMs + period * 1000);
  meta.deletionGracePeriodSeconds = period;
  if ((meta.generation ?? 0) > 0) meta.generation = meta.generation! + 1;
  return { object: marked, period };
}
