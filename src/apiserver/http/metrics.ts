import type { IncomingMessage, ServerResponse } from "node:http";
import { Counter, Gauge, Histogram, Registry } from "prom-client";
import type { Clock } from "../../core/index.ts";
import type { ResourceTarget } from "./request-info.ts";

/*
 * kube-apiserver's main series, with its names, help, labels and buckets, in a prom-client
 * registry of the server's own (served at /metrics): requests by verb and outcome, their
 * latency, the long-running ones (watches) in flight, watch events sent, and objects stored.
 */

/** kube's request latency buckets (seconds). */
const LATENCY_BUCKETS = [
  0.005, 0.025, 0.05, 0.1, 0.2, 0.4, 0.6, 0.8, 1.0, 1.25, 1.5, 2, 3, 4, 5, 6, 8, 10, 15, 20, 30, 45,
  60,
];

/** Subresources kube reports as CONNECT (they stream to a kubelet). */
const CONNECT_SUBRESOURCES = new Set(["attach", "exec", "portforward", "proxy"]);

const REQUEST_LABELS = [
  "verb",
  "dry_run",
  "group",
  "version",
  "resource",
  "subresource",
  "scope",
  "component",
] as const;

/** Objects stored, by group-resource (`pods`, `deployments.apps`). */
export type ObjectCounts = () => Iterable<readonly [resource: string, count: number]>;

/** The request's labels of kube's request series. */
type RequestLabels = Record<(typeof REQUEST_LABELS)[number], string>;

/** The children of the request series for one set of labels. */
interface Series {
  readonly labels: RequestLabels;
  /** By response code. */
  readonly requests: Map<number, { inc(): void }>;
  readonly latency: { observe(seconds: number): void };
  readonly longRunning: { inc(): void; dec(): void };
}

/** The API server's metrics. */
export class ApiServerMetrics {
  readonly registry = new Registry();
  readonly #clock: Clock;
  readonly #requests: Counter<string>;
  readonly #latency: Histogram<string>;
  readonly #longRunning: Gauge<string>;
  readonly #watchEvents: Counter<string>;
  /** The series of each set of request labels seen (they are few: verbs × resources × scopes). */
  readonly #series = new Map<string, Series>();

  constructor(clock: Clock, objects: ObjectCounts) {
    this.#clock = clock;
    const registers = [this.registry];
    this.#requests = new Counter({
      name: "apiserver_request_total",
      help: "Counter of apiserver requests broken out for each verb, dry run value, group, version, resource, scope, component, and HTTP response code.",
      labelNames: [...REQUEST_LABELS, "code", "system_client"],
      registers,
    });
    this.#latency = new Histogram({
      name: "apiserver_request_duration_seconds",
      help: "Response latency distribution in seconds for each verb, dry run value, group, version, resource, subresource, scope and component.",
      labelNames: [...REQUEST_LABELS],
      buckets: LATENCY_BUCKETS,
      registers,
    });
    this.#longRunning = new Gauge({
      name: "apiserver_longrunning_requests",
      help: "Gauge of all active long-running apiserver requests broken out by verb, group, version, resource, scope and component. Not all requests are tracked this way.",
      labelNames: ["verb", "group", "version", "resource", "subresource", "scope", "component"],
      registers,
    });
    this.#watchEvents = new Counter({
      name: "apiserver_watch_events_total",
      help: "Number of events sent in watch clients",
      labelNames: ["group", "version", "resource"],
      registers,
    });
    new Gauge({
      name: "apiserver_storage_objects",
      help: "[STABLE] Number of stored objects at the time of last check split by kind. In case of a fetching error, the value will be -1.",
      labelNames: ["resource"],
      registers,
      collect() {
        this.reset();
        for (const [resource, count] of objects()) this.set({ resource }, count);
      },
    });
  }

  /**
   * Measures a request from now until it is answered (or its client goes): counted by outcome
   * and timed; a watch is also long-running while it lasts.
   */
  observe(
    req: IncomingMessage,
    res: ServerResponse,
    target: ResourceTarget | undefined,
    query: URLSearchParams,
  ): void {
    const start = this.#clock.now();
    const series = this.#seriesOf(requestLabels(req, target, query));
    const watching = series.labels.verb === "WATCH";
    if (watching) series.longRunning.inc();
    res.once("close", () => {
      if (watching) series.longRunning.dec();
      let count = series.requests.get(res.statusCode);
      if (count === undefined) {
        count = this.#requests.labels({
          ...series.labels,
          code: String(res.statusCode),
          system_client: "",
        });
        series.requests.set(res.statusCode, count);
      }
      count.inc();
      series.latency.observe((this.#clock.now() - start) / 1000);
    });
  }

  /**
   * The series of one set of request labels, kept: prom-client hashes a labels object on every
   * update, which at thousands of requests per second is work worth saving.
   */
  #seriesOf(labels: RequestLabels): Series {
    const key = `${labels.verb}\u001f${labels.dry_run}\u001f${labels.group}\u001f${labels.version}\u001f${labels.resource}\u001f${labels.subresource}\u001f${labels.scope}\u001f${labels.component}`;
    let series = this.#series.get(key);
    if (series === undefined) {
      const { dry_run: _, ...longRunning } = labels;
      series = {
        labels,
        requests: new Map(),
        latency: this.#latency.labels(labels),
        longRunning: this.#longRunning.labels(longRunning),
      };
      this.#series.set(key, series);
    }
    return series;
  }

  /** Counts watch events sent for a resource. */
  watchEvents(group: string, version: string, resource: string, count: number): void {
    this.#watchEvents.inc({ group, version, resource }, count);
  }

  /** Answers `GET /metrics` in Prometheus' text format. */
  async serve(res: ServerResponse): Promise<void> {
    const body = await this.registry.metrics();
    res.writeHead(200, { "Content-Type": this.registry.contentType });
    res.end(body);
  }
}

/** kube's labels of a request: its canonical verb, what it is on, and how wide. */
function requestLabels(
  req: IncomingMessage,
  target: ResourceTarget | undefined,
  query: URLSearchParams,
): RequestLabels {
  const method = (req.method ?? "GET").toUpperCase();
  const dryRun = query.getAll("dryRun").join(",");
  if (target === undefined) {
    const verb = method === "HEAD" ? "GET" : method;
    return {
      verb,
      dry_run: dryRun,
      group: "",
      version: "",
      resource: "",
      subresource: "",
      scope: "",
      component: "apiserver",
    };
  }
  const watch = query.get("watch") === "true" || query.get("watch") === "1";
  let verb: string;
  if (CONNECT_SUBRESOURCES.has(target.subresource)) verb = "CONNECT";
  else if (method === "GET" || method === "HEAD")
    verb = watch ? "WATCH" : target.name !== "" ? "GET" : "LIST";
  else if (method === "PATCH" && req.headers["content-type"]?.startsWith("application/apply-patch"))
    verb = "APPLY";
  else if (method === "DELETE" && target.name === "") verb = "DELETECOLLECTION";
  else verb = method;
  const scope =
    target.name !== "" || method === "POST"
      ? "resource"
      : target.namespace !== ""
        ? "namespace"
        : "cluster";
  return {
    verb,
    dry_run: dryRun,
    group: target.group,
    version: target.version,
    resource: target.resource,
    subresource: target.subresource,
    scope,
    component: "apiserver",
  };
}
