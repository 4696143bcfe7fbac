/**
 * The name and label syntax rules of apimachinery's `util/validation`, as predicates that return
 * the problem (a phrase) or `undefined` when the value is valid.
 */

const DNS1123_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const DNS1035_LABEL = /^[a-z]([-a-z0-9]*[a-z0-9])?$/;
const DNS1123_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const QUALIFIED_NAME_PART = /^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$/;
const LABEL_VALUE = /^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$/;

/** `problem` if `value` is longer than `max` characters or does not match `pattern`. */
function checkSyntax(
  value: string,
  max: number,
  pattern: RegExp,
  problem: string,
): string | undefined {
  if (value.length > max) return `must be no more than ${max} characters`;
  return pattern.test(value) ? undefined : problem;
}

/**
 * A DNS-1123 label: lowercase alphanumerics and '-', at most 63 characters (namespace names). A
 * value that would be a subdomain is told so, as kube tells it.
 */
export function checkDns1123Label(value: string): string | undefined {
  if (value.length <= 63 && !DNS1123_LABEL.test(value) && DNS1123_SUBDOMAIN.test(value))
    return "must not contain dots";
  return checkSyntax(
    value,
    63,
    DNS1123_LABEL,
    "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')",
  );
}

/** A DNS-1035 label: a DNS-1123 label that starts with a letter (a CRD's plural and kind). */
export function checkDns1035Label(value: string): string | undefined {
  return checkSyntax(
    value,
    63,
    DNS1035_LABEL,
    "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')",
  );
}

/** A DNS-1123 subdomain: dot-separated labels, at most 253 characters (most object names). */
export function checkDns1123Subdomain(value: string): string | undefined {
  return checkSyntax(
    value,
    253,
    DNS1123_SUBDOMAIN,
    "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')",
  );
}

/**
 * A qualified name (label and annotation keys, finalizers): an optional DNS-subdomain prefix and
 * `/`, then a name of at most 63 alphanumerics, '-', '_' or '.', starting and ending alphanumeric.
 */
export function checkQualifiedName(value: string): string | undefined {
  const parts = value.split("/");
  let name: string;
  if (parts.length === 1) {
    name = parts[0]!;
  } else if (parts.length === 2) {
    const prefix = parts[0]!;
    name = parts[1]!;
    if (prefix === "") return "prefix part must be non-empty";
    const bad = checkDns1123Subdomain(prefix);
    if (bad !== undefined) return `prefix part ${bad}`;
  } else {
    return "a qualified name must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character, with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')";
  }
  if (name === "") return "name part must be non-empty";
  const bad = checkSyntax(
    name,
    63,
    QUALIFIED_NAME_PART,
    "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')",
  );
  return bad === undefined ? undefined : `name part ${bad}`;
}

/** A label value: empty, or at most 63 alphanumerics, '-', '_' or '.', alphanumeric at both ends. */
export function checkLabelValue(value: string): string | undefined {
  return checkSyntax(
    value,
    63,
    LABEL_VALUE,
    "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')",
  );
}
