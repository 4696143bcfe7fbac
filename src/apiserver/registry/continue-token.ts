import { errors } from "../../core/index.ts";

/** What a continue token carries: the list's snapshot revision and the next key to read. */
export interface ContinueToken {
  /** The revision of the first page; -1: continue at the latest revision. */
  readonly rv: number;
  /** The key to resume at (relative to the list's prefix). */
  readonly start: string;
}

/** Encodes a token as kube does: base64url (no padding) of `{"v","rv","start"}`. */
export function encodeContinue(token: ContinueToken): string {
  return Buffer.from(
    JSON.stringify({ v: "meta.k8s.io/v1", rv: token.rv, start: token.start }),
  ).toString("base64url");
}

/** Decodes a token; a malformed one is 400 `invalid continue token`. */
export function decodeContinue(text: string): ContinueToken {
  try {
    const raw = JSON.parse(Buffer.from(text, "base64url").toString("utf8")) as {
      v?: unknown;
      rv?: unknown;
      start?: unknown;
    };
    if (
      raw.v === "meta.k8s.io/v1" &&
      typeof raw.rv === "number" &&
      Number.isInteger(raw.rv) &&
      typeof raw.start === "string" &&
      raw.start !== "" &&
      !raw.start.startsWith("/") &&
      !raw.start.includes("..")
    ) {
      return { rv: raw.rv, start: raw.start };
    }
  } catch {
    // fall through
  }
  throw errors.badRequest(
    `invalid continue token: ${JSON.stringify(text.slice(0, 80))} is not a token this server issued; start the list again without it`,
  );
}
