import {
  type AuditEvent,
  type AuditOptions,
  type AuditSink,
  MemoryAuditSink,
  type RbacFromAudit,
  type RbacFromAuditOptions,
  type RbacSubject,
  type RecordedRequest,
  rbacFromAudit,
  rbacYaml,
  recordedRequests,
  subjectUsername,
} from "../apiserver/index.ts";

/**
 * Records every request a test server answers, as kube's audit events (level Metadata), so a
 * test can list what a controller did under its identity and print the smallest RBAC that
 * allows it — what `kontroller rbac from-audit` reads from an audit log file, from memory:
 *
 * ```ts
 * const recorder = new RequestRecorder();
 * await using server = await startTestServer({ audit: recorder.audit });
 * // … run the controller with a ServiceAccount's token …
 * const sa = { kind: "ServiceAccount", namespace: "shop", name: "mirror" } as const;
 * console.log(recorder.rbacYaml({ subject: sa, namespaceScoped: true }));
 * ```
 *
 * Embedded server only (kube-apiserver writes its audit log to a file: read it with
 * `parseAuditLog` and `rbacFromAudit`). A request is recorded once it is authenticated, so the
 * rules are complete as soon as the controller's requests have been sent, answered or not.
 */
export class RequestRecorder implements AuditSink {
  readonly #sink = new MemoryAuditSink();

  /** The test server's `audit` option: every request, at level Metadata, into this recorder. */
  get audit(): AuditOptions {
    return { sink: this };
  }

  processEvent(event: AuditEvent): void {
    this.#sink.processEvent(event);
  }

  /** Every audit event so far (two or three a request: RequestReceived, …, ResponseComplete). */
  events(): readonly AuditEvent[] {
    return this.#sink.events();
  }

  /** The first event, so far or to come, that `test` accepts. */
  waitFor(
    test: (event: AuditEvent) => boolean,
    options: { signal?: AbortSignal } = {},
  ): Promise<AuditEvent> {
    return this.#sink.waitFor(test, options);
  }

  /** Forgets what was recorded (say, the test's own set-up requests). */
  clear(): void {
    this.#sink.clear();
  }

  /**
   * The requests recorded, each once, in the order they arrived; only those of `subject` (a
   * username, or a User or ServiceAccount) where one is given.
   */
  requests(subject?: string | RbacSubject): RecordedRequest[] {
    const all = recordedRequests(this.#sink.events());
    if (subject === undefined) return all;
    const username = typeof subject === "string" ? subject : subjectUsername(subject);
    return all.filter((r) => r.username === username);
  }

  /** The smallest Role/ClusterRole (and bindings) that allows the requests recorded. */
  rbac(options: RbacFromAuditOptions = {}): RbacFromAudit {
    return rbacFromAudit(this.#sink.events(), options);
  }

  /** {@link rbac}'s manifests as YAML, as `kontroller rbac from-audit` prints them. */
  rbacYaml(options: RbacFromAuditOptions = {}): string {
    return rbacYaml(this.rbac(options).manifests);
  }
}
