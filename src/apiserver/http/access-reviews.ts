import { errors, type KubeObject, type StatusCause } from "../../core/index.ts";
import type { AccessAttributes, AccessDecision } from "../auth/authorizer.ts";
import type { UserInfo } from "../auth/user.ts";
import { field } from "../registry/field-errors.ts";
import { type GoType, goBool, goMap, goString, goStrings, goStruct } from "./typed-body.ts";
import {
  type CreateTarget,
  readCreateBody,
  sendCreated,
  type UnstoredHandler,
} from "./unstored-create.ts";

/*
 * authorization.k8s.io/v1: SelfSubjectAccessReview, SubjectAccessReview,
 * LocalSubjectAccessReview and SelfSubjectRulesReview, answered as kube-apiserver answers them
 * (validation, wording, the review sent back with its status) by the server's authorizer.
 */

const GROUP = "authorization.k8s.io";
const API_VERSION = `${GROUP}/v1`;

type Json = Record<string, unknown>;

const selectorRequirement = (kind: "Label" | "Field") =>
  goStruct(`v1.${kind}SelectorRequirement`, {
    key: goString,
    operator: goString,
    values: goStrings,
  });

const selectorAttributes = (kind: "Label" | "Field") =>
  goStruct(`v1.${kind}SelectorAttributes`, {
    rawSelector: goString,
    requirements: {
      kind: "list",
      go: `[]v1.${kind}SelectorRequirement`,
      of: selectorRequirement(kind),
    },
  });

const resourceAttributes = goStruct("v1.ResourceAttributes", {
  namespace: goString,
  verb: goString,
  group: goString,
  version: goString,
  resource: goString,
  subresource: goString,
  name: goString,
  fieldSelector: selectorAttributes("Field"),
  labelSelector: selectorAttributes("Label"),
});

const nonResourceAttributes = goStruct("v1.NonResourceAttributes", {
  path: goString,
  verb: goString,
});

const selfSpec = goStruct("v1.SelfSubjectAccessReviewSpec", {
  resourceAttributes,
  nonResourceAttributes,
});

const subjectSpec = goStruct("v1.SubjectAccessReviewSpec", {
  resourceAttributes,
  nonResourceAttributes,
  user: goString,
  groups: goStrings,
  extra: goMap({ kind: "list", go: "v1.ExtraValue", of: goString }),
  uid: goString,
});

const accessStatus: GoType = goStruct("v1.SubjectAccessReviewStatus", {
  allowed: goBool,
  denied: goBool,
  reason: goString,
  evaluationError: goString,
});

function target(kind: string, spec: GoType): CreateTarget {
  return {
    kind,
    version: "v1",
    apiVersion: API_VERSION,
    fields: { spec, status: accessStatus },
  };
}

const SELF_SUBJECT_ACCESS_REVIEW = target("SelfSubjectAccessReview", selfSpec);
const SUBJECT_ACCESS_REVIEW = target("SubjectAccessReview", subjectSpec);
const LOCAL_SUBJECT_ACCESS_REVIEW = target("LocalSubjectAccessReview", subjectSpec);
const SELF_SUBJECT_RULES_REVIEW: CreateTarget = {
  kind: "SelfSubjectRulesReview",
  version: "v1",
  apiVersion: API_VERSION,
  fields: {
    spec: goStruct("v1.SelfSubjectRulesReviewSpec", { namespace: goString }),
    status: { kind: "any", go: "v1.SubjectRulesReviewStatus" },
  },
};

/** A review's 422: kube names the kind it could not read from the internal object, "". */
function invalid(causes: StatusCause[]): never {
  const e = errors.invalid("", GROUP, "", causes);
  delete e.status.details?.kind;
  throw e;
}

function rec(value: unknown): Json | undefined {
  return typeof value === "object" && value !== null && !Array.isArray(value)
    ? (value as Json)
    : undefined;
}

/** NonResourceAttributes as kube prints the internal value in a field error. */
function goNonResource(a: Json): { Path: string; Verb: string } {
  return { Path: String(a.path ?? ""), Verb: String(a.verb ?? "") };
}

