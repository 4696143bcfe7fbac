import { errors } from "../../core/index.ts";
import { goQuote } from "./rbac/go-format.ts";

/**
 * A request's headers, each name in lower case with all its values in order (Node's
 * `req.headersDistinct`): several `Impersonate-Group` headers are several groups, never one
 * joined by commas.
 */
export type ImpersonationHeaders = Readonly<Record<string, readonly string[] | undefined>>;

/** Who a request asks to act as, exactly as its headers say (kube's `wantedUser`). */
export interface WantedUser {
  readonly username: string;
  /** "" when none. */
  readonly uid: string;
  readonly groups: readonly string[];
  /** By key, unescaped and in lower case; empty when none. */
  readonly extra: Readonly<Record<string, readonly string[]>>;
}

const EXTRA_PREFIX = "impersonate-extra-";

/**
 * The user the impersonation headers ask for, as kube's `processImpersonationHeaders` reads
 * them: `Impersonate-User` (the first one) and `Impersonate-Uid`, every `Impersonate-Group`,
 * and `Impersonate-Extra-<key>` with the key in lower case and %-unescaped (kept as it is when
 * it does not unescape). Undefined when there is no user (or an empty one) and nothing else;
 * kube's 400 when there is a uid, a group or an extra but no user. Header values are read as
 * UTF-8, as kube reads them.
 */
export function impersonationRequest(headers: ImpersonationHeaders): WantedUser | undefined {
  const username = utf8(headers["impersonate-user"]?.[0] ?? "");
  const uid = utf8(headers["impersonate-uid"]?.[0] ?? "");
  const groupHeaders = headers["impersonate-group"];
  const groups = (groupHeaders ?? []).map(utf8);
  const extra: Record<string, string[]> = {};
  let hasExtra = false;
  for (const [name, values] of Object.entries(headers)) {
    if (!name.startsWith(EXTRA_PREFIX) || values === undefined) continue;
    hasExtra = true;
    const key = unescapeExtraKey(name.slice(EXTRA_PREFIX.length));
    if (!Object.hasOwn(extra, key)) extra[key] = [];
    extra[key]!.push(...values.map(utf8));
  }
  const wanted: WantedUser = { username, uid, groups, extra };
  if (username === "") {
    if (uid !== "" || groupHeaders !== undefined || hasExtra) {
      throw errors.badRequest(
        `requested ${goSyntax(wanted, groupHeaders !== undefined, hasExtra)} without impersonating a user name`,
      );
    }
    return undefined;
  }
  return wanted;
}

/** A header value's bytes (Node reads them one character each) as UTF-8. */
function utf8(latin1: string): string {
  return Buffer.from(latin1, "latin1").toString("utf8");
}

/** Go's `url.PathUnescape`, or the key as it is where that fails (a `%` without two hex digits). */
function unescapeExtraKey(key: string): string {
  if (/%(?![0-9a-fA-F]{2})/.test(key)) return key;
  const bytes: number[] = [];
  for (let i = 0; i < key.length; i++) {
    if (key[i] === "%") {
      bytes.push(Number.parseInt(key.slice(i + 1, i + 3), 16));
      i += 2;
    } else {
      bytes.push(key.charCodeAt(i) & 0xff);
    }
  }
  return Buffer.from(bytes).toString("utf8");
}

/** `%#v` of kube's `*user.DefaultInfo`, as its 400 prints the wanted user. */
function goSyntax(wanted: WantedUser, hasGroups: boolean, hasExtra: boolean): string {
  const strings = (values: readonly string[]) => `[]string{${values.map(goQuote).join(", ")}}`;
  const groups = hasGroups ? strings(wanted.groups) : "[]string(nil)";
  const keys = Object.keys(wanted.extra).sort(byBytes);
  const extra = hasExtra
    ? `map[string][]string{${keys.map((k) => `${goQuote(k)}:${strings(wanted.extra[k]!)}`).join(", ")}}`
    : "map[string][]string(nil)";
  return `&user.DefaultInfo{Name:${goQuote(wanted.username)}, UID:${goQuote(wanted.uid)}, Groups:${groups}, Extra:${extra}}`;
}

/** Go's string order: by UTF-8 bytes. */
export function byBytes(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a), Buffer.from(b));
}
