/**
 * A difference between the two backends' replies to one request, and its cause: the group it is
 * reported under, so that forty resources sharing one cause make one row, not forty.
 */
import { diffJson, type PathDifference, shapeOf } from "./compare.ts";
import type { CompatReply, CompatRequest } from "./http.ts";
import { mediaType, normalize } from "./normalize.ts";
import type { Compare } from "./scenarios.ts";

/** One request whose replies differ. */
export interface Difference {
  /** The scenario: a resource's plural, or "discovery". */
  readonly scenario: string;
  /** What the request does: "create", "merge patch", … */
  readonly step: string;
  readonly method: string;
  readonly path: string;
  readonly status: { readonly reference: number; readonly embedded: number };
  /** Where the normalized bodies (and media types) differ; empty where only the status does. */
  readonly paths: readonly PathDifference[];
  /** False where the embedded server's discovery does not list the resource. */
  readonly served: boolean;
}

/** The outcome of one request on both backends. */
export interface Outcome {
  readonly sameStatus: boolean;
  readonly sameBody: boolean;
  /** Set where the status or the body differs. */
  readonly difference?: Difference;
}

/** Compares the two replies to `request` as the step says (whole body, status, or keys). */
export function compareReplies(
  where: { scenario: string; step: string; served: boolean; compare: Compare },
  request: CompatRequest,
  reference: CompatReply,
  embedded: CompatReply,
): Outcome {
  const sameStatus = reference.status === embedded.status;
  const paths: PathDifference[] = [];
  if (where.compare !== "status") {
    const a = mediaType(reference.contentType);
    const b = mediaType(embedded.contentType);
    if (a !== b) paths.push({ path: "(Content-Type)", reference: a, embedded: b });
    const body = (reply: CompatReply) =>
      where.compare === "keys" ? shapeOf(reply.body) : normalize(reply.body);
    paths.push(...diffJson(body(reference), body(embedded)));
  }
  const sameBody = paths.length === 0;
  if (sameStatus && sameBody) return { sameStatus, sameBody };
  return {
    sameStatus,
    sameBody,
    difference: {
      scenario: where.scenario,
      step: where.step,
      method: request.method,
      path: request.path,
      status: { reference: reference.status, embedded: embedded.status },
      paths,
      served: where.served,
    },
  };
}

/** A difference kept on purpose, and why. */
export interface KnownDifference {
  readonly reason: string;
  /**
   * Whether this explains `d` as a whole (`at` undefined: asked first, of every difference), or
   * one path where its bodies differ.
   */
  matches(d: Difference, at: PathDifference | undefined): boolean;
}

/** A group differences are reported under. */
export interface Cause {
  readonly kind: "known" | "not served" | "status" | "body";
  /** One line naming the cause: the reason, the request and status codes, or a JSON path. */
  readonly title: string;
}

/**
 * The causes of `d`: a known difference's reason; else "not served"; else the request and both
 * status codes; else, for each JSON path where the bodies differ, a known reason or the path,
 * generalized so that the same field
 * groups across a get and a watch event, and across list entries. A difference in
 * managedFields is one cause: it mirrors a difference in the fields themselves.
 */
export function causesOf(d: Difference, known: readonly KnownDifference[]): Cause[] {
  const whole = known.find((k) => k.matches(d, undefined));
  if (whole !== undefined) return [{ kind: "known", title: whole.reason }];
  if (!d.served) return [{ kind: "not served", title: "not served by the embedded server" }];
  if (d.status.reference !== d.status.embedded) {
    return [
      {
        kind: "status",
        title: `${d.step}: kube-apiserver ${d.status.reference}, embedded ${d.status.embedded}`,
      },
    ];
  }
  const causes = new Map<string, Cause>();
  for (const p of d.paths) {
    const match = known.find((k) => k.matches(d, p));
    const cause: Cause =
      match === undefined
        ? { kind: "body", title: generalPath(p.path) }
        : { kind: "known", title: match.reason };
    causes.set(`${cause.kind}\n${cause.title}`, cause);
  }
  return [...causes.values()];
}

/**
 * A JSON path without what varies between requests: a watch event's index (its object counts as
 * the object), list indexes and keys.
 */
export function generalPath(path: string): string {
  const general = path
    .replace(/^\[\d+\]\.object\.|^\[\d+\]\.?/, "")
    .replace(/^items\[[^\]]*\]/, "items[*]")
    .replace(/\[(name|type)=[^\]]*\]/g, "[$1=…]")
    .replace(/\[\d+\]/g, "[*]")
    .replace(/metadata\.managedFields.*/, "metadata.managedFields");
  return general === "" ? "(event)" : general;
}