/** A selector's checks of kube's `validate{Field,Label}SelectorAttributes`. */
function selectorCauses(selector: Json | undefined, path: string): StatusCause[] {
  if (selector === undefined) return [];
  const raw = typeof selector.rawSelector === "string" ? selector.rawSelector : "";
  const requirements = Array.isArray(selector.requirements) ? selector.requirements : [];
  const causes: StatusCause[] = [];
  if (raw !== "" && requirements.length > 0) {
    causes.push(
      field.invalid(
        `${path}.rawSelector`,
        raw,
        "may not specified at the same time as requirements",
      ),
    );
  }
  if (raw === "" && requirements.length === 0) {
    causes.push(
      field.required(
        `${path}.requirements`,
        `when ${path} is specified, requirements or rawSelector is required`,
      ),
    );
  }
  for (const [i, r] of requirements.entries()) {
    const key = rec(r)?.key;
    if (typeof key !== "string" || key === "") {
      causes.push(field.required(`${path}.requirements[${i}].key`, "must be specified"));
    }
  }
  return causes;
}

/** The checks common to a spec with resource or non-resource attributes. */
function attributeCauses(spec: Json, subject: boolean): StatusCause[] {
  const resource = rec(spec.resourceAttributes);
  const nonResource = rec(spec.nonResourceAttributes);
  const causes: StatusCause[] = [];
  if (resource !== undefined && nonResource !== undefined) {
    causes.push(
      field.invalid(
        "spec.nonResourceAttributes",
        goNonResource(nonResource),
        "cannot be specified in combination with resourceAttributes",
      ),
    );
  }
  if (resource === undefined && nonResource === undefined) {
    causes.push(
      field.invalid(
        "spec.resourceAttributes",
        undefined,
        "exactly one of nonResourceAttributes or resourceAttributes must be specified",
      ),
    );
  }
  const groups = Array.isArray(spec.groups) ? spec.groups : [];
  if (subject && !spec.user && groups.length === 0) {
    causes.push(
      field.invalid(
        "spec.user",
        spec.user ?? "",
        "at least one of user or group must be specified",
      ),
    );
  }
  if (resource !== undefined) {
    causes.push(
      ...selectorCauses(rec(resource.fieldSelector), "spec.resourceAttributes.fieldSelector"),
      ...selectorCauses(rec(resource.labelSelector), "spec.resourceAttributes.labelSelector"),
    );
  }
  return causes;
}

/** `metadata` must be empty but for managedFields (and, where allowed, the namespace). */
function metadataCauses(object: KubeObject, keep: string[], detail: string): StatusCause[] {
  const meta = (object.metadata ?? {}) as Json;
  const extra = Object.keys(meta).filter((k) => k !== "managedFields" && !keep.includes(k));
  if (extra.length === 0) return [];
  return [
    {
      reason: "FieldValueInvalid",
      field: "metadata",
      message: `Invalid value: ${JSON.stringify(meta)}: ${detail}`,
    },
  ];
}

/** What a spec asks about, for the authorizer. */
function attributesOf(spec: Json): AccessAttributes {
  const resource = rec(spec.resourceAttributes);
  if (resource !== undefined) {
    const s = (k: string) => (typeof resource[k] === "string" ? (resource[k] as string) : "");
    return {
      kind: "resource",
      verb: s("verb"),
      namespace: s("namespace"),
      group: s("group"),
      version: s("version") || "*",
      resource: s("resource"),
      subresource: s("subresource"),
      name: s("name"),
    };
  }
  const nonResource = rec(spec.nonResourceAttributes) ?? {};
  return {
    kind: "non-resource",
    verb: String(nonResource.verb ?? ""),
    path: String(nonResource.path ?? ""),
  };
}

/** The user a SubjectAccessReview asks about. */
function subjectOf(spec: Json): UserInfo {
  const extra = rec(spec.extra) as Record<string, string[]> | undefined;
  return {
    username: typeof spec.user === "string" ? spec.user : "",
    ...(typeof spec.uid === "string" && spec.uid !== "" ? { uid: spec.uid } : {}),
    groups: Array.isArray(spec.groups) ? (spec.groups as string[]) : [],
    ...(extra ? { extra } : {}),
  };
}

/** A SubjectAccessReviewStatus, its false and empty fields left out as kube's encoding does. */
function accessStatusOf(d: AccessDecision): Json {
  return {
    allowed: d.allowed,
    ...(d.denied ? { denied: true } : {}),
    ...(d.reason ? { reason: d.reason } : {}),
  };
}

