/**
 * The status conditions a Terminating namespace carries while the namespace controller empties
 * it, as kube's `namespaceConditionUpdater` writes them: five types, each either a failure
 * (`True`, with what failed or what is left) or its "ok" variant (`False`). Pure.
 */

/** One namespace condition. */
export interface NamespaceCondition {
  type: string;
  status: "True" | "False";
  reason: string;
  message: string;
  lastTransitionTime: string;
}

/** What one pass over a namespace's content found. */
export interface ContentReport {
  /** Discovery failed (wholly, or for some group versions). */
  discoveryError?: string;
  /** Resources whose deletion failed: one message each. */
  contentErrors: readonly string[];
  /** `resource.group` → objects left (being finalized). */
  remaining: ReadonlyMap<string, number>;
  /** Finalizer → objects left that carry it. */
  finalizers: ReadonlyMap<string, number>;
}

/** Condition type: discovery failed (wholly or for some group versions). */
export const DISCOVERY_FAILURE = "NamespaceDeletionDiscoveryFailure";
/** Condition type: a group version did not parse (always ok here: discovery parses them). */
export const GROUP_VERSION_PARSING_FAILURE = "NamespaceDeletionGroupVersionParsingFailure";
/** Condition type: deleting some resource's objects failed. */
export const CONTENT_FAILURE = "NamespaceDeletionContentFailure";
/** Condition type: objects are left (held by finalizers, or terminating). */
export const CONTENT_REMAINING = "NamespaceContentRemaining";
/** Condition type: the finalizers that hold what is left. */
export const FINALIZERS_REMAINING = "NamespaceFinalizersRemaining";

const TYPES = [
  DISCOVERY_FAILURE,
  GROUP_VERSION_PARSING_FAILURE,
  CONTENT_FAILURE,
  CONTENT_REMAINING,
  FINALIZERS_REMAINING,
] as const;

const OK: Record<(typeof TYPES)[number], { reason: string; message: string }> = {
  [DISCOVERY_FAILURE]: {
    reason: "ResourcesDiscovered",
    message: "All resources successfully discovered",
  },
  [GROUP_VERSION_PARSING_FAILURE]: {
    reason: "ParsedGroupVersions",
    message: "All legacy kube types successfully parsed",
  },
  [CONTENT_FAILURE]: {
    reason: "ContentDeleted",
    message: "All content successfully deleted, may be waiting on finalization",
  },
  [CONTENT_REMAINING]: { reason: "ContentRemoved", message: "All content successfully removed" },
  [FINALIZERS_REMAINING]: {
    reason: "ContentHasNoFinalizers",
    message: "All content-preserving finalizers finished",
  },
};

/** The counts above zero, each as `describe` words it, sorted. */
function described(
  counts: Iterable<[string, number]>,
  describe: (key: string, n: number) => string,
): string[] {
  return [...counts]
    .filter(([, n]) => n > 0)
    .map(([key, n]) => describe(key, n))
    .sort();
}

/** The failing conditions a report implies (types absent here are ok). */
function failures(report: ContentReport): Map<string, { reason: string; message: string }> {
  const out = new Map<string, { reason: string; message: string }>();
  if (report.discoveryError !== undefined) {
    out.set(DISCOVERY_FAILURE, { reason: "DiscoveryFailed", message: report.discoveryError });
  }
  if (report.contentErrors.length > 0) {
    const msgs = [...report.contentErrors].sort();
    out.set(CONTENT_FAILURE, {
      reason: "ContentDeletionFailed",
      message: `Failed to delete all resource types, ${msgs.length} remaining: ${msgs.join(", ")}`,
    });
  }
  const left = described(report.remaining, (gr, n) => `${gr} has ${n} resource instances`);
  if (left.length > 0) {
    out.set(CONTENT_REMAINING, {
      reason: "SomeResourcesRemain",
      message: `Some resources are remaining: ${left.join(", ")}`,
    });
  }
  const fins = described(report.finalizers, (f, n) => `${f} in ${n} resource instances`);
  if (fins.length > 0) {
    out.set(FINALIZERS_REMAINING, {
      reason: "SomeFinalizersRemain",
      message: `Some content in the namespace has finalizers remaining: ${fins.join(", ")}`,
    });
  }
  return out;
}

/**
 * The namespace's conditions after a pass: each of the five types set from `report`, other
 * conditions kept; `lastTransitionTime` moves only when a status flips. `changed` is false
 * when nothing would be written.
 */
export function updateConditions(
  existing: readonly NamespaceCondition[] | undefined,
  report: ContentReport,
  now: string,
): { conditions: NamespaceCondition[]; changed: boolean } {
  const conditions = (existing ?? []).map((c) => ({ ...c }));
  const failing = failures(report);
  let changed = false;
  for (const type of TYPES) {
    const f = failing.get(type);
    const want = {
      type,
      status: f === undefined ? ("False" as const) : ("True" as const),
      ...(f ?? OK[type]),
    };
    const old = conditions.find((c) => c.type === type);
    if (old === undefined) {
      conditions.push({ ...want, lastTransitionTime: now });
      changed = true;
    } else if (
      old.status !== want.status ||
      old.reason !== want.reason ||
      old.message !== want.message
    ) {
      if (old.status !== want.status) old.lastTransitionTime = now;
      old.status = want.status;
      old.reason = want.reason;
      old.message = want.message;
      changed = true;
    }
  }
  return { conditions, changed };
}
