/** A subresource of a built-in resource, as discovery lists it. */
export interface BuiltinSubresourceFacts {
  readonly name: string;
  /** Group and version of {@link kind} where it is not the parent's ("" where it is). */
  readonly group: string;
  readonly version: string;
  /** The kind it reads and writes: the parent's (`status`), or another (`scale`: Scale). */
  readonly kind: string;
  readonly verbs: readonly string[];
}

/**
 * What kube-apiserver 1.36 says of one resource it serves by default: the facts discovery
 * lists, generated from Kubernetes' OpenAPI documents into builtin-resources.ts.
 */
export interface BuiltinResourceFacts {
  readonly group: string;
  readonly version: string;
  readonly kind: string;
  readonly plural: string;
  readonly namespaced: boolean;
  readonly verbs: readonly string[];
  readonly shortNames: readonly string[];
  readonly categories: readonly string[];
  readonly subresources: readonly BuiltinSubresourceFacts[];
}
