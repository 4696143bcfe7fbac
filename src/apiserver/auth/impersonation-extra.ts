import { byBytes } from "./impersonation-headers.ts";
import { aggregateMessage, goQuote } from "./rbac/go-format.ts";

/*
 * What constrained impersonation refuses of extras before it asks the authorizer (kube's
 * `validateExtra`), worded as kube words it: each key must be a domain-prefixed path in lower
 * case (`example.com/scopes`), and no value may be empty.
 */

const DNS1123_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const DNS1123_SUBDOMAIN_FORMAT = "[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*";
const DNS1123_SUBDOMAIN_MESSAGE =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character";
const HTTP_PATH_FORMAT = "[A-Za-z0-9/\\-._~%!$&'()*+,;=:]+";
const HTTP_PATH = /^[A-Za-z0-9/\-._~%!$&'()*+,;=:]+$/;
const FIELD = "extra.key";

/**
 * Why kube refuses to impersonate `extra` (the first key, in Go's string order, that is
 * wrong), or undefined when every key and value may be asked for.
 */
export function validateExtra(
  extra: Readonly<Record<string, readonly string[]>>,
): string | undefined {
  for (const key of Object.keys(extra).sort(byBytes)) {
    const values = extra[key]!;
    if (key === "") return "impersonating the empty string key in extra is not allowed";
    const invalid = domainPrefixedPathErrors(key);
    if (invalid.length > 0) {
      return `impersonating an invalid key in extra is not allowed: ${aggregateMessage(invalid)}`;
    }
    if (key !== key.toLowerCase()) {
      return `impersonating a non-lowercase key in extra is not allowed: ${goQuote(key)}`;
    }
    if (values.length === 0) return "impersonating empty values in extra is not allowed";
    if (values.includes("")) return "impersonating the empty string value in extra is not allowed";
  }
  return undefined;
}

/** apimachinery's `IsDomainPrefixedPath`, as field errors' messages. */
function domainPrefixedPathErrors(path: string): string[] {
  const slash = path.indexOf("/");
  const host = slash < 0 ? path : path.slice(0, slash);
  const rest = slash < 0 ? "" : path.slice(slash + 1);
  if (slash < 0 || host === "" || rest === "") {
    return [invalid(path, 'must be a domain-prefixed path (such as "acme.io/foo")')];
  }
  const errors: string[] = [];
  if (Buffer.byteLength(host) > 253)
    errors.push(invalid(host, "must be no more than 253 characters"));
  if (!DNS1123_SUBDOMAIN.test(host)) {
    errors.push(
      invalid(
        host,
        `${DNS1123_SUBDOMAIN_MESSAGE} (e.g. 'example.com', regex used for validation is '${DNS1123_SUBDOMAIN_FORMAT}')`,
      ),
    );
  }
  if (!HTTP_PATH.test(rest)) {
    errors.push(invalid(rest, `Invalid path (regex used for validation is '${HTTP_PATH_FORMAT}')`));
  }
  return errors;
}

function invalid(value: string, detail: string): string {
  return `${FIELD}: Invalid value: ${goQuote(value)}: ${detail}`;
}
