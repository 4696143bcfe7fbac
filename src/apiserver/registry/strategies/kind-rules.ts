import type { KubeObject } from "../../../core/index.ts";
import type { Strategy } from "../strategy.ts";
import { arrayAt, child, type Json, rec } from "./util.ts";

/**
 * The part of a built-in kind's strategy beyond the generic one (see `genericStrategy`): its
 * scheme defaults, what kube's registry sets on create and update, its validation, whether a
 * DELETE answers with the object and whether it orphans dependents by default.
 */
export type KindRules = Pick<
  Strategy,
  | "defaults"
  | "prepareForCreate"
  | "prepareForUpdate"
  | "validate"
  | "validateCreate"
  | "validateUpdate"
  | "returnDeletedObject"
  | "orphanByDefault"
  | "resetFields"
  | "internalMetadata"
  | "prepareSubresource"
  | "nameIsGenerateName"
>;

/** Each element of the list at `key` that is an object (a list of structs, as Go decodes it). */
export function eachAt(object: Json, key: string): Json[] {
  return (arrayAt(object, key) ?? []).filter(
    (v): v is Json => typeof v === "object" && v !== null && !Array.isArray(v),
  );
}

/** The first status kube's registry gives a created object: `status()` replaces any sent. */
export function createdStatus(status: () => Json): Pick<KindRules, "prepareForCreate"> {
  return {
    prepareForCreate(object: KubeObject) {
      rec(object).status = status();
    },
  };
}

/** `spec` of an object, created where absent (kube's decoding writes every struct). */
export const specOf = (object: KubeObject): Json => child(rec(object), "spec");
