import { createdStatus, eachAt, type KindRules, specOf } from "./kind-rules.ts";
import { type Json, rec, recordAt, setDefault } from "./util.ts";

/*
 * admissionregistration.k8s.io/v1, as kube-apiserver 1.36 defaults it: every webhook and policy
 * fails closed, matches equivalent versions, every namespace and object, and every scope, unless
 * told otherwise; a webhook waits 10 s, a mutating one is not called twice; a service is called
 * on 443. A ValidatingAdmissionPolicy starts with an empty status (its type checks are written
 * later by the API server's own controller, which does not run here).
 */

/** A rule matches resources of every scope by default. */
function defaultRules(rules: Json[]): void {
  for (const rule of rules) setDefault(rule, "scope", "*");
}

/** What a webhook or a policy's match resources select by default. */
function defaultMatching(o: Json): void {
  setDefault(o, "matchPolicy", "Equivalent");
  setDefault(o, "namespaceSelector", {});
  setDefault(o, "objectSelector", {});
}

function defaultWebhook(webhook: Json, mutating: boolean): void {
  setDefault(webhook, "failurePolicy", "Fail");
  defaultMatching(webhook);
  setDefault(webhook, "timeoutSeconds", 10);
  if (mutating) setDefault(webhook, "reinvocationPolicy", "Never");
  const service = recordAt(recordAt(webhook, "clientConfig") ?? {}, "service");
  if (service !== undefined) setDefault(service, "port", 443);
  defaultRules(eachAt(webhook, "rules"));
}

function webhookConfiguration(mutating: boolean): KindRules {
  return {
    defaults(object) {
      for (const webhook of eachAt(rec(object), "webhooks")) defaultWebhook(webhook, mutating);
    },
  };
}

/** A policy's or binding's `matchConstraints`/`matchResources`, where present. */
function defaultMatchResources(match: Json | undefined): void {
  if (match === undefined) return;
  defaultMatching(match);
  defaultRules(eachAt(match, "resourceRules"));
  defaultRules(eachAt(match, "excludeResourceRules"));
}

function policy(status: boolean): KindRules {
  return {
    defaults(object) {
      const spec = specOf(object);
      setDefault(spec, "failurePolicy", "Fail");
      defaultMatchResources(recordAt(spec, "matchConstraints"));
    },
    ...(status ? createdStatus(() => ({})) : {}),
  };
}

const binding: KindRules = {
  defaults(object) {
    defaultMatchResources(recordAt(specOf(object), "matchResources"));
  },
};

/** The kinds' rules, by `group/plural`. */
export const ADMISSION_KINDS: Readonly<Record<string, KindRules>> = {
  "admissionregistration.k8s.io/mutatingwebhookconfigurations": webhookConfiguration(true),
  "admissionregistration.k8s.io/validatingwebhookconfigurations": webhookConfiguration(false),
  "admissionregistration.k8s.io/validatingadmissionpolicies": policy(true),
  "admissionregistration.k8s.io/mutatingadmissionpolicies": policy(false),
  "admissionregistration.k8s.io/validatingadmissionpolicybindings": binding,
  "admissionregistration.k8s.io/mutatingadmissionpolicybindings": binding,
};
