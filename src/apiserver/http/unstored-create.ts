import type { IncomingMessage, ServerResponse } from "node:http";
import { errors, type KubeObject } from "../../core/index.ts";
import type { UserInfo } from "../auth/user.ts";
import { crdType } from "../managedfields/crd-schema.ts";
import { FieldManager } from "../managedfields/field-manager.ts";
import { fieldValidationWarnings } from "../registry/field-validation.ts";
import { decodeObjectBody, duplicatesIn, readBody } from "./body.ts";
import { negotiateFor } from "./negotiate.ts";
import type { ResourceTarget } from "./request-info.ts";
import { sendJson } from "./respond.ts";
import { type DecodeTarget, decodeTyped, inGoOrder } from "./typed-body.ts";
import type { ResourceContext } from "./types.ts";
import { setWarnings, writeParams } from "./write-options.ts";

/** A request to a resource or subresource the server answers without storing anything. */
export interface UnstoredRequest {
  readonly ctx: ResourceContext;
  readonly req: IncomingMessage;
  readonly res: ServerResponse;
  readonly r: ResourceTarget;
  readonly query: URLSearchParams;
  /** Who makes the request (see auth/authenticator.ts). */
  readonly user: UserInfo;
}

/** Serves one unstored request. */
export type UnstoredHandler = (u: UnstoredRequest) => Promise<void>;

/** The kind a create's body must be, with its type. */
export interface CreateTarget extends DecodeTarget {
  /** `authorization.k8s.io/v1`. */
  readonly apiVersion: string;
  /**
   * Other apiVersions a body may declare, decoded as `apiVersion` (an Eviction's
   * `policy/v1beta1`). @default none
   */
  readonly accepts?: readonly string[];
  /** The subresource a create to one is recorded under in managedFields. @default none */
  readonly subresource?: string;
  /** Sets the kind's defaults in the decoded object (kube's scheme defaulting). @default none */
  readonly defaults?: (object: UnstoredObject) => void;
}

/** An object of a kind the server does not store: any fields besides the metadata. */
export type UnstoredObject = KubeObject & Record<string, unknown>;

/** A create's body, decoded, and what the request asked besides. */
export interface CreateBody {
  /** The object sent, of the target's kind, its metadata.managedFields recorded. */
  readonly object: UnstoredObject;
  readonly dryRun: boolean;
  /** The warnings to answer with (unknown and duplicate fields). */
  readonly warnings: string[];
}

/**
 * Reads a POST's body as kube's create handler does before it hands the object to a REST
 * that stores nothing: the create options (422), the output (406 for a Table), the body of the
 * target's kind and type (400; unknown and duplicate fields per `fieldValidation`), a namespace
 * in it that must be the path's (400; set from the path when absent), and the request's
 * managedFields entry (the field manager, or the User-Agent's product).
 */
export async function readCreateBody(
  u: UnstoredRequest,
  target: CreateTarget,
): Promise<CreateBody> {
  const { req, r } = u;
  const params = writeParams(u.query, "CreateOptions", req.headers["user-agent"]);
  negotiateFor(u.res, req.headers.accept, false, true);
  const bytes = await readBody(req);
  const contentType = req.headers["content-type"];
  const body = decodeObjectBody(bytes, contentType, undefined, target);
  const declared = body.apiVersion;
  if (
    declared !== undefined &&
    declared !== target.apiVersion &&
    !target.accepts?.includes(String(declared))
  ) {
    throw errors.badRequest(
      `${String(body.kind ?? target.kind)} in version ${JSON.stringify(String(body.apiVersion))} cannot be handled as a ${target.kind}: the body of this request is a ${target.kind} of ${target.apiVersion}`,
    );
  }
  if (body.kind !== undefined && body.kind !== target.kind) {
    throw errors.badRequest(
      `${String(body.kind)} in version ${JSON.stringify(target.version)} cannot be handled as a ${target.kind}: the body of this request is a ${target.kind}`,
    );
  }
  const dropped = decodeTyped(body, target);
  const duplicates = duplicatesIn(bytes, contentType, params.fieldValidation);
  const warnings = fieldValidationWarnings(dropped, duplicates, params.fieldValidation, target);
  const object = body as UnstoredObject;
  object.apiVersion = target.apiVersion;
  object.kind = target.kind;
  if (r.namespaced) {
    const ns = object.metadata?.namespace;
    if (ns && ns !== r.namespace) {
      throw errors.badRequest(
        "the namespace of the provided object does not match the namespace sent on the request",
      );
    }
    object.metadata = { ...object.metadata, namespace: r.namespace };
  }
  target.defaults?.(object);
  new FieldManager({
    apiVersion: target.apiVersion,
    kind: target.kind,
    type: crdType(undefined),
    clock: u.ctx.clock,
  }).update(undefined, object, params.manager, target.subresource);
  valueStructsHaveNoPresence(object);
  return { object, dryRun: params.dryRun, warnings };
}

/**
 * The `spec` and `status` of these kinds are Go structs, not pointers: kube's field sets give
 * them no `.` entry of their own (a pointer's, such as a review's `resourceAttributes`, has one),
 * and none at all when empty — kube counts a field where it differs from the kind's empty object,
 * which holds them empty too (a protobuf body always carries its empty `status`).
 */
function valueStructsHaveNoPresence(object: KubeObject): void {
  for (const entry of object.metadata?.managedFields ?? []) {
    const fields = entry.fieldsV1 as Record<string, Record<string, unknown>> | undefined;
    for (const key of ["f:spec", "f:status"]) {
      const node = fields?.[key];
      if (node === undefined) continue;
      delete node["."];
      if (Object.keys(node).length === 0) delete fields![key];
    }
  }
}

/** Answers a create: 201 with the object, its fields in kube's order, and the warnings. */
export function sendCreated(
  u: UnstoredRequest,
  target: DecodeTarget,
  object: UnstoredObject,
  warnings: readonly string[],
): void {
  setWarnings(u.res, warnings);
  sendJson(u.res, 201, inGoOrder(object, target));
}
