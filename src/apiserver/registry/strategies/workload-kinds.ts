import { deepEqual, type KubeObject, type StatusCause } from "../../../core/index.ts";
import { field } from "../field-errors.ts";
import type { KindRules } from "./kind-rules.ts";
import { defaultPodSpec } from "./pod-spec-defaults.ts";
import { child, type Json, rec, recordAt, setDefault } from "./util.ts";
import { validatePodSpec } from "./workloads.ts";

/*
 * The workload kinds besides Deployment and Pod, as kube defaults them on every write (checked
 * against kube-apiserver 1.36's answers): their pod templates get the pod spec defaults, each
 * kind its own fields, and a created object its first status. What they add to
 * the generic strategy (generation, status subresource) is merged in by `genericStrategy`.
 */

/** `spec.template.spec`, created where absent. */
const templateSpec = (spec: Json) => child(child(spec, "template"), "spec");

/**
 * The kind's defaults of its spec (`defaults`, a template's pod spec defaults among them), and
 * the first status a created object gets (none without `status`).
 */
function defaulted(defaults: (spec: Json, o: Json) => void, status?: () => Json): KindRules {
  return {
    defaults(object) {
      const o = rec(object);
      defaults(child(o, "spec"), o);
    },
    prepareForCreate(object) {
      const o = rec(object);
      if (status === undefined) delete o.status;
      else o.status = status();
    },
  };
}

/** The template's pod spec must be valid, where the kind has one. */
function validatesTemplate(path: string, at: (o: Json) => Json | undefined): KindRules {
  return {
    validate(object: KubeObject): StatusCause[] {
      const template = at(rec(object));
      return validatePodSpec(template === undefined ? undefined : recordAt(template, "spec"), path);
    },
  };
}

const replicaSet: KindRules = {
  ...defaulted(
    (spec) => {
      setDefault(spec, "replicas", 1);
      defaultPodSpec(templateSpec(spec), "template");
    },
    () => ({ replicas: 0 }),
  ),
  ...validatesTemplate("spec.template.spec", (o) =>
    recordAt(recordAt(o, "spec") ?? {}, "template"),
  ),
};

const statefulSet: KindRules = {
  ...defaulted(
    (spec) => {
      setDefault(spec, "replicas", 1);
      setDefault(spec, "podManagementPolicy", "OrderedReady");
      const update = child(spec, "updateStrategy");
      setDefault(update, "type", "RollingUpdate");
      if (update.type === "RollingUpdate")
        setDefault(child(update, "rollingUpdate"), "partition", 0);
      setDefault(spec, "revisionHistoryLimit", 10);
      const retention = child(spec, "persistentVolumeClaimRetentionPolicy");
      setDefault(retention, "whenDeleted", "Retain");
      setDefault(retention, "whenScaled", "Retain");
      defaultPodSpec(templateSpec(spec), "template");
    },
    () => ({ replicas: 0, availableReplicas: 0 }),
  ),
  ...validatesTemplate("spec.template.spec", (o) =>
    recordAt(recordAt(o, "spec") ?? {}, "template"),
  ),
};

/** The annotation kube's DaemonSet strategy keeps at the template's generation. */
const TEMPLATE_GENERATION = "deprecated.daemonset.template.generation";

const daemonSet: KindRules = {
  ...defaulted(
    (spec) => {
      const update = child(spec, "updateStrategy");
      setDefault(update, "type", "RollingUpdate");
      if (update.type === "RollingUpdate") {
        const rolling = child(update, "rollingUpdate");
        setDefault(rolling, "maxUnavailable", 1);
        setDefault(rolling, "maxSurge", 0);
      }
      setDefault(spec, "revisionHistoryLimit", 10);
      defaultPodSpec(templateSpec(spec), "template");
    },
    () => ({
      currentNumberScheduled: 0,
      numberMisscheduled: 0,
      desiredNumberScheduled: 0,
      numberReady: 0,
    }),
  ),
  ...validatesTemplate("spec.template.spec", (o) =>
    recordAt(recordAt(o, "spec") ?? {}, "template"),
  ),
};
/*
 * The template generation: kube keeps it in its internal form and writes the annotation whenever
 * it converts to v1, "0" for a body without one — so every writer owns the annotation — and
 * then stores 1 on create, the stored generation on update (one more if the template changed).
 */
const daemonSetDefaults = daemonSet.defaults!;
const daemonSetCreate = daemonSet.prepareForCreate!;
const annotationsOf = (object: KubeObject) => child(child(rec(object), "metadata"), "annotations");
daemonSet.defaults = (object) => {
  daemonSetDefaults(object);
  setDefault(annotationsOf(object), TEMPLATE_GENERATION, "0");
};
daemonSet.prepareForCreate = (object) => {
  daemonSetCreate(object);
  annotationsOf(object)[TEMPLATE_GENERATION] = "1";
};
daemonSet.internalMetadata = (meta) => {
  if (meta.annotations?.[TEMPLATE_GENERATION] === undefined) return meta;
  const { [TEMPLATE_GENERATION]: _, ...annotations } = meta.annotations;
  const { annotations: __, ...rest } = meta;
  return Object.keys(annotations).length > 0 ? { ...rest, annotations } : rest;
};
daemonSet.prepareForUpdate = (object, old) => {
  const stored = Number(old.metadata?.annotations?.[TEMPLATE_GENERATION] ?? 0);
  const template = (o: KubeObject) => recordAt(recordAt(rec(o), "spec") ?? {}, "template");
  const changed = !deepEqual(template(object), template(old));
  annotationsOf(object)[TEMPLATE_GENERATION] = String(changed ? stored + 1 : stored);
};

