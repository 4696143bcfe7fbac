import { randomUUID } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import { parse as parseYaml } from "yaml";
import { ApiError, type Clock, errorMessage } from "../../core/index.ts";
import type { AccessAttributes, AccessDecision } from "../auth/authorizer.ts";
import type { UserInfo } from "../auth/user.ts";
import { isStorageError } from "../storage/storage-error.ts";
import { microTime } from "./event-json.ts";
import { AuditPolicyChecker, METADATA_POLICY } from "./policy.ts";
import {
  auditUser,
  auditUserAgent,
  objectReference,
  sourceIps,
  withoutManagedFields,
  withRequestObject,
} from "./request-metadata.ts";
import type { AuditSink } from "./sinks.ts";
import type {
  AuditDecision,
  AuditEvent,
  AuditObjectReference,
  AuditPolicy,
  AuditResponseStatus,
  AuditStage,
  AuditUser,
} from "./types.ts";
import { levelAtLeast } from "./types.ts";

/** Options of {@link Auditor}. */
export interface AuditorOptions {
  /** Where events go. */
  readonly sink: AuditSink;
  /** Which requests are recorded, at what level. @default every request at Metadata */
  readonly policy?: AuditPolicy;
  /** Stamps events. */
  readonly clock: Clock;
  /** Makes audit IDs where the client sent none. @default randomUUID */
  readonly newId?: () => string;
}

/** Verbs and subresources whose answers stream (kube's long-running check): they get ResponseStarted. */
const LONG_RUNNING_VERBS = new Set(["watch", "proxy"]);
const LONG_RUNNING_SUBRESOURCES = new Set(["attach", "exec", "proxy", "log", "portforward"]);

/** The audit of the request each response answers (kube keeps it in the request's context). */
const audits = new WeakMap<ServerResponse, RequestAudit>();

/** The audit of the request `res` answers, if the server audits it. */
export function auditOf(res: ServerResponse): RequestAudit | undefined {
  return audits.get(res);
}

/**
 * The server's audit (kube's audit filters): it begins a {@link RequestAudit} for each request,
 * which the pipeline tells what it learns — who, what, the decision, the body, the answer.
 */
export class Auditor {
  readonly #sink: AuditSink;
  readonly #checker: AuditPolicyChecker;
  readonly #clock: Clock;
  readonly #newId: () => string;

  constructor(options: AuditorOptions) {
    this.#sink = options.sink;
    this.#checker = new AuditPolicyChecker(options.policy ?? METADATA_POLICY);
    this.#clock = options.clock;
    this.#newId = options.newId ?? randomUUID;
  }

  /** Starts the sink. */
  async start(): Promise<void> {
    await this.#sink.start?.();
  }

  /** Closes the sink, once the last request is answered. */
  async close(): Promise<void> {
    await this.#sink.close?.();
  }

  /**
   * Begins the audit of a request as it arrives: its time, and its audit ID (the client's
   * `Audit-ID`, else a new one), which the answer carries in `Audit-Id` as kube's does.
   */
  begin(req: IncomingMessage, res: ServerResponse): RequestAudit {
    const given = req.headers["audit-id"];
    const id = typeof given === "string" && given !== "" ? given : this.#newId();
    res.setHeader("Audit-Id", id);
    const audit = new RequestAudit(
      { sink: this.#sink, checker: this.#checker, clock: this.#clock },
      req,
      res,
      id,
    );
    audits.set(res, audit);
    return audit;
  }
}

interface Shared {
  readonly sink: AuditSink;
  readonly checker: AuditPolicyChecker;
  readonly clock: Clock;
}

/**
 * One request's audit. Stages, as kube writes them: RequestReceived once the user is known;
 * ResponseStarted when a long-running answer (a watch, logs) starts; ResponseComplete when the
 * answer has gone out (or the connection closed first); Panic instead of ResponseComplete when
 * serving threw something other than an API error. A request that failed authentication gets
 * only ResponseStarted, with no user, as kube's failed-authentication audit writes it.
 *
 * Invariant: nothing is written before `authenticated()` decides the level, nor after
 * `#done`; each stage is written at most once.
 */
export class RequestAudit {
  readonly #shared: Shared;
  readonly #req: IncomingMessage;
  readonly #res: ServerResponse;
  readonly #id: string;
  readonly #receivedAt: string;
  #decision: AuditDecision | undefined;
  #attributes: AccessAttributes | undefined;
  #user: AuditUser = {};
  #impersonated: AuditUser | undefined;
  #constraint: string | undefined;
  #sourceIps: readonly string[] = [];
  #userAgent: string | undefined;
  #objectRef: AuditObjectReference | undefined;
  #status: AuditResponseStatus | undefined;
  #responseObject: unknown;
  #body: { bytes: Buffer; contentType: string | undefined } | undefined;
  #requestObject: unknown;
  #annotations: Record<string, string> | undefined;
  #started = false;
  #done = false;

