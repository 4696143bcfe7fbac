/**
 * Differences kept on purpose: each with a matcher and the reason. A difference that matches none
 * is reported as unexplained. Add an entry only for a behaviour the embedded server means to
 * have, never to hide a bug.
 */
import type { KnownDifference } from "./difference.ts";

export const knownDifferences: readonly KnownDifference[] = [
  {
    reason:
      "kube-apiserver's last page of a selected list carries a continue token while objects the selector does not match remain after it; the embedded server's carries one only while matches remain. Either is allowed: a client follows the token to an empty page",
    matches: (d, at) =>
      (d.step === "list the next page" || d.step === "list the next page (protobuf)") &&
      at?.path === "metadata.continue" &&
      // None on a built-in list; "" on a custom resource's (unstructured, as kube writes it).
      (at.embedded === undefined || at.embedded === ""),
  },
  {
    reason:
      "kube-apiserver removes a deleted CRD only once its own controller has cleaned up the custom resources and dropped its finalizer, a moment later: a get right after the delete may still find it",
    matches: (d, at) =>
      d.scenario === "customresourcedefinitions" &&
      d.step === "get after delete" &&
      at === undefined &&
      d.status.reference === 200 &&
      d.status.embedded === 404,
  },
  {
    reason:
      "kube-apiserver's establishing controller marks a new CRD Established a moment after accepting its names; a read right after the create may find it still Installing, where the embedded server has already established it. Clients wait for Established either way",
    matches: (d, at) =>
      d.scenario === "customresourcedefinitions" &&
      at !== undefined &&
      /status\.conditions\[type=Established\]\.(status|reason|message|lastTransitionTime)$/.test(
        at.path,
      ) &&
      (at.reference === "False" || at.reference === "Installing"),
  },
];
