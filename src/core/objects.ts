import type { ListMeta, ObjectMeta } from "kubernetes-types/meta/v1.js";
import type { Status } from "./status.ts";

export type {
  Condition,
  LabelSelector,
  LabelSelectorRequirement,
  ListMeta,
  ManagedFieldsEntry,
  ObjectMeta,
  OwnerReference,
  Time,
} from "kubernetes-types/meta/v1.js";

/**
 * Any Kubernetes object: `apiVersion`, `kind` and `metadata`, plus whatever its kind adds.
 * Built-in and custom kinds refine it (see kontroller/resources).
 */
export interface KubeObject {
  apiVersion?: string;
  kind?: string;
  metadata?: ObjectMeta;
}

/** A list as the API server returns it: `metadata.resourceVersion` is the list's snapshot. */
export interface KubeList<T extends KubeObject = KubeObject> {
  apiVersion?: string;
  kind?: string;
  metadata: ListMeta;
  items: T[];
}

/** Watch event types as the API server sends them. */
export type WatchEventType = "ADDED" | "MODIFIED" | "DELETED" | "BOOKMARK" | "ERROR";

/**
 * A bookmark: an empty object of the watched kind carrying only the resourceVersion the watch
 * has reached (and, at the end of a streaming list, the `k8s.io/initial-events-end` annotation).
 */
export interface Bookmark {
  apiVersion?: string;
  kind?: string;
  metadata: { resourceVersion: string; annotations?: Record<string, string> };
}

/** The annotation on the bookmark that ends the initial events of a streaming list. */
export const INITIAL_EVENTS_END_ANNOTATION = "k8s.io/initial-events-end";

/**
 * One event of a watch stream, as consumers see it. An `ERROR` event on the wire becomes an
 * `ApiError` thrown by the stream, not an event.
 */
export type WatchEvent<T extends KubeObject = KubeObject> =
  | { type: "ADDED" | "MODIFIED" | "DELETED"; object: T }
  | { type: "BOOKMARK"; object: Bookmark };

/** One line of a watch stream on the wire, `ERROR` included. */
export type WireWatchEvent<T extends KubeObject = KubeObject> =
  | WatchEvent<T>
  | { type: "ERROR"; object: Status };
