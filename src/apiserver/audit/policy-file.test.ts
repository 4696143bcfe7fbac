import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { AuditPolicyError, parseAuditPolicy } from "./policy-file.ts";

const HEAD = "apiVersion: audit.k8s.io/v1\nkind: Policy\n";

/** The message parsing `text` fails with. */
function refusal(text: string, source?: string): string {
  try {
    parseAuditPolicy(text, source === undefined ? {} : { source });
  } catch (err) {
    assert.ok(err instanceof AuditPolicyError);
    return err.message;
  }
  assert.fail("the policy was accepted");
}

describe("parseAuditPolicy (kube's --audit-policy-file)", () => {
  it("reads a policy in YAML or JSON", () => {
    const yaml = parseAuditPolicy(
      `${HEAD}omitStages: [RequestReceived]\nrules:\n- level: Metadata\n  resources:\n  - group: apps\n    resources: [deployments/scale]\n`,
    );
    assert.deepEqual(yaml, {
      apiVersion: "audit.k8s.io/v1",
      kind: "Policy",
      rules: [
        { level: "Metadata", resources: [{ group: "apps", resources: ["deployments/scale"] }] },
      ],
      omitStages: ["RequestReceived"],
    });
    const json = parseAuditPolicy(
      JSON.stringify({ apiVersion: "audit.k8s.io/v1", kind: "Policy", rules: [{ level: "None" }] }),
    );
    assert.deepEqual(json.rules, [{ level: "None" }]);
  });

  it("refuses what kube's validation refuses, every problem in kube's words, from the file", () => {
    const text = `${HEAD}omitStages: ["Bogus"]
rules:
- level: Foo
- verbs: [get]
- level: None
  nonResourceURLs: ["healthz", "/a*b"]
  namespaces: [x]
- level: Metadata
  resources: [{group: "Apps_x"}, {resourceNames: [a]}]
`;
    assert.equal(
      refusal(text, "/etc/policy.yaml"),
      `audit policy: [omitStages[0]: Invalid value: "Bogus": allowed stages are RequestReceived,ResponseStarted,ResponseComplete,Panic, rules[0].level: Unsupported value: "Foo": supported values: "None", "Metadata", "Request", "RequestResponse", rules[1].level: Required value, rules[2].nonResourceURLs[0]: Invalid value: "healthz": non-resource URL rules must begin with a '/' character, rules[2].nonResourceURLs[1]: Invalid value: "/a*b": non-resource URL wildcards '*' must be the final character of the rule, rules[2].nonResourceURLs: Invalid value: ["healthz","/a*b"]: rules cannot apply to both regular resources and non-resource URLs, rules[3].resources.group: Invalid value: "Apps_x": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*'), rules[3].resources.resourceNames: Invalid value: ["a"]: using resourceNames requires at least one resource]: from file /etc/policy.yaml`,
    );
  });

  it("refuses a policy without rules, of another version or kind, or that is not YAML", () => {
    assert.equal(refusal(`${HEAD}rules: []\n`), "audit policy: loaded illegal policy with 0 rules");
    assert.match(
      refusal("apiVersion: audit.k8s.io/v1beta1\nkind: Policy\nrules:\n- level: None\n"),
      /no kind "Policy" is registered for version "audit.k8s.io\/v1beta1"/,
    );
    assert.match(
      refusal("kind: Policy\nrules:\n- level: None\n"),
      /apiVersion and kind are required/,
    );
    assert.match(refusal(`${HEAD}rules: {x\n`), /^audit policy: failed decoding: /);
    assert.match(refusal("- a\n- b\n"), /not an object of kind Policy/);
  });

  it("refuses fields of the wrong type, as kube's decoder does", () => {
    assert.equal(
      refusal(`${HEAD}rules:\n- level: None\n  users: bob\n`),
      'audit policy: failed decoding: rules[0].users: must be a list of strings, got "bob"',
    );
  });

  it("warns of unknown fields and reads the rest, as kube falls back to lenient decoding", () => {
    const warnings: string[] = [];
    const policy = parseAuditPolicy(`${HEAD}rules:\n- level: None\n  bogus: 1\n`, {
      source: "p.yaml",
      onWarning: (w) => warnings.push(w),
    });
    assert.deepEqual(policy.rules, [{ level: "None" }]);
    assert.deepEqual(warnings, [
      'audit policy contains errors, falling back to lenient decoding: unknown field "rules[0].bogus": from file p.yaml',
    ]);
  });
});
