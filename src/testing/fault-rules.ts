/**
 * What the {@link FaultProxy} of fault-proxy.ts is told to do: the requests its rules see, the
 * rules that fail or delay them, how watches are cut, and the answers it makes up itself.
 */
import type { ServerResponse } from "node:http";
import type { Clock } from "../core/index.ts";

/** A request, as fault rules see it. */
export interface ProxiedRequest {
  readonly method: string;
  readonly path: string;
  readonly query: URLSearchParams;
  /** True for `?watch=true` (or `1`). */
  readonly watch: boolean;
  /** True for a streaming list (`sendInitialEvents=true`). */
  readonly watchList: boolean;
}

/** A rule that answers matching requests itself instead of forwarding them. */
export interface FailRule {
  /** The HTTP status to answer with. */
  status: number;
  /** Sets `Retry-After` (and the Status' `details.retryAfterSeconds`). */
  retryAfterSeconds?: number;
  /** The body; by default a Status for the code. A 200 with `""` is a stream that ends at once. */
  body?: string;
  /** How many requests to fail. @default Infinity */
  count?: number;
  /** Which requests. @default all */
  match?: (req: ProxiedRequest) => boolean;
}

/** A rule that holds matching requests before forwarding them. */
export interface DelayRule {
  ms: number;
  /** @default Infinity */
  count?: number;
  /** @default all */
  match?: (req: ProxiedRequest) => boolean;
}

/** How {@link FaultProxy.cutWatches} ends open watches. */
export type CutMode =
  /** A clean end of the response, as a server closing a watch at its timeout. */
  | "end"
  /** The connection is destroyed (TCP reset). */
  | "reset"
  /** Half a line is sent, then the response ends. */
  | "truncate";

/** Options of {@link startFaultProxy}. */
export interface FaultProxyOptions {
  /** The server to forward to, e.g. `server.url`. */
  target: string;
  /**
   * For an `https://` target: the CA (PEM) it is verified by, and the client certificate and
   * key the proxy presents to it (so requests through the proxy are that certificate's user,
   * as `kubectl proxy` makes them the kubeconfig's). @default none (an `http://` target)
   */
  tls?: { ca: string; cert?: string; key?: string };
  /** Port to listen on. @default 0 (a free one) */
  port?: number;
  /** Runs the delays of {@link DelayRule}s. @default realClock */
  clock?: Clock;
}

/** A rule with how many more requests it applies to. */
export interface Counted<R> {
  rule: R;
  left: number;
}

const REASONS: Record<number, string> = {
  400: "BadRequest",
  403: "Forbidden",
  404: "NotFound",
  410: "Expired",
  422: "Invalid",
  429: "TooManyRequests",
  500: "InternalError",
  503: "ServiceUnavailable",
  504: "Timeout",
};

export function take<R extends { match?: (req: ProxiedRequest) => boolean }>(
  rules: Counted<R>[],
  req: ProxiedRequest,
): R | undefined {
  for (const c of rules) {
    if (c.left > 0 && (c.rule.match === undefined || c.rule.match(req))) {
      c.left--;
      return c.rule;
    }
  }
  return undefined;
}

export function status(code: number, message: string, retryAfterSeconds?: number) {
  return {
    kind: "Status",
    apiVersion: "v1",
    metadata: {},
    status: "Failure",
    message,
    reason: REASONS[code] ?? "Unknown",
    ...(retryAfterSeconds === undefined ? {} : { details: { retryAfterSeconds } }),
    code,
  };
}

export function answer(res: ServerResponse, rule: FailRule): void {
  const headers: Record<string, string> = { "content-type": "application/json" };
  if (rule.retryAfterSeconds !== undefined) headers["retry-after"] = String(rule.retryAfterSeconds);
  const body =
    rule.body ??
    JSON.stringify(
      status(rule.status, `injected fault: HTTP ${rule.status}`, rule.retryAfterSeconds),
    );
  res.writeHead(rule.status, headers);
  res.end(body);
}
