import type { IncomingMessage, ServerResponse } from "node:http";
import type { Clock } from "../../core/index.ts";
import type { RequestAuth } from "../auth/request-auth.ts";
import type { UserInfo } from "../auth/user.ts";
import type { FieldManagers } from "../managedfields/field-managers.ts";
import type { Registry, ServedResource } from "../registry/registry.ts";

/*
 * The HTTP layer's vocabulary, shared by the router, the verb handlers and the encoders. It
 * imports no module of the HTTP layer, so none can make an import cycle through it.
 */

/** What the resource handlers need from the server. */
export interface ResourceContext {
  readonly registry: Registry;
  /** Field management of every write (managedFields, server-side apply). */
  readonly fields: FieldManagers;
  readonly clock: Clock;
  /** kube's --min-request-timeout (s): default watch length is 1–2× this. */
  readonly minRequestTimeoutSeconds: number;
  /** Who requests are from and what they may do; the service account tokens. */
  readonly auth: RequestAuth;
  /** The server's metrics: watch events are counted as they are sent. */
  readonly metrics: {
    watchEvents(group: string, version: string, resource: string, count: number): void;
  };
}

/** A resource request, parsed from the path. */
export interface ResourceRequest {
  readonly group: string;
  readonly version: string;
  readonly namespace: string;
  readonly namespaced: boolean;
  readonly resource: string;
  readonly name: string;
  readonly subresource: string;
}

/** The verbs of a resource request, as kube names them (its RequestInfo). */
export type Verb =
  | "get"
  | "list"
  | "watch"
  | "create"
  | "update"
  | "patch"
  | "delete"
  | "deletecollection";

/** One request to a served resource, resolved: what a verb handler works on. */
export interface VerbRequest {
  readonly ctx: ResourceContext;
  readonly req: IncomingMessage;
  readonly res: ServerResponse;
  readonly r: ResourceRequest;
  readonly query: URLSearchParams;
  readonly served: ServedResource;
  readonly method: string;
  /** What the request is on, for 405 answers: `pods/status`, `the collection of pods`. */
  readonly what: string;
  /** The warnings of the request (a deprecated version's, unknown fields'), sent with the answer. */
  readonly warnings: string[];
  /** Who the request is from. */
  readonly user: UserInfo;
}

/** Serves one verb. */
export type VerbHandler = (v: VerbRequest) => Promise<void>;
