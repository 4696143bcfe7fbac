/**
 * admissionregistration.k8s.io kinds read back as kube-apiserver 1.36 returns them: webhooks and
 * policies defaulted (fail closed, equivalent matching, every namespace, object and scope),
 * owned by their writer. The expectations are kube's answers to these requests; runs on both
 * backends.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { startTestServer, type TestServer } from "kontroller/testing";
import { call, type Loose } from "./helpers.ts";
import { type KindCase, kindCases } from "./kind-defaults-rig.ts";

const GROUP = "/apis/admissionregistration.k8s.io/v1";
const apiVersion = "admissionregistration.k8s.io/v1";
const rule = {
  operations: ["CREATE"],
  apiGroups: ["x.example.com"],
  apiVersions: ["v1"],
  resources: ["xs"],
};
const webhook = {
  name: "w.example.com",
  clientConfig: { service: { namespace: "default", name: "hook" } },
  admissionReviewVersions: ["v1"],
  sideEffects: "None",
  rules: [rule],
};
const defaultedWebhook = {
  ...webhook,
  clientConfig: { service: { namespace: "default", name: "hook", port: 443 } },
  rules: [{ ...rule, scope: "*" }],
  failurePolicy: "Fail",
  matchPolicy: "Equivalent",
  namespaceSelector: {},
  objectSelector: {},
  timeoutSeconds: 10,
};
const match = { resourceRules: [rule], excludeResourceRules: [{ ...rule, resourceNames: ["n"] }] };
const defaultedMatch = {
  resourceRules: [{ ...rule, scope: "*" }],
  excludeResourceRules: [{ ...rule, resourceNames: ["n"], scope: "*" }],
  matchPolicy: "Equivalent",
  namespaceSelector: {},
  objectSelector: {},
};
const owned = ["f:webhooks"];

const CASES: KindCase[] = [
  {
    path: `${GROUP}/validatingwebhookconfigurations`,
    apiVersion,
    kind: "ValidatingWebhookConfiguration",
    body: { webhooks: [webhook] },
    want: { webhooks: [defaultedWebhook], metadata: { generation: 1 } },
    owns: owned,
  },
  {
    path: `${GROUP}/mutatingwebhookconfigurations`,
    apiVersion,
    kind: "MutatingWebhookConfiguration",
    body: { webhooks: [webhook] },
    want: {
      webhooks: [{ ...defaultedWebhook, reinvocationPolicy: "Never" }],
      metadata: { generation: 1 },
    },
    owns: owned,
  },
  {
    path: `${GROUP}/validatingadmissionpolicies`,
    apiVersion,
    kind: "ValidatingAdmissionPolicy",
    body: { spec: { matchConstraints: match, validations: [{ expression: "true" }] } },
    want: {
      spec: {
        matchConstraints: defaultedMatch,
        validations: [{ expression: "true" }],
        failurePolicy: "Fail",
      },
      status: {},
      metadata: { generation: 1 },
    },
    owns: ["f:spec.f:failurePolicy"],
  },
  {
    path: `${GROUP}/validatingadmissionpolicybindings`,
    apiVersion,
    kind: "ValidatingAdmissionPolicyBinding",
    body: { spec: { policyName: "p", validationActions: ["Deny"], matchResources: match } },
    want: {
      spec: { policyName: "p", validationActions: ["Deny"], matchResources: defaultedMatch },
      metadata: { generation: 1 },
    },
  },
];

describe("admission registration kinds read back as kube-apiserver returns them", () => {
  let s: TestServer;
  before(async () => {
    s = await startTestServer({ controllers: false });
  });
  after(() => s.close());
  kindCases(() => s, CASES);

  it("records a binding's validationActions, a set Go omits when empty, as kube does", async () => {
    // The set is absent from an empty binding, so the write that adds it owns the set itself
    // ("."), as well as its values; a later writer of another value owns just that value.
    const path = `${GROUP}/validatingadmissionpolicybindings`;
    const fieldsOf = (o: Loose) =>
      Object.fromEntries(
        o.metadata.managedFields.map((m: Loose) => [m.manager, m.fieldsV1["f:spec"]]),
      );
    const created = await call(s.url, "POST", `${path}?fieldManager=writer`, {
      apiVersion,
      kind: "ValidatingAdmissionPolicyBinding",
      metadata: { name: "actions" },
      spec: { policyName: "p", validationActions: ["Deny"] },
    });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    const written = {
      "f:policyName": {},
      "f:validationActions": { ".": {}, 'v:"Deny"': {} },
    };
    assert.deepEqual(fieldsOf(created.body), { writer: written });
    const next = created.body;
    next.spec.validationActions = ["Deny", "Audit"];
    const updated = await call(s.url, "PUT", `${path}/actions?fieldManager=updater`, next);
    assert.equal(updated.status, 200, JSON.stringify(updated.body));
    assert.deepEqual(fieldsOf(updated.body), {
      writer: written,
      updater: { "f:validationActions": { 'v:"Audit"': {} } },
    });
  });
});
