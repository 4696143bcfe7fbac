import { parse as parseYaml } from "yaml";
import { AUDIT_LEVELS, AUDIT_STAGES, type AuditPolicy, type AuditPolicyRule } from "./types.ts";

/*
 * Reading an audit policy as kube-apiserver reads `--audit-policy-file`: YAML or JSON of an
 * audit.k8s.io/v1 Policy, checked by kube's validation; a policy it would refuse is refused
 * here, with kube's words for what is wrong.
 */

/** An audit policy kube-apiserver would refuse to start with: the message says why. */
export class AuditPolicyError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "AuditPolicyError";
  }
}

/** Options of {@link parseAuditPolicy}. */
export interface ParseAuditPolicyOptions {
  /** Where the text came from, for messages (`from file PATH`). @default none */
  readonly source?: string;
  /**
   * Told of fields kube does not know (it warns and reads the rest, as this does).
   * @default ignored
   */
  readonly onWarning?: (message: string) => void;
}

const RULE_FIELDS = new Set([
  "level",
  "users",
  "userGroups",
  "verbs",
  "resources",
  "namespaces",
  "nonResourceURLs",
  "omitStages",
  "omitManagedFields",
]);
const POLICY_FIELDS = new Set([
  "apiVersion",
  "kind",
  "metadata",
  "rules",
  "omitStages",
  "omitManagedFields",
]);
const GROUP_RESOURCE_FIELDS = new Set(["group", "resources", "resourceNames"]);

/**
 * The policy in `text` (YAML or JSON), validated as kube validates one; throws
 * {@link AuditPolicyError} naming every problem, as kube-apiserver refuses to start with it.
 */
export function parseAuditPolicy(text: string, options: ParseAuditPolicyOptions = {}): AuditPolicy {
  const from = options.source === undefined ? "" : `: from file ${options.source}`;
  const fail = (message: string): never => {
    throw new AuditPolicyError(`audit policy: ${message}${from}`);
  };
  let doc: unknown;
  try {
    doc = parseYaml(text);
  } catch (err) {
    fail(`failed decoding: ${err instanceof Error ? err.message.split("\n")[0] : String(err)}`);
  }
  if (typeof doc !== "object" || doc === null || Array.isArray(doc)) {
    return fail("failed decoding: not an object of kind Policy");
  }
  const raw = doc as Record<string, unknown>;
  if (raw.apiVersion === undefined || raw.kind === undefined) {
    return fail('apiVersion and kind are required: apiVersion "audit.k8s.io/v1", kind "Policy"');
  }
  if (raw.apiVersion !== "audit.k8s.io/v1" || raw.kind !== "Policy") {
    return fail(
      `failed decoding: no kind ${JSON.stringify(raw.kind)} is registered for version ${JSON.stringify(raw.apiVersion)} (audit.k8s.io/v1 Policy is)`,
    );
  }
  const unknown: string[] = [];
  const typeErrors: string[] = [];
  const policy = decodePolicy(raw, unknown, typeErrors);
  if (typeErrors.length > 0) fail(`failed decoding: ${aggregate(typeErrors)}`);
  if (unknown.length > 0) {
    options.onWarning?.(
      `audit policy contains errors, falling back to lenient decoding: unknown field ${unknown.map((f) => JSON.stringify(f)).join(", unknown field ")}${from}`,
    );
  }
  const errors = validatePolicy(policy);
  if (errors.length > 0) fail(aggregate(errors));
  if (policy.rules.length === 0) fail("loaded illegal policy with 0 rules");
  return policy;
}

/** Go's aggregate of errors: the one message, or all of them in brackets. */
function aggregate(errors: readonly string[]): string {
  return errors.length === 1 ? errors[0]! : `[${errors.join(", ")}]`;
}

function decodePolicy(
  raw: Record<string, unknown>,
  unknown: string[],
  typeErrors: string[],
): AuditPolicy {
  for (const key of Object.keys(raw)) if (!POLICY_FIELDS.has(key)) unknown.push(key);
  const rules = listOf(raw.rules, "rules", typeErrors, (r, i) =>
    decodeRule(r, `rules[${i}]`, unknown, typeErrors),
  );
  return {
    apiVersion: "audit.k8s.io/v1",
    kind: "Policy",
    rules,
    ...optional("omitStages", strings(raw.omitStages, "omitStages", typeErrors)),
    ...optional("omitManagedFields", bool(raw.omitManagedFields, "omitManagedFields", typeErrors)),
  } as AuditPolicy;
}

