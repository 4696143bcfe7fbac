import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { checkNumber, type MetricsProvider } from "../core/index.ts";

/** A named check: `undefined` when it passes, else why not. */
export type Check = () => string | undefined;

/** Options for {@link HealthServer}. */
export interface HealthServerOptions {
  /** Port to listen on; 0 picks a free one. */
  port: number;
  /**
   * Address to bind. Probes and scrapes come from outside the pod, so all interfaces by default.
   * @default "0.0.0.0"
   */
  host?: string;
  /**
   * Served at `/metrics` when it can expose what it collected (as `PrometheusMetrics` can).
   * @default nothing at `/metrics` (404)
   */
  metrics?: Pick<MetricsProvider, "expose">;
  /** `/healthz` (and `/livez`) answer 200 when every check passes, 500 otherwise. */
  liveness?: Record<string, Check>;
  /** `/readyz` answers 200 when every check passes, 503 otherwise. */
  readiness?: Record<string, Check>;
}

/**
 * The manager's HTTP endpoint: `/metrics` (Prometheus text format), `/healthz`, `/livez` and
 * `/readyz` (plain text, one line per check with `?verbose`, like kube's). Nothing listens until
 * {@link listen}; {@link close} stops gracefully and {@link destroy} at once, both idempotent.
 */
export class HealthServer {
  readonly #o: HealthServerOptions;
  #server: Server | undefined;
  #closing: Promise<void> | undefined;

  constructor(options: HealthServerOptions) {
    checkNumber("HealthServer", "port", options.port, { min: 0, max: 65535, integer: true });
    this.#o = options;
  }

  /** Starts listening; resolves with the URL. */
  async listen(): Promise<string> {
    const server = createServer((req, res) => {
      const send = (code: number, type: string, body: string) => {
        // Answered during close(): the connection closes with it instead of idling on.
        if (this.#closing !== undefined) res.shouldKeepAlive = false;
        res.writeHead(code, { "Content-Type": type });
        res.end(body);
      };
      void this.#handle(req.method ?? "GET", req.url ?? "/").then(
        ({ code, type, body }) => send(code, type, body),
        (err: unknown) => send(500, "text/plain", `internal error: ${String(err)}\n`),
      );
    });
    this.#server = server;
    const host = this.#o.host ?? "0.0.0.0";
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(this.#o.port, host, () => {
        server.off("error", reject);
        resolve();
      });
    });
    const { port } = server.address() as AddressInfo;
    return `http://${host === "0.0.0.0" ? "127.0.0.1" : host}:${port}`;
  }

  async #handle(
    method: string,
    rawUrl: string,
  ): Promise<{ code: number; type: string; body: string }> {
    const url = new URL(rawUrl, "http://x");
    if (method !== "GET" && method !== "HEAD")
      return { code: 405, type: "text/plain", body: "method not allowed\n" };
    switch (url.pathname) {
      case "/metrics": {
        const exposed = await this.#o.metrics?.expose?.();
        if (exposed === undefined) break;
        return { code: 200, type: exposed.contentType, body: exposed.body };
      }
      case "/healthz":
      case "/livez":
        return report(this.#o.liveness ?? {}, 500, url.searchParams.has("verbose"));
      case "/readyz":
        return report(this.#o.readiness ?? {}, 503, url.searchParams.has("verbose"));
    }
    return { code: 404, type: "text/plain", body: `${url.pathname} not found\n` };
  }

  /**
   * Stops listening and closes idle connections; resolves once the requests in flight are
   * answered and their connections closed. Idempotent.
   */
  close(): Promise<void> {
    const server = this.#server;
    if (server === undefined) return Promise.resolve();
    this.#closing ??= new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeIdleConnections();
    });
    return this.#closing;
  }

  /** As {@link close}, but cuts the connections of requests in flight. Idempotent. */
  destroy(): Promise<void> {
    this.#server?.closeAllConnections();
    return this.close();
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }
}

function report(checks: Record<string, Check>, failCode: number, verbose: boolean) {
  const lines: string[] = [];
  let ok = true;
  for (const [name, check] of Object.entries(checks)) {
    let problem: string | undefined;
    try {
      problem = check();
    } catch (err) {
      problem = `check threw: ${String(err)}`;
    }
    if (problem !== undefined) ok = false;
    lines.push(problem === undefined ? `[+]${name} ok` : `[-]${name} failed: ${problem}`);
  }
  const body = ok && !verbose ? "ok\n" : `${lines.join("\n")}\n${ok ? "ok" : "failed"}\n`;
  return { code: ok ? 200 : failCode, type: "text/plain; charset=utf-8", body };
}
