import { errors, type KubeObject } from "../../../core/index.ts";
import { timestamp } from "../deletion.ts";
import { field } from "../field-errors.ts";
import { arrayAt, child, type Json, rec, recordAt } from "./util.ts";

const PODS = { group: "", resource: "pods" };
const BINDINGS = { group: "", resource: "pods/binding" };

/**
 * A pod's `binding` subresource (kube's `BindingREST`): a scheduler POSTs a `Binding`
 * (`target: {kind: "Node", name}`) and the pod is assigned to that node — `spec.nodeName` set
 * once, the binding's annotations merged in, the `PodScheduled` condition True. Returns the pod
 * to store, built from `stored` (a copy of the stored pod).
 *
 * Refused: a target without a name or of another kind (422); a binding whose `metadata.uid`
 * is not the pod's (409, the UID precondition); a pod being deleted, already assigned to a
 * node (even the same one), or with scheduling gates (409 Conflict on `pods/binding`, as kube
 * answers). The name check (URL against `metadata.name`) and the resourceVersion precondition
 * are the caller's.
 */
export function bindPod(body: KubeObject, stored: KubeObject, nowMs: number): KubeObject {
  const binding = rec(body);
  const name = stored.metadata?.name ?? "";
  const target = recordAt(binding, "target") ?? {};
  const causes = [];
  if (target.kind !== undefined && target.kind !== "" && target.kind !== "Node") {
    causes.push(field.notSupported("target.kind", target.kind, ["Node", "<empty>"]));
  }
  if (typeof target.name !== "string" || target.name === "") {
    causes.push(field.required("target.name"));
  }
  if (causes.length > 0) throw errors.invalid("Binding", "", name, causes);
  const uid = body.metadata?.uid;
  if (uid && uid !== stored.metadata?.uid) {
    throw errors.conflict(
      PODS,
      name,
      `Precondition failed: UID in precondition: ${uid}, UID in object meta: ${stored.metadata?.uid ?? ""}`,
    );
  }
  const pod = rec(stored);
  const spec = child(pod, "spec");
  if (stored.metadata?.deletionTimestamp) {
    throw errors.conflict(
      BINDINGS,
      name,
      `pod ${name} is being deleted, cannot be assigned to a host`,
    );
  }
  if (typeof spec.nodeName === "string" && spec.nodeName !== "") {
    throw errors.conflict(
      BINDINGS,
      name,
      `pod ${name} is already assigned to node ${JSON.stringify(spec.nodeName)}`,
    );
  }
  if ((arrayAt(spec, "schedulingGates") ?? []).length > 0) {
    throw errors.conflict(BINDINGS, name, `pod ${name} has non-empty .spec.schedulingGates`);
  }
  spec.nodeName = target.name;
  const annotations = body.metadata?.annotations;
  if (annotations !== undefined && Object.keys(annotations).length > 0) {
    stored.metadata = {
      ...stored.metadata,
      annotations: { ...stored.metadata?.annotations, ...annotations },
    };
  }
  setScheduled(child(pod, "status"), nowMs);
  return stored;
}

/** Sets the PodScheduled condition to True (a new transition time only if it changed). */
function setScheduled(status: Json, nowMs: number): void {
  const conditions = (arrayAt(status, "conditions") ?? []).filter(
    (c) => typeof c === "object" && c !== null,
  ) as Json[];
  const existing = conditions.find((c) => c.type === "PodScheduled");
  if (existing === undefined) {
    conditions.push({
      type: "PodScheduled",
      status: "True",
      lastProbeTime: null,
      lastTransitionTime: timestamp(nowMs),
    });
  } else if (existing.status !== "True") {
    existing.status = "True";
    existing.lastTransitionTime = timestamp(nowMs);
    delete existing.reason;
    delete existing.message;
  }
  status.conditions = conditions;
}
