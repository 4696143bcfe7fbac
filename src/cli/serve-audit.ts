import { readFile } from "node:fs/promises";
import {
  type AuditOptions,
  type AuditPolicy,
  FileAuditSink,
  parseAuditPolicy,
} from "../apiserver/index.ts";
import { errnoCode, errorMessage } from "../core/index.ts";

/** The help of `kontroller serve`'s audit flags. */
export const AUDIT_USAGE = `  --audit-log       write kube's audit events (audit.k8s.io/v1, one JSON event a line, as
                    kube-apiserver's --audit-log-path) to PATH, appended to (created 0600);
                    every request at level Metadata unless --audit-policy-file says otherwise
  --audit-policy-file
                    which requests are audited, at what level: a policy file in kube's format
                    (audit.k8s.io/v1 Policy: the first matching rule decides; no match: not
                    audited); a policy kube-apiserver would refuse stops the start`;

/** What the audit flags make: the server's option and what to say at start, or why not. */
export type AuditFlags =
  | { readonly options?: AuditOptions; readonly notes: readonly string[] }
  | { readonly error: string; readonly exitCode: number };

/**
 * The server's audit from `--audit-log` and `--audit-policy-file`: the policy read and checked
 * (kube's refusals), and the log opened, as kube-apiserver does before it serves, so that a path
 * that cannot be written stops the start. The sink is the server's to close.
 */
export async function auditFlags(
  log: string | undefined,
  policyFile: string | undefined,
): Promise<AuditFlags> {
  if (log === undefined) {
    if (policyFile === undefined) return { notes: [] };
    return { error: "--audit-policy-file needs --audit-log (where to write)", exitCode: 2 };
  }
  const notes: string[] = [];
  let policy: AuditPolicy | undefined;
  if (policyFile === undefined) {
    notes.push(`audit: every request at level Metadata to ${log} (no --audit-policy-file)`);
  } else {
    let text: string;
    try {
      text = await readFile(policyFile, "utf8");
    } catch (err) {
      const why = errnoCode(err) === "ENOENT" ? "no such file" : errorMessage(err);
      return { error: `--audit-policy-file: cannot read ${policyFile}: ${why}`, exitCode: 2 };
    }
    try {
      policy = parseAuditPolicy(text, {
        source: policyFile,
        onWarning: (w) => notes.push(w),
      });
    } catch (err) {
      return { error: `--audit-policy-file: ${errorMessage(err)}`, exitCode: 2 };
    }
  }
  const sink = new FileAuditSink({ path: log });
  try {
    await sink.start();
  } catch (err) {
    return { error: `--audit-log: ${errorMessage(err)}`, exitCode: 1 };
  }
  return { options: { sink, ...(policy === undefined ? {} : { policy }) }, notes };
}
