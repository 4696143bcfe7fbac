/**
 * `createClient()` and the `Client`: where requests go (a URL, a kubeconfig, or any
 * `Transport`), how reads are retried, and typed resource clients.
 */
import type { KubeConfig } from "@kubernetes/client-node";
import { type Clock, checkNumber, InvalidOptionError, type KubeObject } from "../core/index.ts";
import {
  builtinResources,
  type ConfigMap,
  type CustomResourceDefinition,
  type Deployment,
  type Event,
  type Lease,
  type Namespace,
  type Node,
  type Pod,
  type ResourceDefinition,
  type Secret,
  type Service,
  type ServiceAccount,
} from "../resources/index.ts";
import { HttpTransport, type HttpTransportOptions } from "./http-transport.ts";
import { kubeConfigTransport, loadKubeConfig } from "./kubeconfig.ts";
import { ResourceClient } from "./resource-client.ts";
import { RestClient } from "./rest-client.ts";
import { type RetryOptions, resolveRetryOptions } from "./retry.ts";
import {
  type Transport,
  TransportError,
  type TransportRequest,
  type TransportResponse,
} from "./transport.ts";

/** Options for {@link createClient}. Give at most one of `url`, `kubeconfig` and `transport`. */
export interface ClientOptions {
  /** The server's URL, with no credentials (an embedded or test server, `kubectl proxy`). */
  url?: string;
  /** With `url`: a bearer token sent as `Authorization: Bearer TOKEN` with every request. */
  token?: string;
  /**
   * With an `https://` url: the CA certificate(s) (PEM) the server's certificate is verified by
   * (an embedded server's `certificates.ca.certificatePem`). @default the system's CAs
   */
  ca?: string | Uint8Array;
  /** With `url`: a client certificate (PEM) to authenticate with, and its `key`. @default none */
  cert?: string | Uint8Array;
  /** With `url` and `cert`: the client certificate's private key (PEM). */
  key?: string | Uint8Array;
  /** A loaded `KubeConfig`, or the path of a kubeconfig file. */
  kubeconfig?: KubeConfig | string;
  /** The kubeconfig context to use. @default the kubeconfig's current-context */
  context?: string;
  /** Any transport (in-process server, recording fake). */
  transport?: Transport;
  /** Waits between retries run on this clock. @default realClock */
  clock?: Clock;
  /** Retries of reads (and of writes that cannot have taken effect). */
  retry?: RetryOptions;
  /**
   * The largest watch line or list item accepted, in bytes.
   * @default 16777216 (16 MiB)
   */
  maxObjectBytes?: number;
  /**
   * Where watch streams are received, with `url` or `kubeconfig` (see
   * `HttpTransportOptions.streamThread`).
   * @default "main"
   */
  streamThread?: "worker" | "main";
  /**
   * How objects travel: `"json"`, or `"protobuf"` — Kubernetes protobuf for the built-in kinds
   * (reads, lists and watches decoded as the bytes arrive; creates and updates sent in it; errors
   * read from it), as client-go's protobuf clients do. Custom resources, patches and delete
   * options stay JSON, as in kube.
   * @default "json"
   */
  contentType?: "json" | "protobuf";
}

/**
 * Options for {@link Client}: a transport, and the request settings of {@link ClientOptions}.
 * `createClient` makes the transport from a URL or a kubeconfig.
 */
export interface ClientConstructorOptions
  extends Omit<
    ClientOptions,
    "url" | "token" | "ca" | "cert" | "key" | "kubeconfig" | "context" | "transport"
  > {
  /** How requests reach the server. */
  transport: Transport;
}

/** Kinds `client.resource("ConfigMap")` accepts, with their types. */
export interface BuiltinKinds {
  ConfigMap: ConfigMap;
  CustomResourceDefinition: CustomResourceDefinition;
  Deployment: Deployment;
  Event: Event;
  Lease: Lease;
  Namespace: Namespace;
  Node: Node;
  Pod: Pod;
  Secret: Secret;
  Service: Service;
  ServiceAccount: ServiceAccount;
}