  constructor(shared: Shared, req: IncomingMessage, res: ServerResponse, id: string) {
    this.#shared = shared;
    this.#req = req;
    this.#res = res;
    this.#id = id;
    this.#receivedAt = microTime(shared.clock.now());
  }

  /** The request's audit ID. */
  get auditID(): string {
    return this.#id;
  }

  /**
   * Who sent the request (undefined: authentication failed) and what it asks, as kube's
   * RequestInfo says it: the policy decides the level here, and RequestReceived is written.
   */
  authenticated(user: UserInfo | undefined, attributes: AccessAttributes): void {
    if (this.#decision !== undefined) return;
    this.#decision = this.#shared.checker.decide(user, attributes);
    if (this.#decision.level === "None") return;
    this.#attributes = attributes;
    this.#user = auditUser(user);
    this.#sourceIps = sourceIps(this.#req);
    this.#userAgent = auditUserAgent(this.#req);
    this.#objectRef = objectReference(attributes);
    const failedAuthentication = user === undefined;
    const longRunning =
      LONG_RUNNING_VERBS.has(attributes.verb) ||
      (attributes.kind === "resource" && LONG_RUNNING_SUBRESOURCES.has(attributes.subresource));
    if (longRunning || failedAuthentication) this.#watchResponseStart(failedAuthentication);
    // kube writes no RequestReceived nor ResponseComplete for a failed authentication.
    if (failedAuthentication) return;
    this.#emit("RequestReceived");
    this.#res.once("close", () => this.#complete());
  }

  /** The user the request is made as, where the sender impersonates one. */
  impersonated(user: UserInfo, constraint?: string): void {
    if (!this.#active()) return;
    this.#impersonated = auditUser(user);
    this.#constraint = constraint;
  }

  /** The authorizer's decision, as kube's authorization filter annotates it. */
  authorized(decision: AccessDecision): void {
    this.annotate("authorization.k8s.io/decision", decision.allowed ? "allow" : "forbid");
    this.annotate("authorization.k8s.io/reason", decision.reason);
  }

  /** An annotation; a key already set keeps its first value, as kube keeps it. */
  annotate(key: string, value: string): void {
    if (!this.#active()) return;
    this.#annotations ??= {};
    if (!(key in this.#annotations)) this.#annotations[key] = value;
  }

  /** The body a write sent: the object (create, update) or patch (patch) the event records. */
  requestBody(bytes: Buffer, contentType: string | undefined): void {
    if (!this.#active()) return;
    this.#body = { bytes, contentType };
  }

  /**
   * The answer, before it is written: its code, and its body (an object, or its JSON as text or
   * bytes). A Status fills responseStatus; at RequestResponse the body is the responseObject,
   * where it is an API object (it has a kind).
   */
  response(code: number, body: unknown): void {
    if (!this.#active() || this.#res.headersSent) return;
    let object: unknown = body;
    const text = typeof body === "string" || Buffer.isBuffer(body) ? body : undefined;
    const full = levelAtLeast(this.#decision!.level, "RequestResponse");
    if (text !== undefined) {
      const status = startsWith(text, '{"kind":"Status"');
      object = full || status ? parseJson(text) : undefined;
    }
    const o =
      typeof object === "object" && object !== null
        ? (object as Record<string, unknown>)
        : undefined;
    if (o?.kind === "Status") {
      this.#status = {
        metadata: {},
        ...(o.status ? { status: String(o.status) } : {}),
        ...(o.message ? { message: String(o.message) } : {}),
        ...(o.reason ? { reason: String(o.reason) } : {}),
        ...(o.details ? { details: o.details } : {}),
        code,
      };
    } else {
      this.#status = { metadata: {}, code };
    }
    if (full && o !== undefined && typeof o.kind === "string") {
      this.#responseObject = this.#decision!.omitManagedFields ? withoutManagedFields(o) : o;
    }
  }

  /**
   * Serving failed with `err`. Anything but an API error or a storage failure is what kube calls
   * a panic: the Panic stage is written in place of ResponseComplete.
   */
  failed(err: unknown): void {
    if (!this.#active() || err instanceof ApiError || isStorageError(err)) return;
    this.#status = {
      metadata: {},
      status: "Failure",
      message: `APIServer panic'd: ${errorMessage(err)}`,
      reason: "InternalError",
      code: 500,
    };
    this.#readRequestObject();
    this.#emit("Panic");
    this.#done = true;
  }

  #active(): boolean {
    return !this.#done && this.#decision !== undefined && this.#decision.level !== "None";
  }

  /** Writes ResponseStarted when the status line goes out (kube's audit response writer). */
  #watchResponseStart(last: boolean): void {
    const res = this.#res;
    const writeHead = res.writeHead;
    res.writeHead = ((...args: Parameters<typeof writeHead>) => {
      res.writeHead = writeHead;
      if (!this.#started && this.#active()) {
        this.#started = true;
        const code = typeof args[0] === "number" ? args[0] : res.statusCode;
        if (this.#status === undefined || this.#status.code !== code)
          this.#status = { metadata: {}, code };
        this.#emit("ResponseStarted");
        if (last) this.#done = true;
      }
      return writeHead.apply(res, args);
    }) as typeof writeHead;
  }

  #complete(): void {
    if (this.#done) return;
    this.#done = true;
    if (!this.#res.headersSent) {
      this.#status ??= {
        metadata: {},
        status: "Success",
        message: "Connection closed early",
        code: 200,
      };
    } else if (this.#status === undefined || this.#status.code !== this.#res.statusCode) {
      this.#status = { ...(this.#status ?? { metadata: {} }), code: this.#res.statusCode };
    }
    this.#readRequestObject();
    this.#emit("ResponseComplete");
  }

  /** Decodes the body a write sent, once, where it is JSON (or a YAML apply patch). */
  #readRequestObject(): void {
    const body = this.#body;
    if (body === undefined) return;
    this.#body = undefined;
    const verb = this.#attributes?.verb;
    const type = body.contentType ?? "application/json";
    let object: unknown;
    if (/json/i.test(type)) object = parseJson(body.bytes);
    else if (/yaml/i.test(type)) object = parseYamlSafe(body.bytes);
    if (object === undefined) return;
    if (verb !== "patch") this.#objectRef = withRequestObject(this.#objectRef, object);
    if (levelAtLeast(this.#decision!.level, "Request")) {
      this.#requestObject = this.#decision!.omitManagedFields
        ? withoutManagedFields(object)
        : object;
    }
  }

  #emit(stage: AuditStage): void {
    const decision = this.#decision!;
    if (decision.omitStages.includes(stage)) return;
    const a = this.#attributes!;
    const requestURI = this.#req.url ?? "/";
    const event: AuditEvent = {
      kind: "Event",
      apiVersion: "audit.k8s.io/v1",
      level: decision.level,
      auditID: this.#id,
      stage,
      requestURI,
      verb: a.verb,
      user: this.#user,
      ...(this.#impersonated === undefined
        ? {}
        : {
            impersonatedUser: this.#impersonated,
            ...(this.#constraint
              ? { authenticationMetadata: { impersonationConstraint: this.#constraint } }
              : {}),
          }),
      ...(this.#sourceIps.length === 0 ? {} : { sourceIPs: this.#sourceIps }),
      ...(this.#userAgent === undefined ? {} : { userAgent: this.#userAgent }),
      ...(this.#objectRef === undefined ? {} : { objectRef: this.#objectRef }),
      ...(this.#status === undefined ? {} : { responseStatus: this.#status }),
      ...(this.#requestObject === undefined ? {} : { requestObject: this.#requestObject }),
      ...(this.#responseObject === undefined ? {} : { responseObject: this.#responseObject }),
      requestReceivedTimestamp: this.#receivedAt,
      stageTimestamp:
        stage === "RequestReceived" ? this.#receivedAt : microTime(this.#shared.clock.now()),
      ...(this.#annotations === undefined ? {} : { annotations: sortedCopy(this.#annotations) }),
    };
    try {
      this.#shared.sink.processEvent(event);
    } catch {
      // a sink must not throw; one that does loses this event, never the request
    }
  }
}

function sortedCopy(record: Record<string, string>): Record<string, string> {
  return Object.fromEntries(
    Object.keys(record)
      .sort()
      .map((k) => [k, record[k]!]),
  );
}

function startsWith(text: string | Buffer, prefix: string): boolean {
  return typeof text === "string"
    ? text.startsWith(prefix)
    : text.length >= prefix.length && text.toString("latin1", 0, prefix.length) === prefix;
}

function parseJson(text: string | Buffer): unknown {
  try {
    return JSON.parse(typeof text === "string" ? text : text.toString("utf8"));
  } catch {
    return undefined;
  }
}

function parseYamlSafe(bytes: Buffer): unknown {
  try {
    return parseYaml(bytes.toString("utf8"));
  } catch {
    return undefined;
  }
}
