import type { KubeObject } from "../../../core/index.ts";
import { createdStatus, eachAt, type KindRules, specOf } from "./kind-rules.ts";
import { type Json, recordAt, setDefault } from "./util.ts";

/*
 * resource.k8s.io/v1 (dynamic resource allocation) as kube-apiserver 1.36 defaults it: a device
 * request asks for exactly one device unless told otherwise, a toleration matches equal values.
 * A claim starts with an empty status; a DELETE of these kinds answers with the object.
 */

/** An exact request or a sub-request: one device by default; tolerations match by equality. */
function defaultDeviceRequest(request: Json): void {
  setDefault(request, "allocationMode", "ExactCount");
  if (request.allocationMode === "ExactCount" && (request.count ?? 0) === 0) request.count = 1;
  for (const toleration of eachAt(request, "tolerations")) {
    setDefault(toleration, "operator", "Equal");
  }
}

/** The device requests of a claim's spec. */
function defaultClaimSpec(spec: Json): void {
  for (const request of eachAt(recordAt(spec, "devices") ?? {}, "requests")) {
    const exactly = recordAt(request, "exactly");
    if (exactly !== undefined) defaultDeviceRequest(exactly);
    for (const sub of eachAt(request, "firstAvailable")) defaultDeviceRequest(sub);
  }
}

const resourceClaim: KindRules = {
  returnDeletedObject: true,
  defaults: (object) => defaultClaimSpec(specOf(object)),
  ...createdStatus(() => ({})),
};

/** The claim's metadata Go writes as `{}` when empty, owned by nobody (set after field management). */
const claimMetadata = (object: KubeObject) => {
  specOf(object).metadata ??= {};
};

const resourceClaimTemplate: KindRules = {
  returnDeletedObject: true,
  defaults(object) {
    const spec = recordAt(specOf(object), "spec");
    if (spec !== undefined) defaultClaimSpec(spec);
  },
  prepareForCreate: claimMetadata,
  prepareForUpdate: claimMetadata,
};

/** The kinds' rules, by `group/plural`. */
export const RESOURCE_KINDS: Readonly<Record<string, KindRules>> = {
  "resource.k8s.io/resourceclaims": resourceClaim,
  "resource.k8s.io/resourceclaimtemplates": resourceClaimTemplate,
  "resource.k8s.io/deviceclasses": { returnDeletedObject: true },
  "resource.k8s.io/resourceslices": { returnDeletedObject: true },
  "resource.k8s.io/devicetaintrules": { returnDeletedObject: true },
};