/**
 * A Job's selector and template labels come from its uid, as kube's Job strategy makes them
 * (unless `manualSelector`): both the `batch.kubernetes.io/` labels and the legacy ones.
 */
function jobLabels(o: Json): void {
  const meta = child(o, "metadata");
  const spec = child(o, "spec");
  if (spec.manualSelector === true) return;
  const uid = String(meta.uid ?? "");
  const name = String(meta.name ?? "");
  const labels = {
    "batch.kubernetes.io/controller-uid": uid,
    "batch.kubernetes.io/job-name": name,
    "controller-uid": uid,
    "job-name": name,
  };
  setDefault(spec, "selector", { matchLabels: { "batch.kubernetes.io/controller-uid": uid } });
  const templateLabels = child(child(child(spec, "template"), "metadata"), "labels");
  Object.assign(templateLabels, labels);
  // kube's decoding gives a Job without labels its template's; one with labels keeps its own.
  const own = recordAt(meta, "labels");
  if (own === undefined || Object.keys(own).length === 0) meta.labels = { ...templateLabels };
}

function jobSpecDefaults(spec: Json): void {
  setDefault(spec, "parallelism", 1);
  if (spec.completions === undefined && spec.parallelism === 1) spec.completions = 1;
  setDefault(spec, "backoffLimit", 6);
  setDefault(spec, "completionMode", "NonIndexed");
  setDefault(spec, "suspend", false);
  setDefault(spec, "podReplacementPolicy", "TerminatingOrFailed");
  setDefault(spec, "manualSelector", false);
  defaultPodSpec(templateSpec(spec), "template");
}

/** A Job's pods may not restart in place: kube refuses `Always` (and a template without one). */
function validateJobTemplate(template: Json | undefined, path: string): StatusCause[] {
  const spec = template === undefined ? undefined : recordAt(template, "spec");
  const causes = validatePodSpec(spec, `${path}.spec`);
  const policy = spec?.restartPolicy;
  if (spec !== undefined && policy !== "OnFailure" && policy !== "Never") {
    causes.push(field.notSupported(`${path}.spec.restartPolicy`, policy, ["OnFailure", "Never"]));
  }
  return causes;
}

const job: KindRules = {
  orphanByDefault: true,
  defaults(object) {
    jobSpecDefaults(child(rec(object), "spec"));
  },
  prepareForCreate(object) {
    const o = rec(object);
    jobLabels(o);
    o.status = {};
  },
  validate(object) {
    return validateJobTemplate(
      recordAt(recordAt(rec(object), "spec") ?? {}, "template"),
      "spec.template",
    );
  },
};

const cronJob: KindRules = {
  ...defaulted(
    (spec) => {
      setDefault(spec, "concurrencyPolicy", "Allow");
      setDefault(spec, "suspend", false);
      setDefault(spec, "successfulJobsHistoryLimit", 3);
      setDefault(spec, "failedJobsHistoryLimit", 1);
      // kube writes both ObjectMetas of the job template, empty as they may be.
      const jobTemplate = child(spec, "jobTemplate");
      child(jobTemplate, "metadata");
      const template = child(child(jobTemplate, "spec"), "template");
      child(template, "metadata");
      defaultPodSpec(child(template, "spec"), "template");
    },
    () => ({}),
  ),
  validate(object) {
    const spec = recordAt(rec(object), "spec") ?? {};
    const causes: StatusCause[] = [];
    if (typeof spec.schedule !== "string" || spec.schedule.trim() === "") {
      causes.push(field.required("spec.schedule"));
    }
    const jobSpec = recordAt(recordAt(spec, "jobTemplate") ?? {}, "spec") ?? {};
    causes.push(
      ...validateJobTemplate(recordAt(jobSpec, "template"), "spec.jobTemplate.spec.template"),
    );
    return causes;
  },
};

const replicationController: KindRules = {
  orphanByDefault: true,
  ...defaulted(
    (spec, o) => {
      setDefault(spec, "replicas", 1);
      const labels = recordAt(
        recordAt(recordAt(spec, "template") ?? {}, "metadata") ?? {},
        "labels",
      );
      if (labels !== undefined) {
        // An RC without a selector selects its template's labels, and is labelled with them.
        setDefault(spec, "selector", { ...labels });
        const meta = child(o, "metadata");
        if (recordAt(meta, "labels") === undefined) meta.labels = { ...labels };
      }
      defaultPodSpec(templateSpec(spec), "template");
    },
    () => ({ replicas: 0 }),
  ),
  ...validatesTemplate("spec.template.spec", (o) =>
    recordAt(recordAt(o, "spec") ?? {}, "template"),
  ),
};

const podTemplate: KindRules = {
  returnDeletedObject: true,
  defaults(object) {
    defaultPodSpec(child(child(rec(object), "template"), "spec"), "template");
  },
  ...validatesTemplate("template.spec", (o) => recordAt(o, "template")),
};

/** A ControllerRevision is the data it records: kube requires it. */
const controllerRevision: KindRules = {
  validate: (object) =>
    rec(object).data === undefined || rec(object).data === null
      ? [field.required("data", "data is mandatory")]
      : [],
};

/** The kinds' rules, by `group/plural` (`plural` in the core group). */
export const WORKLOAD_KINDS: Readonly<Record<string, KindRules>> = {
  podtemplates: podTemplate,
  replicationcontrollers: replicationController,
  "apps/controllerrevisions": controllerRevision,
  "apps/daemonsets": daemonSet,
  "apps/replicasets": replicaSet,
  "apps/statefulsets": statefulSet,
  "batch/cronjobs": cronJob,
  "batch/jobs": job,
};
