import type {
  CustomResourceDefinition as K8sCustomResourceDefinition,
  CustomResourceDefinitionSpec as K8sSpec,
  CustomResourceDefinitionVersion as K8sVersion,
} from "kubernetes-types/apiextensions/v1.js";
import type { OpenApiSchema } from "./openapi-schema.ts";

/**
 * apiextensions.k8s.io/v1 CustomResourceDefinition, typed from `kubernetes-types` but with the
 * schema as {@link OpenApiSchema}: kubernetes-types types `default` and `example` as the global
 * `JSON` object (an upstream slip), and lacks the `x-kubernetes-*` extensions. With this type,
 * `client.resource(customResourceDefinitions).create(User.crd())` type-checks.
 */
export interface CustomResourceDefinition extends Omit<K8sCustomResourceDefinition, "spec"> {
  spec: Omit<K8sSpec, "versions"> & { versions: CustomResourceDefinitionVersion[] };
}

/** One version of a {@link CustomResourceDefinition}. */
export interface CustomResourceDefinitionVersion extends Omit<K8sVersion, "schema"> {
  schema?: { openAPIV3Schema?: OpenApiSchema };
}

/**
 * True once the server serves the CRD's resource (its `Established` condition is `True`); false
 * for `undefined`. For waiting on a CRD just created:
 * `await waitFor(client.resource(customResourceDefinitions), "users.example.com", isEstablished)`.
 */
export function isEstablished(crd: CustomResourceDefinition | undefined): boolean {
  return (
    crd?.status?.conditions?.some((c) => c.type === "Established" && c.status === "True") ?? false
  );
}
