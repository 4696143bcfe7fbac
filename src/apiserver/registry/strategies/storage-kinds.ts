import { deepEqual, type StatusCause } from "../../../core/index.ts";
import { field } from "../field-errors.ts";
import { createdStatus, eachAt, type KindRules, specOf } from "./kind-rules.ts";
import { defaultVolumeSource } from "./pod-spec-defaults.ts";
import { child, type Json, rec, setDefault } from "./util.ts";

/*
 * Volumes and their classes — core/v1 PersistentVolumes and PersistentVolumeClaims and the
 * storage.k8s.io kinds — as kube-apiserver 1.36 defaults, creates and deletes them. kube's
 * StorageObjectInUseProtection admission gives every created volume, claim and
 * VolumeAttributesClass a protection finalizer, which a controller of kube-controller-manager
 * removes once nothing uses the object; no such controller runs here, so a deleted one stays,
 * marked for deletion, until a client removes the finalizer. A DELETE of each of these kinds
 * answers with the object.
 */

/** Adds `finalizer` to a created object, as kube's admission does (after field management). */
function protectedBy(finalizer: string): Pick<KindRules, "prepareForCreate"> {
  return {
    prepareForCreate(object) {
      const meta = child(rec(object), "metadata");
      const finalizers = Array.isArray(meta.finalizers) ? meta.finalizers : [];
      if (!finalizers.includes(finalizer)) meta.finalizers = [...finalizers, finalizer];
    },
  };
}

/** Runs each hook of `rules` in order, where several set one. */
function both(
  ...rules: Pick<KindRules, "prepareForCreate">[]
): Pick<KindRules, "prepareForCreate"> {
  return {
    prepareForCreate(object) {
      for (const r of rules) r.prepareForCreate?.(object);
    },
  };
}

/** A phase kube's scheme fills in on every write: a volume or a claim starts Pending. */
function defaultPhase(o: Json): void {
  setDefault(child(o, "status"), "phase", "Pending");
}

const persistentVolume: KindRules = {
  returnDeletedObject: true,
  defaults(object) {
    const spec = specOf(object);
    setDefault(spec, "persistentVolumeReclaimPolicy", "Retain");
    setDefault(spec, "volumeMode", "Filesystem");
    defaultVolumeSource(spec);
    defaultPhase(rec(object));
  },
  ...both(
    {
      // A created volume is Pending since its creation.
      prepareForCreate(object) {
        const since = object.metadata?.creationTimestamp;
        rec(object).status = { phase: "Pending", lastPhaseTransitionTime: since };
      },
    },
    protectedBy("kubernetes.io/pv-protection"),
  ),
};

const persistentVolumeClaim: KindRules = {
  returnDeletedObject: true,
  defaults(object) {
    setDefault(specOf(object), "volumeMode", "Filesystem");
    defaultPhase(rec(object));
  },
  ...both(
    createdStatus(() => ({ phase: "Pending" })),
    protectedBy("kubernetes.io/pvc-protection"),
  ),
};

const storageClass: KindRules = {
  returnDeletedObject: true,
  defaults(object) {
    const o = rec(object);
    setDefault(o, "reclaimPolicy", "Delete");
    setDefault(o, "volumeBindingMode", "Immediate");
  },
};

const csiDriver: KindRules = {
  returnDeletedObject: true,
  defaults(object) {
    const spec = specOf(object);
    setDefault(spec, "attachRequired", true);
    setDefault(spec, "podInfoOnMount", false);
    setDefault(spec, "storageCapacity", false);
    setDefault(spec, "fsGroupPolicy", "ReadWriteOnceWithFSType");
    if (!Array.isArray(spec.volumeLifecycleModes) || spec.volumeLifecycleModes.length === 0) {
      spec.volumeLifecycleModes = ["Persistent"];
    }
    setDefault(spec, "requiresRepublish", false);
    setDefault(spec, "seLinuxMount", false);
  },
};

const csiNode: KindRules = {
  returnDeletedObject: true,
  defaults(object) {
    // kube writes a driver's topology keys even when there are none (null), so its writer owns them.
    for (const driver of eachAt(specOf(object), "drivers"))
      setDefault(driver, "topologyKeys", null);
  },
};

const volumeAttachment: KindRules = {
  returnDeletedObject: true,
  defaults(object) {
    setDefault(child(rec(object), "status"), "attached", false);
  },
  ...createdStatus(() => ({ attached: false })),
};

/** The CSI driver and the parameters a VolumeAttributesClass gives, both required and fixed. */
const volumeAttributesClass: KindRules = {
  returnDeletedObject: true,
  ...protectedBy("kubernetes.io/vac-protection"),
  validate(object) {
    const o = rec(object);
    const causes: StatusCause[] = [];
    if (typeof o.driverName !== "string" || o.driverName === "") {
      causes.push(field.required("driverName"));
    }
    const parameters = o.parameters;
    if (
      typeof parameters !== "object" ||
      parameters === null ||
      Object.keys(parameters).length === 0
    ) {
      causes.push(field.required("parameters", "must contain at least one key/value pair"));
    }
    return causes;
  },
  validateUpdate(object, old) {
    const [o, was] = [rec(object), rec(old)];
    const causes: StatusCause[] = [];
    if (o.driverName !== was.driverName) {
      causes.push(field.forbidden("driverName", "updates to driverName are forbidden."));
    }
    if (!deepEqual(o.parameters, was.parameters)) {
      causes.push(field.forbidden("parameters", "updates to parameters are forbidden."));
    }
    return causes;
  },
};

/** The kinds' rules, by `group/plural` (`plural` in the core group). */
export const STORAGE_KINDS: Readonly<Record<string, KindRules>> = {
  persistentvolumes: persistentVolume,
  persistentvolumeclaims: persistentVolumeClaim,
  "storage.k8s.io/storageclasses": storageClass,
  "storage.k8s.io/csidrivers": csiDriver,
  "storage.k8s.io/csinodes": csiNode,
  "storage.k8s.io/volumeattachments": volumeAttachment,
  "storage.k8s.io/volumeattributesclasses": volumeAttributesClass,
};
