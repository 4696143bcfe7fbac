import type { KubeObject } from "../../../../core/index.ts";
import type { TableColumn } from "../../strategy.ts";
import { AGE, at, count, items, NAME, str, strings } from "./common.ts";

/* The columns of webhook configurations and admission policies and their bindings. */

/** `apiVersion/kind` of a policy's parameters, or `<unset>`. */
function paramKind(policy: KubeObject): string {
  if (at(policy, "spec.paramKind") === undefined) return "<unset>";
  return `${str(policy, "spec.paramKind.apiVersion")}/${str(policy, "spec.paramKind.kind")}`;
}

/**
 * A binding's parameter: `namespace/name`, `*\/name` without a namespace, its selector, or
 * `<unset>`.
 */
function paramRef(binding: KubeObject): string {
  const ref = at(binding, "spec.paramRef");
  if (ref === undefined) return "<unset>";
  const name = str(ref, "name");
  if (name !== "") return `${str(ref, "namespace", "*")}/${name}`;
  const selector = at(ref, "selector");
  return selector === undefined ? "<unset>" : debugSelector(selector);
}

/**
 * A label selector in the debug form kube prints a binding's parameter selector in (its Go
 * type's `String()`): `&LabelSelector{MatchLabels:map[string]string{app: web,},MatchExpressions:
 * []LabelSelectorRequirement{LabelSelectorRequirement{Key:tier,Operator:In,Values:[a b],},},}`.
 */
function debugSelector(selector: unknown): string {
  const labels = (at(selector, "matchLabels") ?? {}) as Record<string, unknown>;
  const pairs = Object.keys(labels)
    .sort()
    .map((k) => `${k}: ${labels[k]},`)
    .join("");
  const expressions = items(selector, "matchExpressions")
    .map(
      (e) =>
        `LabelSelectorRequirement{Key:${str(e, "key")},Operator:${str(e, "operator")},Values:[${strings(e, "values").join(" ")}],},`,
    )
    .join("");
  return `&LabelSelector{MatchLabels:map[string]string{${pairs}},MatchExpressions:[]LabelSelectorRequirement{${expressions}},}`;
}

/** What kube says of the ParamKind column of both policy kinds. */
const PARAM_KIND = "ParamKind specifies the kind of resources used to parameterize this policy";

/** What kube says of the binding kinds' columns. */
const POLICY_NAME = "PolicyName indicates the policy definition which the policy binding binded to";
const PARAM_REF = "ParamRef indicates the param resource which sets the configuration param";
const WEBHOOKS = "Webhooks indicates the number of webhooks registered in this configuration";

/** `kubectl get mutatingwebhookconfigurations`. */
export const MUTATING_WEBHOOK_COLUMNS: readonly TableColumn[] = [
  NAME,
  { name: "Webhooks", type: "integer", description: WEBHOOKS, cell: (o) => count(o, "webhooks") },
  AGE,
];

/** `kubectl get validatingwebhookconfigurations`. */
export const VALIDATING_WEBHOOK_COLUMNS: readonly TableColumn[] = [
  NAME,
  { name: "Webhooks", type: "integer", description: WEBHOOKS, cell: (o) => count(o, "webhooks") },
  AGE,
];

/** `kubectl get validatingadmissionpolicies`. */
export const VALIDATING_POLICY_COLUMNS: readonly TableColumn[] = [
  NAME,
  {
    name: "Validations",
    type: "integer",
    description:
      "Validations indicates the number of validation rules defined in this configuration",
    cell: (o) => count(o, "spec.validations"),
  },
  { name: "ParamKind", type: "string", description: PARAM_KIND, cell: paramKind },
  AGE,
];

/** `kubectl get mutatingadmissionpolicies`. */
export const MUTATING_POLICY_COLUMNS: readonly TableColumn[] = [
  NAME,
  {
    name: "Mutations",
    type: "integer",
    description: "Mutation indicates the number of mutations rules defined in this configuration",
    cell: (o) => count(o, "spec.mutations"),
  },
  { name: "ParamKind", type: "string", description: PARAM_KIND, cell: paramKind },
  AGE,
];

/** `kubectl get validatingadmissionpolicybindings`. */
export const VALIDATING_POLICY_BINDING_COLUMNS: readonly TableColumn[] = [
  NAME,
  {
    name: "PolicyName",
    type: "string",
    description: POLICY_NAME,
    cell: (o) => str(o, "spec.policyName"),
  },
  { name: "ParamRef", type: "string", description: PARAM_REF, cell: paramRef },
  AGE,
];

/** `kubectl get mutatingadmissionpolicybindings`. */
export const MUTATING_POLICY_BINDING_COLUMNS: readonly TableColumn[] = [
  NAME,
  {
    name: "PolicyName",
    type: "string",
    description: POLICY_NAME,
    cell: (o) => str(o, "spec.policyName"),
  },
  { name: "ParamRef", type: "string", description: PARAM_REF, cell: paramRef },
  AGE,
];
