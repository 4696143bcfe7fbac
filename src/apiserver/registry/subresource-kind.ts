/**
 * The kind a subresource's requests carry, when it is not the resource's own (a pod's
 * `binding` takes a Binding); undefined for the subresources that take the resource's kind
 * (`status`, `finalize`, a pod's `ephemeralcontainers` and `resize`).
 */
export function subresourceKind(subresource: string): string | undefined {
  if (subresource === "binding") return "Binding";
  return undefined;
}
