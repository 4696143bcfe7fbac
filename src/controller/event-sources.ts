import type { HandlerRegistration, InformerFactory, SharedInformer } from "../cache/index.ts";
import {
  DeletedFinalStateUnknown,
  type KubeObject,
  keyOf,
  objectKey,
  parseApiVersion,
} from "../core/index.ts";
import type { ControllerSpec, PriorityEvent, Source } from "./builder.ts";
import { LOW_PRIORITY } from "./controller-queue.ts";
import { getControllerOf } from "./owner-references.ts";
import { evaluate } from "./predicates.ts";
import type { ObjectRef, ReconcileReason, Request } from "./reconciler.ts";

/** Where event sources put keys. */
export interface EnqueueTarget {
  enqueue(key: string, reason: ReconcileReason, priority: number): void;
  /** A mapper or predicate threw: reported, and the event skipped. */
  handlerError(err: unknown, where: string): void;
}

type EventKind = PriorityEvent["event"];
type SourceKind = PriorityEvent["source"];

/**
 * Connects a controller's sources to informers: each event passes the predicates, becomes the
 * keys to reconcile (the object's own, its controller owner's, or a mapper's), and is enqueued
 * with its reason and priority. Returns the handler registrations, whose sync gates the workers.
 */
export function connectSources(
  spec: ControllerSpec,
  factory: InformerFactory,
  target: EnqueueTarget,
): { registrations: HandlerRegistration[]; informers: SharedInformer<KubeObject>[] } {
  const registrations: HandlerRegistration[] = [];
  const informers: SharedInformer<KubeObject>[] = [];
  const forDef = spec.for?.resource;
  const ownerNamespaced = forDef?.scope === "Namespaced";

  const connect = (src: Source, kind: SourceKind, keysOf: (obj: KubeObject) => string[]) => {
    const informer = factory.informer(
      src.resource,
      spec.namespace === undefined ? {} : { namespace: spec.namespace },
    );
    informers.push(informer as SharedInformer<KubeObject>);
    const predicates = [...spec.predicates, ...(src.predicates ?? [])];
    const where = `${kind} ${src.resource.kind}`;
    const emit = (event: EventKind, obj: KubeObject, oldObj?: KubeObject) => {
      let keys: string[];
      try {
        const predicateKind =
          event === "initial"
            ? "create"
            : event === "add"
              ? "create"
              : event === "delete"
                ? "delete"
                : "update";
        if (!predicates.every((p) => evaluate(p, predicateKind, obj, oldObj))) return;
        keys = keysOf(obj);
        // An owner change moves a child: the old owner hears of it too.
        if (oldObj !== undefined && kind !== "self") {
          for (const k of keysOf(oldObj)) if (!keys.includes(k)) keys.push(k);
        }
      } catch (err) {
        target.handlerError(err, where);
        return;
      }
      if (keys.length === 0) return;
      let priority: number | undefined;
      try {
        priority = spec.priority?.({ event, source: kind, object: obj });
      } catch (err) {
        target.handlerError(err, `${where} priority`);
      }
      priority ??= event === "initial" || event === "resync" ? LOW_PRIORITY : 0;
      const reason: ReconcileReason = {
        type: "event",
        event,
        source: kind,
        object: refOf(src.resource.kind, obj),
      };
      for (const key of keys) target.enqueue(key, reason, priority);
    };
    registrations.push(
      informer.addEventHandler({
        onAdd: (obj, initial) => emit(initial ? "initial" : "add", obj),
        onUpdate: (oldObj, newObj) =>
          emit(
            oldObj.metadata?.resourceVersion === newObj.metadata?.resourceVersion
              ? "resync"
              : "update",
            newObj,
            oldObj,
          ),
        onDelete: (obj) => emit("delete", obj instanceof DeletedFinalStateUnknown ? obj.obj : obj),
      }),
    );
  };

  if (spec.for !== undefined) connect(spec.for, "self", (obj) => [objectKey(obj)]);
  for (const owned of spec.owns) {
    connect(owned, "owned", (obj) => {
      const ref = getControllerOf(obj);
      if (
        forDef === undefined ||
        ref === undefined ||
        ref.kind !== forDef.kind ||
        parseApiVersion(ref.apiVersion).group !== forDef.group
      ) {
        return [];
      }
      return [keyOf(ownerNamespaced ? obj.metadata?.namespace : undefined, ref.name)];
    });
  }
  for (const w of spec.watches) {
    connect(w, "watch", (obj) => {
      const out = w.map(obj);
      const requests: readonly Request[] =
        out === undefined ? [] : Array.isArray(out) ? out : [out as Request];
      return requests.map((r) => keyOf(r.namespace, r.name));
    });
  }
  return { registrations, informers };
}

function refOf(kind: string, obj: KubeObject): ObjectRef {
  const ns = obj.metadata?.namespace;
  return { kind, name: obj.metadata?.name ?? "", ...(ns ? { namespace: ns } : {}) };
}
