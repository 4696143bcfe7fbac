import { auditOf } from "../audit/request-audit.ts";
import type { FieldValidation } from "../registry/types.ts";
import { readBody } from "./body.ts";
import { negotiateFor, type Output } from "./negotiate.ts";
import type { VerbRequest } from "./types.ts";
import { writeParams } from "./write-options.ts";

/** What every write request starts with, parsed and read. */
export interface WriteRequest {
  /** `dryRun=All`. */
  readonly dryRun: boolean;
  readonly fieldValidation: FieldValidation;
  /** Who writes (`fieldManager`, else the User-Agent's product). */
  readonly manager: string;
  /** `force`, of an apply patch. */
  readonly force: boolean;
  /** The negotiated output (JSON when not negotiated). */
  readonly output: Output;
  /** The raw body. */
  readonly bytes: Buffer;
  readonly contentType: string | undefined;
}

/**
 * The one preamble of every write (kube's handlers share it too): the write options of the
 * query (`dryRun`, `fieldValidation`, `fieldManager`, and `force` for an apply patch; 422 for
 * bad ones), the output negotiated from Accept (406), then the body read (413 past the limit).
 * The caller decodes the body as its verb and content type say.
 */
export async function writePreamble(
  v: VerbRequest,
  kind: "CreateOptions" | "UpdateOptions" | "PatchOptions",
  how: {
    /** An apply patch (`force` allowed, `fieldManager` required). @default false */
    readonly apply?: boolean;
    /** Negotiate the output (a subresource answering a Status does not). @default true */
    readonly negotiate?: boolean;
  } = {},
): Promise<WriteRequest> {
  const { req } = v;
  const params = writeParams(v.query, kind, req.headers["user-agent"], how.apply ?? false);
  const protobuf = v.served.custom === undefined;
  const output: Output =
    how.negotiate === false
      ? { kind: "json" }
      : negotiateFor(v.res, req.headers.accept, false, protobuf);
  const bytes = await readBody(req);
  auditOf(v.res)?.requestBody(bytes, req.headers["content-type"]);
  return { ...params, output, bytes, contentType: req.headers["content-type"] };
}