/** Options of {@link Client.resource}. */
export interface ResourceOptions {
  /** Bind the client to this namespace (namespaced kinds only). */
  namespace?: string;
}

/**
 * A connection to one API server. Cheap to create: nothing connects until the first call.
 * Close it (or `await using` it) to release its connections.
 *
 * @example
 * ```ts
 * await using client = createClient({ url: server.url });
 * const cms = client.resource(configMaps, { namespace: "default" });
 * await cms.create({ metadata: { name: "a" }, data: { k: "v" } });
 * ```
 */
export class Client {
  readonly transport: Transport;
  readonly #rest: RestClient;

  constructor(options: ClientConstructorOptions) {
    const transport = options?.transport;
    if (typeof transport?.request !== "function") {
      throw new InvalidOptionError("Client", "transport", transport, "must be a Transport");
    }
    this.transport = transport;
    this.#rest = new RestClient(transport, {
      ...(options.clock === undefined ? {} : { clock: options.clock }),
      retry: resolveRetryOptions(options.retry),
      maxObjectBytes: checkNumber(
        "Client",
        "maxObjectBytes",
        options.maxObjectBytes ?? 16 * 1024 * 1024,
        {
          min: 1024,
          integer: true,
        },
      ),
      protobuf: contentTypeOf(options.contentType) === "protobuf",
    });
  }

  /** A typed client for a resource definition (`configMaps`, or one from `defineResource`). */
  resource<T extends KubeObject>(
    definition: ResourceDefinition<T>,
    options?: ResourceOptions,
  ): ResourceClient<T>;
  /** A typed client for a built-in kind by name. */
  resource<K extends keyof BuiltinKinds>(
    kind: K,
    options?: ResourceOptions,
  ): ResourceClient<BuiltinKinds[K]>;
  resource(
    kindOrDefinition: string | ResourceDefinition,
    options: ResourceOptions = {},
  ): ResourceClient<KubeObject> {
    const def = typeof kindOrDefinition === "string" ? builtin(kindOrDefinition) : kindOrDefinition;
    return new ResourceClient({
      rest: this.#rest,
      definition: def,
      ...(options.namespace === undefined ? {} : { namespace: options.namespace }),
    });
  }

  /**
   * Readies the transport for streams (with `streamThread: "worker"`, the HTTP transport's
   * stream worker): watches opened once it resolves are received off the main thread. A
   * controller calls it before starting its informers (the Manager does); with nothing to ready
   * it resolves at once. Never rejects.
   */
  async prepare(): Promise<void> {
    await this.transport.prepare?.();
  }

  /**
   * Graceful shutdown of the transport: new requests are refused, those in flight (open
   * watches included: stop informers first) finish, then connections are released. Idempotent.
   */
  close(): Promise<void> {
    return this.transport.close();
  }

  /**
   * Abrupt shutdown of the transport: requests in flight (open watches) fail with `reason`, new
   * ones are refused, connections are released. Idempotent.
   */
  destroy(reason?: unknown): Promise<void> {
    return this.transport.destroy(reason);
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }
}

function builtin(kind: string): ResourceDefinition {
  const def = builtinResources.find((d) => d.kind === kind && (kind !== "Event" || d.group === ""));
  if (def === undefined) {
    const known = [...new Set(builtinResources.map((d) => d.kind))].join(", ");
    throw new TypeError(
      `unknown built-in kind ${JSON.stringify(kind)}; known: ${known}; pass a ResourceDefinition for other kinds`,
    );
  }
  return def;
}

/**
 * Creates a client. With no options it uses the default kubeconfig (`$KUBECONFIG`,
 * `~/.kube/config`, or the in-cluster service account); `{ url }` talks to a server with no
 * credentials; `{ kubeconfig }` uses a given kubeconfig or file; `{ transport }` any transport.
 * Kubeconfig problems (no file, no current context) surface on the first call.
 */
