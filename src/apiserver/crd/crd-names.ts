/** The names of a CRD (`spec.names`, or `status.acceptedNames` once accepted). */
export interface CrdNames {
  readonly plural: string;
  readonly singular: string;
  readonly shortNames: readonly string[];
  readonly kind: string;
  readonly listKind: string;
  readonly categories: readonly string[];
}

/** The NamesAccepted condition's outcome. */
export interface NamesVerdict {
  /** The names now accepted: each requested name that is free, the previous one otherwise. */
  readonly accepted: CrdNames;
  /** True when every requested name was accepted. */
  readonly ok: boolean;
  /** `NoConflicts`, or the last conflict found (`PluralConflict`, `KindConflict`, …). */
  readonly reason: string;
  readonly message: string;
}

/** `spec.names` with kube's defaults (singular: the lowercased kind; listKind: kind + "List"). */
export function requestedNames(names: {
  plural: string;
  singular?: string | undefined;
  shortNames?: readonly string[] | undefined;
  kind: string;
  listKind?: string | undefined;
  categories?: readonly string[] | undefined;
}): CrdNames {
  return {
    plural: names.plural,
    singular: names.singular || names.kind.toLowerCase(),
    shortNames: names.shortNames ?? [],
    kind: names.kind,
    listKind: names.listKind || `${names.kind}List`,
    categories: names.categories ?? [],
  };
}

const NO_NAMES: CrdNames = {
  plural: "",
  singular: "",
  shortNames: [],
  kind: "",
  listKind: "",
  categories: [],
};

/**
 * Decides which of a CRD's requested names it may have, as apiextensions-apiserver's naming
 * controller does: a name is taken if another CRD of the same group has accepted it (plurals,
 * singulars and short names share one space; kinds and list kinds another), unless this CRD
 * already holds it. A taken name keeps the previously accepted one (none for a new CRD) and
 * makes the condition False with the conflict's reason; categories are always accepted.
 *
 * `others` are the accepted names of the group's other CRDs.
 */
export function acceptNames(
  requested: CrdNames,
  previous: CrdNames | undefined,
  others: readonly CrdNames[],
): NamesVerdict {
  const held = previous ?? NO_NAMES;
  const resources = new Set<string>();
  const kinds = new Set<string>();
  for (const o of others) {
    for (const n of [o.plural, o.singular, ...o.shortNames]) if (n) resources.add(n);
    for (const n of [o.kind, o.listKind]) if (n) kinds.add(n);
  }
  let reason = "NoConflicts";
  let message = "no conflicts found";
  const pick = (want: string, had: string, used: Set<string>, conflict: string): string => {
    if (want === had || !used.has(want)) return want;
    reason = conflict;
    message = `"${want}" is already in use`;
    return had;
  };
  const plural = pick(requested.plural, held.plural, resources, "PluralConflict");
  const singular = pick(requested.singular, held.singular, resources, "SingularConflict");
  const takenShort = requested.shortNames.filter(
    (s) => !held.shortNames.includes(s) && resources.has(s),
  );
  let shortNames = requested.shortNames;
  if (takenShort.length > 0) {
    reason = "ShortNamesConflict";
    message = takenShort.map((s) => `"${s}" is already in use`).join(", ");
    shortNames = held.shortNames;
  }
  const kind = pick(requested.kind, held.kind, kinds, "KindConflict");
  const listKind = pick(requested.listKind, held.listKind, kinds, "ListKindConflict");
  return {
    accepted: { plural, singular, shortNames, kind, listKind, categories: requested.categories },
    ok: reason === "NoConflicts",
    reason,
    message,
  };
}