function decodeRule(
  raw: unknown,
  path: string,
  unknown: string[],
  typeErrors: string[],
): AuditPolicyRule | undefined {
  if (typeof raw !== "object" || raw === null || Array.isArray(raw)) {
    typeErrors.push(`${path}: must be an object`);
    return undefined;
  }
  const r = raw as Record<string, unknown>;
  for (const key of Object.keys(r)) if (!RULE_FIELDS.has(key)) unknown.push(`${path}.${key}`);
  const level = r.level === undefined ? "" : r.level;
  if (typeof level !== "string") typeErrors.push(`${path}.level: must be a string`);
  const resources = listOf(r.resources, `${path}.resources`, typeErrors, (g, i) => {
    const at = `${path}.resources[${i}]`;
    if (typeof g !== "object" || g === null || Array.isArray(g)) {
      typeErrors.push(`${at}: must be an object`);
      return undefined;
    }
    const gr = g as Record<string, unknown>;
    for (const key of Object.keys(gr))
      if (!GROUP_RESOURCE_FIELDS.has(key)) unknown.push(`${at}.${key}`);
    if (gr.group !== undefined && typeof gr.group !== "string") {
      typeErrors.push(`${at}.group: must be a string`);
    }
    return {
      group: typeof gr.group === "string" ? gr.group : "",
      ...optional("resources", strings(gr.resources, `${at}.resources`, typeErrors)),
      ...optional("resourceNames", strings(gr.resourceNames, `${at}.resourceNames`, typeErrors)),
    };
  });
  return {
    level,
    ...optional("users", strings(r.users, `${path}.users`, typeErrors)),
    ...optional("userGroups", strings(r.userGroups, `${path}.userGroups`, typeErrors)),
    ...optional("verbs", strings(r.verbs, `${path}.verbs`, typeErrors)),
    ...(r.resources === undefined || r.resources === null ? {} : { resources }),
    ...optional("namespaces", strings(r.namespaces, `${path}.namespaces`, typeErrors)),
    ...optional(
      "nonResourceURLs",
      strings(r.nonResourceURLs, `${path}.nonResourceURLs`, typeErrors),
    ),
    ...optional("omitStages", strings(r.omitStages, `${path}.omitStages`, typeErrors)),
    ...optional(
      "omitManagedFields",
      bool(r.omitManagedFields, `${path}.omitManagedFields`, typeErrors),
    ),
  } as AuditPolicyRule;
}

function optional<K extends string, V>(key: K, value: V | undefined): { [k in K]?: V } {
  return (value === undefined ? {} : { [key]: value }) as { [k in K]?: V };
}

function listOf<T>(
  value: unknown,
  path: string,
  typeErrors: string[],
  each: (item: unknown, i: number) => T | undefined,
): T[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) {
    typeErrors.push(`${path}: must be a list, got ${JSON.stringify(value)}`);
    return [];
  }
  return value.map(each).filter((x): x is T => x !== undefined);
}

function strings(value: unknown, path: string, typeErrors: string[]): string[] | undefined {
  if (value === undefined || value === null) return undefined;
  if (!Array.isArray(value) || value.some((v) => typeof v !== "string")) {
    typeErrors.push(`${path}: must be a list of strings, got ${JSON.stringify(value)}`);
    return undefined;
  }
  return value as string[];
}

function bool(value: unknown, path: string, typeErrors: string[]): boolean | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== "boolean") {
    typeErrors.push(`${path}: must be true or false, got ${JSON.stringify(value)}`);
    return undefined;
  }
  return value;
}

const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

/** kube's ValidatePolicy: every problem, worded as kube words it (field path first). */
export function validatePolicy(policy: AuditPolicy): string[] {
  const errors: string[] = [];
  validateOmitStages(policy.omitStages, "omitStages", errors);
  policy.rules.forEach((rule, i) => {
    const path = `rules[${i}]`;
    const level = rule.level as string;
    if (level === "") errors.push(`${path}.level: Required value`);
    else if (!(AUDIT_LEVELS as readonly string[]).includes(level)) {
      errors.push(
        `${path}.level: Unsupported value: ${JSON.stringify(level)}: supported values: ${AUDIT_LEVELS.map((l) => JSON.stringify(l)).join(", ")}`,
      );
    }
    const urls = rule.nonResourceURLs ?? [];
    urls.forEach((url, j) => {
      if (url === "*") return;
      const at = `${path}.nonResourceURLs[${j}]: Invalid value: ${JSON.stringify(url)}`;
      if (!url.startsWith("/"))
        errors.push(`${at}: non-resource URL rules must begin with a '/' character`);
      if (url !== "" && url.slice(0, -1).includes("*")) {
        errors.push(
          `${at}: non-resource URL wildcards '*' must be the final character of the rule`,
        );
      }
    });
    for (const gr of rule.resources ?? []) {
      const group = gr.group ?? "";
      if (group !== "" && group !== "*") {
        const problem = dnsSubdomainProblem(group);
        if (problem !== undefined) {
          errors.push(
            `${path}.resources.group: Invalid value: ${JSON.stringify(group)}: ${problem}`,
          );
        }
      }
      if ((gr.resourceNames ?? []).length > 0 && (gr.resources ?? []).length === 0) {
        errors.push(
          `${path}.resources.resourceNames: Invalid value: ${JSON.stringify(gr.resourceNames)}: using resourceNames requires at least one resource`,
        );
      }
    }
    validateOmitStages(rule.omitStages, `${path}.omitStages`, errors);
    if (
      urls.length > 0 &&
      ((rule.resources ?? []).length > 0 || (rule.namespaces ?? []).length > 0)
    ) {
      errors.push(
        `${path}.nonResourceURLs: Invalid value: ${JSON.stringify(urls)}: rules cannot apply to both regular resources and non-resource URLs`,
      );
    }
  });
  return errors;
}

function validateOmitStages(stages: readonly string[] | undefined, path: string, errors: string[]) {
  (stages ?? []).forEach((stage, i) => {
    if (!(AUDIT_STAGES as readonly string[]).includes(stage)) {
      errors.push(
        `${path}[${i}]: Invalid value: ${JSON.stringify(stage)}: allowed stages are ${AUDIT_STAGES.join(",")}`,
      );
    }
  });
}

function dnsSubdomainProblem(value: string): string | undefined {
  if (value.length > 253) return "must be no more than 253 characters";
  if (DNS_SUBDOMAIN.test(value)) return undefined;
  return "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";
}