export function createClient(options: ClientOptions = {}): Client {
  const given = [options.url, options.kubeconfig, options.transport].filter((v) => v !== undefined);
  if (given.length > 1) {
    throw new InvalidOptionError(
      "createClient",
      "url",
      options.url,
      "must not be given with kubeconfig or transport (give at most one of the three)",
    );
  }
  for (const name of ["token", "ca", "cert", "key"] as const) {
    if (options[name] !== undefined && options.url === undefined) {
      throw new InvalidOptionError(
        "createClient",
        name,
        `(a ${name === "token" ? "token" : "PEM"})`,
        "goes with url (a kubeconfig carries its own)",
      );
    }
  }
  if ((options.cert === undefined) !== (options.key === undefined)) {
    throw new InvalidOptionError(
      "createClient",
      options.cert === undefined ? "key" : "cert",
      "(a PEM)",
      "needs its pair: give both cert and key",
    );
  }
  let transport: Transport;
  const http = options.streamThread === undefined ? {} : { streamThread: options.streamThread };
  if (options.transport !== undefined) transport = options.transport;
  else if (options.url !== undefined) {
    const tls = {
      ...(options.ca === undefined ? {} : { ca: options.ca }),
      ...(options.cert === undefined ? {} : { cert: options.cert }),
      ...(options.key === undefined ? {} : { key: options.key }),
    };
    transport = urlTransport(options.url, options.token, { ...http, ...tls });
  } else if (options.kubeconfig !== undefined && typeof options.kubeconfig !== "string") {
    const kc = options.kubeconfig;
    if (options.context !== undefined) kc.setCurrentContext(options.context);
    transport = kubeConfigTransport(kc, http);
  } else {
    const path = options.kubeconfig as string | undefined;
    transport = lazyTransport(async () =>
      kubeConfigTransport(await loadKubeConfig(path, options.context), http),
    );
  }
  return new Client({ ...options, transport });
}

/**
 * A transport made on first use (so that loading a kubeconfig can be asynchronous). Once closed
 * or destroyed it makes none: requests are refused, and a transport already made is shut down.
 */
function lazyTransport(make: () => Promise<Transport>): Transport {
  let made: Promise<Transport> | undefined;
  let closed = false;
  const shutDown = async (how: (t: Transport) => Promise<void>): Promise<void> => {
    closed = true;
    const t = await made?.catch(() => undefined);
    if (t !== undefined) await how(t);
  };
  return {
    request(req: TransportRequest): Promise<TransportResponse> {
      if (closed && made === undefined) {
        const why = "the transport is closed and takes no new requests; create a new client";
        return Promise.reject(new TransportError(req.method, req.path, "ERR_CLOSED", why));
      }
      made ??= make();
      return made.then((t) => t.request(req));
    },
    async prepare(): Promise<void> {
      if (closed) return;
      made ??= make();
      const t = await made.catch(() => undefined);
      await t?.prepare?.();
    },
    close: () => shutDown((t) => t.close()),
    destroy: (reason) => shutDown((t) => t.destroy(reason)),
  };
}

/**
 * The transport for a URL, with a bearer token on every request when one is given, and the TLS
 * material given.
 */
function urlTransport(
  url: string,
  token: string | undefined,
  options: Pick<HttpTransportOptions, "streamThread" | "ca" | "cert" | "key">,
): Transport {
  if (token === undefined) return new HttpTransport({ url, ...options });
  const authorization = `Bearer ${token}`;
  return new HttpTransport({ url, ...options, headers: () => ({ authorization }) });
}

/** The `contentType` option, checked. */
function contentTypeOf(value: unknown): "json" | "protobuf" {
  if (value === undefined || value === "json" || value === "protobuf") return value ?? "json";
  throw new InvalidOptionError("Client", "contentType", value, 'must be "json" or "protobuf"');
}