/** POST selfsubjectaccessreviews: may the requester do this? */
export const selfSubjectAccessReview: UnstoredHandler = async (u) => {
  const target = SELF_SUBJECT_ACCESS_REVIEW;
  const { object, warnings } = await readCreateBody(u, target);
  const spec = rec(object.spec) ?? {};
  const causes = [...attributeCauses(spec, false), ...metadataCauses(object, [], "must be empty")];
  if (causes.length > 0) invalid(causes);
  const decision = u.ctx.auth.authorizer.authorize(u.user, attributesOf(spec));
  sendCreated(u, target, { ...object, status: accessStatusOf(decision) }, warnings);
};

/** POST subjectaccessreviews: may this user do this? */
export const subjectAccessReview: UnstoredHandler = async (u) => {
  const target = SUBJECT_ACCESS_REVIEW;
  const { object, warnings } = await readCreateBody(u, target);
  const spec = rec(object.spec) ?? {};
  const causes = [...attributeCauses(spec, true), ...metadataCauses(object, [], "must be empty")];
  if (causes.length > 0) invalid(causes);
  const decision = u.ctx.auth.authorizer.authorize(subjectOf(spec), attributesOf(spec));
  sendCreated(u, target, { ...object, status: accessStatusOf(decision) }, warnings);
};

/** POST namespaces/{ns}/localsubjectaccessreviews: may this user do this in the namespace? */
export const localSubjectAccessReview: UnstoredHandler = async (u) => {
  const target = LOCAL_SUBJECT_ACCESS_REVIEW;
  const { object, warnings } = await readCreateBody(u, target);
  const spec = rec(object.spec) ?? {};
  const namespace = object.metadata?.namespace ?? "";
  const causes = [
    ...attributeCauses(spec, true),
    ...metadataCauses(object, ["namespace"], "must be empty except for namespace"),
  ];
  const resource = rec(spec.resourceAttributes);
  if (resource !== undefined && (resource.namespace ?? "") !== namespace) {
    causes.push(
      field.invalid(
        "spec.resourceAttributes.namespace",
        resource.namespace ?? "",
        "must match metadata.namespace",
      ),
    );
  }
  const nonResource = rec(spec.nonResourceAttributes);
  if (nonResource !== undefined) {
    causes.push(
      field.invalid(
        "spec.nonResourceAttributes",
        goNonResource(nonResource),
        "disallowed on this kind of request",
      ),
    );
  }
  if (causes.length > 0) invalid(causes);
  const decision = u.ctx.auth.authorizer.authorize(subjectOf(spec), attributesOf(spec));
  sendCreated(u, target, { ...object, status: accessStatusOf(decision) }, warnings);
};

/**
 * POST selfsubjectrulesreviews: what may the requester do in `spec.namespace`? Answered with a
 * new review (no metadata, an empty spec), as kube does.
 */
export const selfSubjectRulesReview: UnstoredHandler = async (u) => {
  const { object, warnings } = await readCreateBody(u, SELF_SUBJECT_RULES_REVIEW);
  const namespace = rec(object.spec)?.namespace;
  if (typeof namespace !== "string" || namespace === "") {
    throw errors.badRequest("no namespace on request");
  }
  const rules = u.ctx.auth.authorizer.rulesFor(u.user, namespace);
  sendCreated(
    u,
    SELF_SUBJECT_RULES_REVIEW,
    {
      apiVersion: API_VERSION,
      kind: "SelfSubjectRulesReview",
      metadata: {},
      spec: {},
      status: {
        resourceRules: rules.resourceRules.map((r) => ({
          verbs: [...r.verbs],
          apiGroups: [...r.apiGroups],
          resources: [...r.resources],
          ...(r.resourceNames?.length ? { resourceNames: [...r.resourceNames] } : {}),
        })),
        nonResourceRules: rules.nonResourceRules.map((r) => ({
          verbs: [...r.verbs],
          nonResourceURLs: [...r.nonResourceURLs],
        })),
        incomplete: rules.incomplete,
        ...(rules.evaluationError === undefined ? {} : { evaluationError: rules.evaluationError }),
      },
    },
    warnings,
  );
};
