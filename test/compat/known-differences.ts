/**
 * Differences kept on purpose: each with a matcher and the reason. A difference that matches none
 * is reported as unexplained. Add an entry only for a behaviour the embedded server means to
 * have, never to hide a bug.
 */
import type { KnownDifference } from "./difference.ts";

export const knownDifferences: readonly KnownDifference[] = [
  {
    reason:
      "the suite authenticates to kube-apiserver as the admin user and to the embedded server anonymously, so a CertificateSigningRequest records a different requester",
    matches: (d) =>
      d.scenario === "certificatesigningrequests" &&
      d.status.reference === d.status.embedded &&
      d.paths.every((p) => /spec\.(username|uid|groups|extra)/.test(p.path)),
  },
];
