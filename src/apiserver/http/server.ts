import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { createServer as createHttpsServer, type Server as HttpsServer } from "node:https";
import type { AddressInfo } from "node:net";
import {
  type CancelTimer,
  type Clock,
  checkNumber,
  errors,
  InvalidOptionError,
  realClock,
} from "../../core/index.ts";
import { Auditor, auditOf } from "../audit/request-audit.ts";
import { type AuthorizationMode, rbacAuthorization } from "../auth/authorization.ts";
import { ensureBootstrapPolicy } from "../auth/rbac-bootstrap.ts";
import { RbacCache } from "../auth/rbac-cache.ts";
import { requestAuth } from "../auth/request-auth.ts";
import { readTokenFile } from "../auth/token-file.ts";
import { CrdController } from "../crd/crd-controller.ts";
import { FieldManagers } from "../managedfields/field-managers.ts";
import { Registry, type ServedResource } from "../registry/registry.ts";
import { MemoryStorage } from "../storage/memory-storage.ts";
import type { Storage } from "../storage/storage.ts";
import type { ServingPki } from "../tls/cert-dir.ts";
import { type ServingTls, type ServingTlsOptions, servingTls } from "../tls/serving.ts";
import type { WatchCacheStats } from "../watchcache/watch-cache.ts";
import { discoveredResources } from "./discovered.ts";
import { type DiscoverySource, versionInfo } from "./discovery.ts";
import { type DiscoveryDocument, sendDiscovery } from "./discovery-documents.ts";
import { ApiServerMetrics } from "./metrics.ts";
import { OpenApiService } from "./openapi-service.ts";
import { authorizeRequest, requestAttributes } from "./request-attributes.ts";
import { parsePath } from "./request-info.ts";
import { handleResource, type ResourceContext } from "./resource-handler.ts";
import { sendError, sendJson } from "./respond.ts";
import {
  type ApiServerOptions,
  auditOption,
  authorizationOption,
  serviceRanges,
  tlsOption,
} from "./server-options.ts";

export type { ApiServerOptions } from "./server-options.ts";

/**
 * The embedded Kubernetes-compatible API server. The constructor only checks options;
 * `listen()` starts the watch caches, creates the system namespaces, writes kube's bootstrap
 * RBAC policy (and, under RBAC, starts following the RBAC objects) and binds the port;
 * `close()` stops gracefully and `destroy()` at once (both idempotent).
 */
export class ApiServer {
  readonly #host: string;
  readonly #port: number;
  readonly #token: string | undefined;
  readonly #tokenAuthFile: string | undefined;
  readonly #anonymousAuth: boolean | undefined;
  readonly #tlsOptions: ServingTlsOptions | undefined;
  #tls: ServingTls | undefined;
  readonly #authorization: AuthorizationMode;
  /** Records kube's audit events, where the server audits. */
  readonly #auditor: Auditor | undefined;
  /** The RBAC objects requests are authorized by, under RBAC. */
  #rbac: RbacCache | undefined;
  readonly #storage: Storage;
  readonly #ownsStorage: boolean;
  readonly #clock: Clock;
  readonly #minRequestTimeoutSeconds: number;
  readonly #compactionIntervalMs: number;
  readonly #registry: Registry;
  readonly #fields: FieldManagers;
  readonly #crds: CrdController;
  readonly #openapi: OpenApiService;
  readonly #metrics: ApiServerMetrics;
  #http: Server | HttpsServer | undefined;
  #url: string | undefined;
  #closing: Promise<void> | undefined;
  #cancelCompaction: CancelTimer | undefined;
  /** Requests received and not yet answered (watches included); `#drained` runs when it is 0. */
  #inFlight = 0;
  #drained: (() => void) | undefined;

