/**
 * The typed client of one resource, optionally bound to a namespace: get, list, listAll,
 * watch, create, update, updateStatus, patch, delete, deleteCollection.
 */
import {
  InvalidOptionError,
  isGone,
  type KubeList,
  type KubeObject,
  type Status,
  type WatchEvent,
} from "../core/index.ts";
import {
  apiVersionOf,
  encodeObject,
  isNamespaced,
  kindMessage,
  type ResourceDefinition,
} from "../resources/index.ts";
import { DecodeError } from "./decode-error.ts";
import { ListDecoder, type ListEnvelope } from "./list-decoder.ts";
import { collectionPath, objectPath, queryString, withQuery } from "./paths.ts";
import { ProtobufListDecoder } from "./protobuf-stream.ts";
import type {
  DeleteCollectionOptions,
  DeleteOptions,
  GetOptions,
  ListAllOptions,
  ListOptions,
  ListResult,
  PatchOptions,
  PatchType,
  WatchOptions,
  WriteOptions,
} from "./request-options.ts";
import { PROTOBUF, type RestClient } from "./rest-client.ts";
import { checkObject, type ExpectedKind } from "./watch-decoder.ts";
import { jsonEvents, protobufEvents } from "./watch-stream.ts";

const PATCH_CONTENT_TYPES: Readonly<Record<PatchType, string>> = {
  json: "application/json-patch+json",
  merge: "application/merge-patch+json",
  strategic: "application/strategic-merge-patch+json",
  apply: "application/apply-patch+yaml",
};

const JSON_BODY = { "content-type": "application/json" };

/** What a protobuf client accepts: protobuf, or JSON where the server has no protobuf for it. */
const PROTOBUF_ACCEPT = `${PROTOBUF}, application/json`;

/** Options for {@link ResourceClient} (`client.resource(...)` makes them). */
export interface ResourceClientOptions<T extends KubeObject> {
  /** The client's request layer. */
  rest: RestClient;
  /** The resource this client reads and writes. */
  definition: ResourceDefinition<T>;
  /** For a namespaced kind, the namespace every call acts in. @default unbound (all namespaces) */
  namespace?: string;
}

/**
 * A typed client for one resource. Namespaced kinds: bound to a namespace, every call acts in
 * it; unbound, `list`/`watch` span all namespaces and object calls take the namespace from the
 * object (`create`, `update`) or need {@link inNamespace}.
 *
 * Errors: an `ApiError` (from the server's Status) for any non-2xx answer; a `DecodeError` for a
 * body that breaks the API contract; a `TransportError` when no answer arrived. Reads are
 * retried by the client's retry policy, writes only when they cannot have taken effect.
 */
export class ResourceClient<T extends KubeObject> {
  readonly definition: ResourceDefinition<T>;
  /** The bound namespace, if any. */
  readonly namespace: string | undefined;
  readonly #rest: RestClient;
  readonly #expect: ExpectedKind;
  readonly #typeMetaPrefix: string;
  /** Accept (and send) protobuf: asked for by the client, and the kind has a message. */
  readonly #protobuf: boolean;

  constructor(options: ResourceClientOptions<T>) {
    const { rest, definition, namespace } = options;
    if (typeof definition?.plural !== "string" || typeof definition.kind !== "string") {
      throw new InvalidOptionError(
        "ResourceClient",
        "definition",
        definition,
        "must be a resource",
      );
    }
    this.#rest = rest;
    this.definition = definition;
    this.namespace = isNamespaced(definition) ? namespace : undefined;
    this.#expect = { kind: definition.kind, apiVersion: apiVersionOf(definition) };
    this.#typeMetaPrefix = `{"kind":${JSON.stringify(definition.kind)},"apiVersion":${JSON.stringify(this.#expect.apiVersion)},`;
    this.#protobuf =
      rest.protobuf && kindMessage(this.#expect.apiVersion, definition.kind) !== undefined;
  }

  /** The Accept header of a read, or of a write's answer. */
  #accept(): Record<string, string> {
    return this.#protobuf ? { accept: PROTOBUF_ACCEPT } : {};
  }

