import type { Static, TSchema } from "typebox";
import type { KubeObject, ObjectMeta, StatusCause } from "../core/index.ts";
import type { OpenApiSchema } from "./openapi-schema.ts";
import type { ResourceDefinition, ResourceDefinitionInit } from "./resource-definition.ts";

/** A column `kubectl get` prints for a custom resource (`additionalPrinterColumns`). */
export interface PrinterColumn {
  name: string;
  /** A JSONPath into the object, starting with `.`: `.spec.displayName`. */
  jsonPath: string;
  type: "string" | "integer" | "number" | "boolean" | "date";
  description?: string;
  format?: string;
  /** 0 shows in the default view; higher only with `-o wide`. @default 0 */
  priority?: number;
}

/** The scale subresource: where the replica counts live. */
export interface ScaleSubresource {
  /** @example ".spec.replicas" */
  specReplicasPath: string;
  /** @example ".status.replicas" */
  statusReplicasPath: string;
  /** @example ".status.selector" */
  labelSelectorPath?: string;
}

/** The schema of one version of a custom resource. */
export interface VersionInit<
  Spec extends TSchema = TSchema,
  Status extends TSchema | undefined = TSchema | undefined,
> {
  spec: Spec;
  /** With a status schema the `status` subresource is on (unless `subresources.status` is false). */
  status?: Status;
  printerColumns?: readonly PrinterColumn[];
  subresources?: { status?: boolean; scale?: ScaleSubresource };
  /** Served, but `kubectl` warns; a string is the warning text. @default false */
  deprecated?: boolean | string;
  /** @default true */
  served?: boolean;
}

/** What {@link defineResource} takes: the names of the kind and the schema of its main version. */
export interface DefineResourceInit<
  Spec extends TSchema,
  Status extends TSchema | undefined,
  Others extends Record<string, VersionInit>,
> extends Omit<ResourceDefinitionInit, "scope">,
    VersionInit<Spec, Status> {
  /** @default "Namespaced" */
  scope?: "Namespaced" | "Cluster";
  /**
   * Other versions served beside `version` (which is the storage version), each with its own
   * schema. Objects are stored in the storage version; there is no conversion webhook, so the
   * schemas should be compatible.
   */
  otherVersions?: Others;
}

/** The object type of a custom resource: `spec` as its schema says, `status` optional. */
export interface CustomObject<Spec, Status> extends KubeObject {
  apiVersion: string;
  kind: string;
  metadata: ObjectMeta;
  spec: Spec;
  status?: Status;
}

/** The object type a spec and status schema describe. */
export type CustomObjectOf<Spec extends TSchema, Status extends TSchema | undefined> = CustomObject<
  Static<Spec>,
  Status extends TSchema ? Static<Status> : never
>;

/** What `object()` takes: the object without `apiVersion` and `kind`, which it fills in. */
export type ObjectInit<T extends KubeObject> = Omit<T, "apiVersion" | "kind">;

/**
 * A custom resource kind defined from one schema: a {@link ResourceDefinition} (so clients,
 * informers and listers are typed from it) plus its CRD manifest and client-side validation.
 */
export interface CustomResourceDefinitionOf<
  T extends KubeObject,
  Others extends Record<string, VersionInit> = Record<string, VersionInit>,
> extends ResourceDefinition<T> {
  /** The `openAPIV3Schema` of this version, exactly as it goes into the CRD. */
  readonly schema: OpenApiSchema;
  readonly printerColumns: readonly PrinterColumn[];
  /** True if the `status` subresource is on for this version. */
  readonly statusSubresource: boolean;
  readonly scale: ScaleSubresource | undefined;
  /** True for the version objects are stored in. */
  readonly storage: boolean;
  readonly served: boolean;
  readonly deprecated: boolean | string;
  /** The CRD manifest (apiextensions.k8s.io/v1) with every version. */
  crd(): CrdManifest;
  /** Checks an object against this version's schema; the causes carry field paths (empty: valid). */
  validate(obj: unknown): StatusCause[];
  /**
   * Returns `obj` typed as `T` if it is valid; otherwise throws the 422 Invalid `ApiError` the
   * API server would send.
   */
  parse(obj: unknown): T;
  /** A new object of this kind with `apiVersion` and `kind` filled in. */
  object(init: ObjectInit<T>): T;
  /** The definition of another served version, typed from its schema. */
  at<V extends keyof Others & string>(
    version: V,
  ): CustomResourceDefinitionOf<
    CustomObjectOf<Others[V]["spec"], Others[V]["status"]>,
    Record<string, VersionInit>
  >;
}

/** The object type of a definition: `type User = ResourceOf<typeof User>`. */
export type ResourceOf<D> = D extends ResourceDefinition<infer T> ? T : never;

/** A CRD manifest, as `crd()` returns it and `kubectl apply` takes it. */
export interface CrdManifest {
  apiVersion: "apiextensions.k8s.io/v1";
  kind: "CustomResourceDefinition";
  metadata: { name: string };
  spec: {
    group: string;
    names: {
      kind: string;
      listKind: string;
      plural: string;
      singular: string;
      shortNames?: string[];
      categories?: string[];
    };
    scope: "Namespaced" | "Cluster";
    versions: CrdVersion[];
  };
}

/** One entry of a CRD's `spec.versions`. */
export interface CrdVersion {
  name: string;
  served: boolean;
  storage: boolean;
  deprecated?: boolean;
  deprecationWarning?: string;
  schema: { openAPIV3Schema: OpenApiSchema };
  subresources?: {
    status?: Record<string, never>;
    scale?: ScaleSubresource;
  };
  additionalPrinterColumns?: PrinterColumn[];
}
