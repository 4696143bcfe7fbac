/**
 * The name and label syntax rules of apimachinery's `util/validation`, as predicates that return
 * the problem (a phrase) or `undefined` when the value is valid.
 */

const DNS1123_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const DNS1123_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const QUALIFIED_NAME_PART = /^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$/;
const LABEL_VALUE = /^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$/;

/** A DNS-1123 label: lowercase alphanumerics and '-', at most 63 characters (namespace names). */
export function checkDns1123Label(value: string): string | undefined {
  if (value.length > 63) return "must be no more than 63 characters";
  if (!DNS1123_LABEL.test(value)) {
    return "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')";
  }
  return undefined;
}

/** A DNS-1123 subdomain: dot-separated labels, at most 253 characters (most object names). */
export function checkDns1123Subdomain(value: string): string | undefined {
  if (value.length > 253) return "must be no more than 253 characters";
  if (!DNS1123_SUBDOMAIN.test(value)) {
    return "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";
  }
  return undefined;
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
  if (name.length > 63) return "name part must be no more than 63 characters";
  if (!QUALIFIED_NAME_PART.test(name)) {
    return "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";
  }
  return undefined;
}

/** A label value: empty, or at most 63 alphanumerics, '-', '_' or '.', alphanumeric at both ends. */
export function checkLabelValue(value: string): string | undefined {
  if (value.length > 63) return "must be no more than 63 characters";
  if (!LABEL_VALUE.test(value)) {
    return "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')";
  }
  return undefined;
}