  constructor(options: ApiServerOptions = {}) {
    const owner = "ApiServer";
    this.#host = options.host ?? "127.0.0.1";
    this.#port = checkNumber(owner, "port", options.port ?? 0, {
      min: 0,
      max: 65535,
      integer: true,
    });
    if (options.token !== undefined && (options.token === "" || /\s/.test(options.token))) {
      throw new InvalidOptionError(
        owner,
        "token",
        options.token,
        "must be a non-empty string without whitespace",
      );
    }
    this.#token = options.token;
    const file = options.tokenAuthFile;
    if (file !== undefined && (typeof file !== "string" || file === "")) {
      throw new InvalidOptionError(owner, "tokenAuthFile", file, "must be the path of a file");
    }
    this.#tokenAuthFile = file;
    if (options.anonymousAuth !== undefined && typeof options.anonymousAuth !== "boolean") {
      throw new InvalidOptionError(
        owner,
        "anonymousAuth",
        options.anonymousAuth,
        "must be a boolean",
      );
    }
    this.#anonymousAuth = options.anonymousAuth;
    this.#tlsOptions = tlsOption(owner, options.tls, this.#host);
    this.#authorization = authorizationOption(owner, options.authorization);
    this.#storage = options.storage ?? new MemoryStorage();
    this.#ownsStorage = options.storage === undefined;
    this.#clock = options.clock ?? realClock;
    const audit = auditOption(owner, options.audit);
    this.#auditor = audit && new Auditor({ ...audit, clock: this.#clock });
    this.#minRequestTimeoutSeconds = checkNumber(
      owner,
      "minRequestTimeoutSeconds",
      options.minRequestTimeoutSeconds ?? 1800,
      { above: 0 },
    );
    this.#compactionIntervalMs = checkNumber(
      owner,
      "compactionIntervalMs",
      options.compactionIntervalMs ?? 300_000,
      { min: 0 },
    );
    this.#registry = new Registry({
      storage: this.#storage,
      clock: this.#clock,
      ...(options.watchCache ? { watchCache: options.watchCache } : {}),
      ...serviceRanges(owner, options),
    });
    this.#fields = new FieldManagers({ registry: this.#registry, clock: this.#clock });
    this.#crds = new CrdController(this.#registry, this.#fields);
    this.#openapi = new OpenApiService(this.#registry, this.#clock);
    this.#metrics = new ApiServerMetrics(this.#clock, () => storedObjects(this.#registry));
  }

  /**
   * Over HTTPS, once listening: the CA (what clients trust; it mints client certificates too),
   * the serving certificate, and what `listen()` wrote to the cert dir. Undefined over HTTP.
   */
  get certificates(): ServingPki | undefined {
    return this.#tls?.pki;
  }

  /** `http://host:port` (or `https://`) once listening. */
  get url(): string {
    if (this.#url === undefined) throw new Error("ApiServer: not listening; call listen() first");
    return this.#url;
  }

  /** The registry of served resources (stats, fault injection). */
  get registry(): Registry {
    return this.#registry;
  }

  /** Starts serving. Resolves with the URL once requests are accepted. */
  async listen(): Promise<string> {
    if (this.#url !== undefined) return this.#url;
    // On the real clock whatever the server's: TLS peers check validity on the wall clock.
    if (this.#tlsOptions !== undefined) {
      this.#tls ??= await servingTls({ ...this.#tlsOptions, bindAddress: this.#host });
    }
    const ownWrite = (served: ServedResource) => this.#fields.managed(served, {});
    await this.#auditor?.start();
    await this.#registry.start(ownWrite);
    await this.#crds.start();
    await ensureBootstrapPolicy(this.#registry, ownWrite);
    if (this.#authorization === "RBAC") {
      this.#rbac = new RbacCache();
      this.#rbac.start(this.#registry);
    }
    const staticTokens =
      this.#tokenAuthFile === undefined
        ? undefined
        : (await readTokenFile(this.#tokenAuthFile)).users;
    const ctx: ResourceContext = {
      registry: this.#registry,
      fields: this.#fields,
      clock: this.#clock,
      minRequestTimeoutSeconds: this.#minRequestTimeoutSeconds,
      metrics: this.#metrics,
      auth: requestAuth({
        ...(this.#token === undefined ? {} : { token: this.#token }),
        ...(staticTokens === undefined ? {} : { staticTokens }),
        ...(this.#anonymousAuth === undefined ? {} : { anonymous: this.#anonymousAuth }),
        ...(this.#tls === undefined ? {} : { certificates: this.#tls.authenticator }),
        ...(this.#rbac === undefined
          ? {}
          : { authorization: rbacAuthorization(this.#rbac.objects) }),
        clock: this.#clock,
        lookup: (resource, namespace, name) => {
          const served = this.#registry.lookup("", "v1", resource);
          if (served === undefined) throw errors.notFound({ group: "", resource }, name);
          return served.store.get(namespace, name);
        },
      }),
    };
    const handler = (req: IncomingMessage, res: ServerResponse) => {
      this.#inFlight++;
      res.once("close", () => {
        if (--this.#inFlight === 0) this.#drained?.();
      });
      const audit = this.#auditor?.begin(req, res);
      this.#handle(ctx, req, res).catch((err: unknown) => {
        audit?.failed(err);
        sendError(res, err);
      });
    };
    const tls = this.#tls;
    const server =
      tls === undefined ? createServer(handler) : createHttpsServer(tls.serverOptions, handler);
    server.keepAliveTimeout = 65_000;
    // Watches last as long as they need; bodies are bounded by size, not time.
    server.requestTimeout = 0;
    this.#http = server;
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(this.#port, this.#host, () => {
        server.off("error", reject);
        resolve();
      });
    });
    const { port } = server.address() as AddressInfo;
    const host = this.#host.includes(":") ? `[${this.#host}]` : this.#host;
    this.#url = `${tls === undefined ? "http" : "https"}://${host}:${port}`;
    this.#scheduleCompaction(await this.#storage.currentRevision());
    return this.#url;
  }

  /** Per-resource watch cache counters, by storage prefix. */
  stats(): Record<string, WatchCacheStats> {
    return Object.fromEntries(
      [...this.#registry.caches()].map(([prefix, c]) => [prefix, c.stats()]),
    );
  }

  /** Closes every open watch (clients reconnect from their last resourceVersion). */
  cutWatches(): void {
    for (const cache of this.#registry.caches().values()) cache.terminateAllWatchers();
  }

  /**
   * Makes every watch cache forget its recorded events (fault injection): a watch resumed from
   * a resourceVersion older than the current one gets 410 Expired, as after a long disconnect.
   * Lists and new watches are unaffected.
   */
  dropWatchHistory(): void {
    for (const cache of this.#registry.caches().values()) cache.dropHistory();
  }

  /**
   * Stops gracefully: accepts no new connection and closes idle ones, ends every watch (clients
   * resume elsewhere from their last resourceVersion), waits for the other requests in flight to
   * be answered, then closes the remaining connections (a request pipelined behind an answered
   * one is not read), the caches and (if owned) storage. Idempotent.
   */
  close(): Promise<void> {
    return this.#stop();
  }

  /**
   * Stops at once: as {@link close}, but the connections of requests in flight are cut (their
   * clients see the connection reset). Also ends a `close()` that is still waiting. Idempotent.
   */
  destroy(): Promise<void> {
    this.#http?.closeAllConnections();
    return this.#stop();
  }

  #stop(): Promise<void> {
    this.#closing ??= (async () => {
      this.#cancelCompaction?.();
      const server = this.#http;
      if (server !== undefined) {
        const closed = new Promise<void>((resolve) => server.close(() => resolve()));
        this.cutWatches();
        if (this.#inFlight > 0) {
          await new Promise<void>((resolve) => {
            this.#drained = resolve;
          });
        }
        server.closeAllConnections();
        await closed;
      }
      await this.#crds.close();
      await this.#rbac?.close();
      await this.#auditor?.close();
      await this.#registry.close();
      if (this.#ownsStorage) await this.#storage.close();
    })();
    return this.#closing;
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }

  /** Compacts every interval to the revision seen at the previous tick (kube's compactor). */
  #scheduleCompaction(previous: number): void {
    if (this.#compactionIntervalMs === 0) return;
    this.#cancelCompaction = this.#clock.setTimer(this.#compactionIntervalMs, () => {
      void (async () => {
        try {
          const current = await this.#storage.currentRevision();
          await this.#storage.compact(previous);
          this.#scheduleCompaction(current);
        } catch {
          // storage closed: stop compacting
        }
      })();
    });
  }

  async #handle(ctx: ResourceContext, req: IncomingMessage, res: ServerResponse): Promise<void> {
    const user = await ctx.auth.authenticator.authenticateRequest(
      req.headers.authorization,
      req.socket,
    );
    const raw = req.url ?? "/";
    const q = raw.indexOf("?");
    const url = {
      pathname: q < 0 ? raw : raw.slice(0, q),
      searchParams: new URLSearchParams(q < 0 ? "" : raw.slice(q + 1)),
    };
    const method = req.method ?? "GET";
    // Audited as kube's filters order it: after authentication, before impersonation (which
    // tells audit.impersonated) and authorization (which tells audit.authorized).
    const audit = auditOf(res);
    audit?.authenticated(user, requestAttributes(method, url.pathname, url.searchParams));
    if (user === undefined) throw errors.unauthorized();
    // Who the request acts as: kube checks impersonation after authentication, before
    // authorization, which then authorizes the impersonated user.
    const impersonated = ctx.auth.impersonation.impersonation(user, req.headersDistinct, () =>
      requestAttributes(method, url.pathname, url.searchParams),
    );
    if (impersonated !== undefined) audit?.impersonated(impersonated.user, impersonated.constraint);
    const acting = impersonated?.user ?? user;
    authorizeRequest(ctx.auth.authorizer, acting, method, url.pathname, url.searchParams, audit);
    const target = parsePath(url.pathname);
    this.#metrics.observe(
      req,
      res,
      target.kind === "resource" ? target : undefined,
      url.searchParams,
    );
    if (target.kind === "resource") {
      return handleResource(ctx, req, res, target, url.searchParams, acting);
    }
    if (method !== "GET" && method !== "HEAD") {
      throw errors.methodNotAllowed(
        `the server does not allow this method on the requested resource: ${method} ${url.pathname}`,
      );
    }
    const reg: DiscoverySource = { all: () => discoveredResources(this.#registry) };
    const discovery = (doc: DiscoveryDocument) => sendDiscovery(res, req.headers.accept, doc, reg);
    switch (target.kind) {
      case "health":
        res.writeHead(200, { "Content-Type": "text/plain; charset=utf-8" });
        res.end("ok");
        return;
      case "version":
        return sendJson(res, 200, versionInfo());
      case "legacy-versions":
        return discovery({ kind: target.kind, host: req.headers.host ?? new URL(this.url).host });
      case "groups":
        return discovery({ kind: "groups" });
      case "group":
        return discovery({ kind: "group", group: target.group });
      case "resources":
        return discovery({ kind: "resources", group: target.group, version: target.version });
      case "metrics":
        return this.#metrics.serve(res);
      case "openapi":
        if (!(await this.#openapi.serve(req, res, target.path, url.searchParams))) throw notFound();
        return;
      case "root":
        return sendJson(res, 200, {
          paths: [
            "/api",
            "/api/v1",
            "/apis",
            "/healthz",
            "/livez",
            "/metrics",
            "/openapi/v2",
            "/openapi/v3",
            "/readyz",
            "/version",
          ],
        });
      default:
        throw notFound();
    }
  }
}

/**
 * How many objects each stored resource holds, by group-resource, as kube's
 * apiserver_storage_objects counts them: once per storage prefix, whatever the versions served.
 */
function* storedObjects(registry: Registry): Iterable<readonly [string, number]> {
  const seen = new Set<string>();
  for (const served of registry.all()) {
    const prefix = served.store.prefix;
    if (seen.has(prefix)) continue;
    seen.add(prefix);
    const { group, plural } = served.def;
    yield [group === "" ? plural : `${plural}.${group}`, served.store.cache.stats().objects];
  }
}

function notFound() {
  const e = errors.notFound({ group: "", resource: "" }, "");
  e.status.message = "the server could not find the requested resource";
  e.status.details = {};
  return e;
}
