import type { KubeObject } from "../../core/index.ts";
import type { WriteTransform } from "./types.ts";

/**
 * How objects of one served version convert to and from the stored form: the stored apiVersion
 * (another version's, for a resource served at several), and the conversions when the two
 * differ in more than apiVersion (events.k8s.io/v1 Events stored as v1 Events).
 */
export interface VersionConversion {
  /** The served apiVersion. */
  readonly apiVersion: string;
  /** The served kind. */
  readonly kind: string;
  /** @default apiVersion */
  readonly storageApiVersion?: string;
  /** A stored object → this version. @default only apiVersion changes */
  readonly fromStorage?: (object: KubeObject) => KubeObject;
  /** An object of this version → the stored form. @default only apiVersion and kind change */
  readonly toStorage?: (object: KubeObject) => KubeObject;
}

/** A request object in the served version → the stored form (apiVersion and kind set). */
export function toStoredForm(c: VersionConversion, body: KubeObject): KubeObject {
  const object = c.toStorage ? c.toStorage(body) : body;
  const { apiVersion: _a, kind, ...rest } = object;
  return {
    apiVersion: c.storageApiVersion ?? c.apiVersion,
    kind: c.toStorage ? kind : c.kind,
    ...rest,
  };
}

/** A stored object → the served version (the same object when nothing changes). */
export function toServedForm(c: VersionConversion, object: KubeObject): KubeObject {
  if (c.fromStorage) return c.fromStorage(object);
  if (object.apiVersion === c.apiVersion) return object;
  return { ...object, apiVersion: c.apiVersion };
}

/**
 * Runs `transform` on `object` (stored form) in the served version's terms: the stored forms
 * are converted for it, and the managedFields it sets are copied back.
 */
export function transformInServedForm(
  c: VersionConversion,
  transform: WriteTransform,
  stored: KubeObject | undefined,
  object: KubeObject,
  subresource: string | undefined,
): void {
  const from = c.fromStorage;
  const next = from ? from(object) : object;
  transform(stored === undefined ? undefined : from ? from(stored) : stored, next, subresource);
  if (next === object) return;
  object.metadata ??= {};
  const meta = object.metadata as Record<string, unknown>;
  const entries = next.metadata?.managedFields;
  if (entries === undefined) delete meta.managedFields;
  else meta.managedFields = entries;
}