  /** The same client bound to `namespace`. */
  inNamespace(namespace: string): ResourceClient<T> {
    return new ResourceClient({ rest: this.#rest, definition: this.definition, namespace });
  }

  /** Reads one object. NotFound is an `ApiError` (`isNotFound`). */
  get(name: string, options: GetOptions = {}): Promise<T> {
    const path = objectPath(this.definition, this.#namespaceFor(undefined), name);
    const q = queryString({ resourceVersion: options.resourceVersion });
    return this.#rest.json<T>({
      method: "GET",
      path: withQuery(path, q),
      headers: this.#accept(),
      signal: options.signal,
    });
  }

  /**
   * Reads one page of the collection. The body is decoded as it arrives, item by item; items
   * get `kind` and `apiVersion` filled in when the server left them out.
   */
  list(options: ListOptions = {}): Promise<ListResult<T>> {
    const path = withQuery(
      collectionPath(this.definition, this.namespace),
      queryString({
        labelSelector: options.labelSelector,
        fieldSelector: options.fieldSelector,
        resourceVersion: options.resourceVersion,
        resourceVersionMatch: options.resourceVersionMatch,
        limit: options.limit,
        continue: options.continue,
        timeoutSeconds: options.timeoutSeconds,
      }),
    );
    const signal = options.signal;
    return this.#rest.withRetries(true, signal, async () => {
      const res = await this.#rest.send({ method: "GET", path, headers: this.#accept(), signal });
      const items: T[] = [];
      const decoder =
        res.header("content-type") === PROTOBUF
          ? new ProtobufListDecoder((item) => {
              checkObject(item, this.#expect, false, () => JSON.stringify(item));
              items.push(item as T);
            }, this.#rest.maxObjectBytes)
          : new ListDecoder(
              (text) => items.push(this.#decodeItem(text)),
              this.#rest.maxObjectBytes,
            );
      try {
        for await (const chunk of res.body) decoder.push(chunk);
      } finally {
        res.discard();
      }
      const envelope = decoder.end();
      checkListEnvelope(envelope, this.definition.listKind, path);
      const meta = envelope.metadata;
      if (typeof meta?.resourceVersion !== "string" || meta.resourceVersion === "") {
        throw new DecodeError(
          "MissingResourceVersion",
          `GET ${path}: the list has no metadata.resourceVersion`,
        );
      }
      return {
        items,
        resourceVersion: meta.resourceVersion,
        ...(meta.continue ? { continue: meta.continue } : {}),
        ...(typeof meta.remainingItemCount === "number"
          ? { remainingItemCount: meta.remainingItemCount }
          : {}),
      };
    });
  }

  /**
   * Reads the whole collection page by page (client-go's pager). If a continuation expires
   * (410) midway, it falls back to one unpaged list at the original resourceVersion.
   */
  async listAll(options: ListAllOptions = {}): Promise<ListResult<T>> {
    const { pageSize = 500, ...rest } = options;
    const first = await this.list({ ...rest, limit: pageSize });
    const items = first.items;
    let token = first.continue;
    while (token !== undefined) {
      let page: ListResult<T>;
      try {
        page = await this.list({
          labelSelector: rest.labelSelector,
          fieldSelector: rest.fieldSelector,
          signal: rest.signal,
          limit: pageSize,
          continue: token,
        });
      } catch (err) {
        if (!isGone(err)) throw err;
        return this.list(rest);
      }
      for (const item of page.items) items.push(item);
      token = page.continue;
    }
    return { items, resourceVersion: first.resourceVersion };
  }

  /**
   * Watches the collection: an `AsyncIterable` of events, closed by `options.signal` or by
   * leaving the loop. The stream ends when the server closes it; it throws the server's
   * `ApiError` for an ERROR event (410 Expired: list again), a `DecodeError` for a bad line
   * (after every good event before it) and a `TransportError` if the connection breaks.
   * Watches are never retried here: the caller (a Reflector) owns that policy.
   */
  async *watch(options: WatchOptions = {}): AsyncGenerator<WatchEvent<T>, void, undefined> {
    for await (const batch of this.watchBatches(options)) yield* batch;
  }

  /**
   * The same stream as {@link watch}, one array per network read: cheaper per event, which is
   * what informers use.
   */
  async *watchBatches(
    options: WatchOptions = {},
  ): AsyncGenerator<readonly WatchEvent<T>[], void, undefined> {
    yield* await this.openWatch(options);
  }

  /**
   * Opens a watch: resolves once the server has accepted it (rejects with why it did not), with
   * the event batches to iterate. Iterate it to the end, leave the loop or abort the signal:
   * until then the connection stays open.
   */
  async openWatch(
    options: WatchOptions = {},
  ): Promise<AsyncGenerator<readonly WatchEvent<T>[], void, undefined>> {
    const path = withQuery(
      collectionPath(this.definition, this.namespace),
      queryString({
        watch: "true",
        labelSelector: options.labelSelector,
        fieldSelector: options.fieldSelector,
        resourceVersion: options.resourceVersion,
        resourceVersionMatch: options.resourceVersionMatch,
        allowWatchBookmarks: options.allowWatchBookmarks,
        sendInitialEvents: options.sendInitialEvents,
        timeoutSeconds: options.timeoutSeconds,
      }),
    );
    const res = await this.#rest.send({
      method: "GET",
      path,
      headers: this.#accept(),
      signal: options.signal,
      stream: true,
    });
    const stream = { res, path, expect: this.#expect, maxBytes: this.#rest.maxObjectBytes };
    return res.header("content-type")?.startsWith(PROTOBUF)
      ? protobufEvents<T>(stream)
      : jsonEvents<T>(stream);
  }

  /** Creates `obj` (in the bound namespace, or the object's). */
  create(obj: T, options: WriteOptions = {}): Promise<T> {
    const path = collectionPath(this.definition, this.#namespaceFor(obj));
    return this.#write("POST", path, obj, options);
  }

  /** Replaces `obj` (named by `metadata.name`); 409 Conflict if its resourceVersion is stale. */
  update(obj: T, options: WriteOptions = {}): Promise<T> {
    const path = objectPath(this.definition, this.#namespaceFor(obj), nameOf(obj));
    return this.#write("PUT", path, obj, options);
  }

  /** Replaces the status subresource of `obj`. */
  updateStatus(obj: T, options: WriteOptions = {}): Promise<T> {
    const path = objectPath(this.definition, this.#namespaceFor(obj), nameOf(obj), "status");
    return this.#write("PUT", path, obj, options);
  }

  /**
   * Patches object `name`: `json` (RFC 6902 operations), `merge` (RFC 7386), `strategic`, or
   * `apply` (server-side apply; needs `fieldManager`).
   */
  patch(name: string, type: PatchType, body: unknown, options: PatchOptions = {}): Promise<T> {
    const path = objectPath(
      this.definition,
      this.#namespaceFor(undefined),
      name,
      options.subresource,
    );
    return this.#write("PATCH", path, body, options, PATCH_CONTENT_TYPES[type], options.force);
  }

  /**
   * Deletes object `name`. Resolves with the object when its deletion is pending (finalizers,
   * foreground propagation), or with the server's Success Status when it is gone.
   */
  delete(name: string, options: DeleteOptions = {}): Promise<T | Status> {
    const path = objectPath(this.definition, this.#namespaceFor(undefined), name);
    return this.#rest.json<T | Status>({
      method: "DELETE",
      path,
      headers: { ...JSON_BODY, ...this.#accept() },
      body: JSON.stringify(deleteBody(options)),
      signal: options.signal,
    });
  }

  /** Deletes every object matching the selectors (in the bound namespace, or all). */
  deleteCollection(options: DeleteCollectionOptions = {}): Promise<KubeList<T> | Status> {
    const path = withQuery(
      collectionPath(this.definition, this.namespace),
      queryString({ labelSelector: options.labelSelector, fieldSelector: options.fieldSelector }),
    );
    return this.#rest.json({
      method: "DELETE",
      path,
      headers: { ...JSON_BODY, ...this.#accept() },
      body: JSON.stringify(deleteBody(options)),
      signal: options.signal,
    });
  }

  #write(
    method: "POST" | "PUT" | "PATCH",
    path: string,
    body: unknown,
    options: WriteOptions,
    contentType = "application/json",
    force?: boolean,
  ): Promise<T> {
    const q = queryString({
      dryRun: options.dryRun ? "All" : undefined,
      fieldManager: options.fieldManager,
      fieldValidation: options.fieldValidation,
      force,
    });
    // A whole object goes in protobuf where the client speaks it; a patch is always JSON.
    const protobuf = this.#protobuf && method !== "PATCH";
    return this.#rest.json<T>({
      method,
      path: withQuery(path, q),
      headers: { "content-type": protobuf ? PROTOBUF : contentType, ...this.#accept() },
      body: protobuf
        ? encodeObject({ ...this.#expect, ...(body as object) })
        : JSON.stringify(body),
      signal: options.signal,
    });
  }

  /** The namespace of a call: the bound one, else the object's; required for namespaced kinds. */
  #namespaceFor(obj: KubeObject | undefined): string | undefined {
    if (!isNamespaced(this.definition)) return undefined;
    const ns = this.namespace ?? obj?.metadata?.namespace;
    if (ns === undefined || ns === "") {
      throw new TypeError(
        `${this.definition.plural} are namespaced: bind a namespace with client.resource(def, { namespace }) or .inNamespace(ns)${obj === undefined ? "" : ", or set metadata.namespace"}`,
      );
    }
    return ns;
  }

  /**
   * Parses one list item. Items of built-in kinds come without `kind` and `apiVersion`; they
   * are written into the text before parsing (rather than set on the parsed object, which would
   * cost every cached object an extra property store).
   */
  #decodeItem(text: string): T {
    const typed = text.startsWith('{"kind"') || text.startsWith('{"apiVersion"');
    const full = typed ? text : withTypeMeta(this.#typeMetaPrefix, text);
    let obj: unknown;
    try {
      obj = JSON.parse(full);
    } catch (cause) {
      throw new DecodeError("InvalidJSON", "a list item is not valid JSON", text, { cause });
    }
    checkObject(obj, this.#expect, false, () => text);
    return obj as T;
  }
}

/** `{"kind":…,"apiVersion":…,` + the rest of the object `text` (a later `kind` key still wins). */
function withTypeMeta(prefix: string, text: string): string {
  const rest = text.slice(1);
  return /^\s*\}/.test(rest) ? `${prefix.slice(0, -1)}}` : prefix + rest;
}

/**
 * Rejects an answer to a list that is not a list of this resource: without `items` (a single
 * object, a Table, a Status — taken as an empty list, it would empty an informer's cache), or
 * of another list kind. A list may omit `kind`, or say the generic `List`.
 */
function checkListEnvelope(envelope: ListEnvelope, listKind: string, path: string): void {
  // DecodeError cuts the sample to a sane length.
  const sample = () => JSON.stringify(envelope);
  if (!("items" in envelope)) {
    throw new DecodeError("NotAList", `GET ${path}: the answer is not a list (no items)`, sample());
  }
  const kind = envelope.kind;
  if (kind !== undefined && kind !== listKind && kind !== "List") {
    throw new DecodeError(
      "WrongKind",
      `GET ${path}: expected a ${listKind}, got ${String(kind)}`,
      sample(),
    );
  }
}

function nameOf(obj: KubeObject): string {
  const name = obj.metadata?.name;
  if (name === undefined || name === "") throw new TypeError("the object has no metadata.name");
  return name;
}

function deleteBody(options: DeleteOptions): Record<string, unknown> {
  return {
    kind: "DeleteOptions",
    apiVersion: "v1",
    ...(options.propagationPolicy === undefined
      ? {}
      : { propagationPolicy: options.propagationPolicy }),
    ...(options.preconditions === undefined ? {} : { preconditions: options.preconditions }),
    ...(options.gracePeriodSeconds === undefined
      ? {}
      : { gracePeriodSeconds: options.gracePeriodSeconds }),
    ...(options.dryRun ? { dryRun: ["All"] } : {}),
  };
}
