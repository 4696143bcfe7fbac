/**
 * Fault injection for any API server: an HTTP proxy that forwards requests and, on command,
 * cuts, truncates or stalls watches, injects raw lines into them, fails or delays requests
 * (500, 429 with Retry-After, a 422 for streaming lists, a body of your choice) and refuses
 * connections as a server that is down does. The server itself stays clean: compaction and
 * restarts use what the server exposes.
 *
 * @example
 * ```ts
 * await using server = await startTestServer();
 * await using proxy = await startFaultProxy({ target: server.url });
 * const client = createClient({ url: proxy.url });
 * proxy.failRequests({ status: 429, retryAfterSeconds: 1, count: 1, match: (r) => r.watch });
 * ```
 */
import { once } from "node:events";
import {
  Agent,
  createServer,
  request as httpRequest,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from "node:http";
import { Agent as HttpsAgent, request as httpsRequest } from "node:https";
import type { AddressInfo, Socket } from "node:net";
import { type Clock, checkNumber, InvalidOptionError, realClock } from "../core/index.ts";
import {
  answer,
  type Counted,
  type CutMode,
  type DelayRule,
  type FailRule,
  type FaultProxyOptions,
  type ProxiedRequest,
  status,
  take,
} from "./fault-rules.ts";
import {
  countNewlines,
  endWatchStream,
  HOLD_BLOCK_BYTES,
  type OpenWatch,
  passChunk,
} from "./fault-watch.ts";

/**
 * A fault-injecting HTTP proxy. Everything it does not fail or delay is forwarded unchanged.
 * Started by {@link startFaultProxy}; close it (or `await using` it) when done.
 */
export class FaultProxy implements AsyncDisposable {
  readonly #target: URL;
  readonly #clock: Clock;
  readonly #agent: Agent;
  /** Connects to the target: TLS with the `tls` option's CA and certificate, or plain. */
  readonly #connect: typeof httpRequest;
  readonly #tls: FaultProxyOptions["tls"];
  readonly #sockets = new Set<Socket>();
  readonly #watches = new Set<OpenWatch>();
  #fail: Counted<FailRule>[] = [];
  #delay: Counted<DelayRule>[] = [];
  #stallNew = false;
  /** Callers of {@link whenHeld}, each with the line count it waits for. */
  #heldWaiters: { lines: number; resolve: () => void }[] = [];
  #endWatchListAfter: number | undefined;
  #ignoreWatchLists = false;
  #server: Server;
  #port: number;
  #closing: Promise<void> | undefined;
  /** Requests received and not yet answered, watches included; `#drained` runs at 0. */
  #inFlight = 0;
  #drained: (() => void) | undefined;
  /** The delays under way, each a function that ends its wait at once (for close()). */
  readonly #waits = new Set<() => void>();
  /** Every request received, in order. */
  readonly requests: ProxiedRequest[] = [];

  /** Listens on nothing until {@link listen}; {@link startFaultProxy} does both. */
  constructor(options: FaultProxyOptions) {
    try {
      this.#target = new URL(options.target);
    } catch {
      throw new InvalidOptionError("FaultProxy", "target", options.target, "must be a URL");
    }
    const tls = options.tls;
    this.#tls = tls;
    this.#agent =
      tls === undefined
        ? new Agent({ keepAlive: true })
        : new HttpsAgent({ keepAlive: true, ...tls });
    this.#connect = tls === undefined ? httpRequest : httpsRequest;
    this.#clock = options.clock ?? realClock;
    this.#port = checkNumber("FaultProxy", "port", options.port ?? 0, {
      min: 0,
      max: 65535,
      integer: true,
    });
    this.#server = this.#makeServer();
  }

  /** Starts listening; resolves with the URL. */
  async listen(): Promise<string> {
    if (!this.#server.listening) {
      this.#server.listen(this.#port, "127.0.0.1");
      await once(this.#server, "listening");
      this.#port = (this.#server.address() as AddressInfo).port;
    }
    return this.url;
  }

  /** `http://127.0.0.1:PORT`. */
  get url(): string {
    return `http://127.0.0.1:${this.#port}`;
  }

  /**
   * Client connections open to the proxy (keep-alive ones included): what a client that leaks
   * a connection per watch would pile up.
   */
  get connections(): number {
    return this.#sockets.size;
  }

  /** Watches open through the proxy. */
  get openWatches(): number {
    return this.#watches.size;
  }

  /** Ends every open watch: cleanly, by reset, or mid-line. */
  cutWatches(mode: CutMode = "end"): void {
    for (const w of [...this.#watches]) this.#endWatch(w, mode);
  }

  /**
   * Open watches stop forwarding anything (open but silent), and so do watches opened from now
   * on when `newWatches` is true, until {@link resumeWatches}.
   */
  stallWatches(options: { newWatches?: boolean } = {}): void {
    for (const w of this.#watches) w.stalled = true;
    this.#stallNew = options.newWatches ?? false;
  }

  /** Complete lines the stalled watches hold back, together. */
  get heldLines(): number {
    let n = 0;
    for (const w of this.#watches) n += w.heldLines;
    return n;
  }

  /**
   * Resolves once the stalled watches together hold back at least `lines` complete lines — for
   * a benchmark or test that wants a backlog to be in place before {@link resumeWatches}.
   */
  whenHeld(lines: number): Promise<void> {
    if (this.heldLines >= lines) return Promise.resolve();
    return new Promise((resolve) => this.#heldWaiters.push({ lines, resolve }));
  }

  #checkHeld(): void {
    if (this.#heldWaiters.length === 0) return;
    const held = this.heldLines;
    this.#heldWaiters = this.#heldWaiters.filter((w) => {
      if (held < w.lines) return true;
      w.resolve();
      return false;
    });
  }

  /** Lets stalled watches flow again (what they held back is sent). */
  resumeWatches(): void {
    this.#stallNew = false;
    for (const w of [...this.#watches]) {
      w.stalled = false;
      w.flush();
    }
  }

  /** Writes `line` (plus `\n`) into every open watch, at the next boundary between events. */
  injectLine(line: string): void {
    for (const w of this.#watches) {
      if (w.partial.length === 0) w.res.write(`${line}\n`);
      else w.inject.push(line);
    }
  }

  /** Ends streaming lists after forwarding `lines` lines (before their end bookmark). */
  endWatchListsAfter(lines: number | undefined): void {
    this.#endWatchListAfter = lines;
  }

  /**
   * Plays a server that ignores streaming lists, as servers that do not know them do: the
   * `sendInitialEvents` and `resourceVersionMatch` parameters are dropped from watches, which the
   * server then serves as plain watches (the current state as ADDED events, then changes;
   * never an initial-events-end bookmark). Until {@link heal}.
   */
  ignoreWatchLists(on = true): void {
    this.#ignoreWatchLists = on;
  }

  /** Answers matching requests with an error (or any status and body) instead of forwarding. */
  failRequests(rule: FailRule): void {
    this.#fail.push({ rule, left: rule.count ?? Number.POSITIVE_INFINITY });
  }

  /** Holds matching requests for `ms` on the proxy's clock before forwarding them. */
  delayRequests(rule: DelayRule): void {
    this.#delay.push({ rule, left: rule.count ?? Number.POSITIVE_INFINITY });
  }

  /** Drops every fail and delay rule and resumes stalled watches. */
  heal(): void {
    this.#fail = [];
    this.#delay = [];
    this.#endWatchListAfter = undefined;
    this.#ignoreWatchLists = false;
    this.resumeWatches();
  }

  /** Stops listening and resets every connection: clients get "connection refused". */
  async down(): Promise<void> {
    for (const s of this.#sockets) s.destroy();
    this.#sockets.clear();
    this.#watches.clear();
    if (this.#server.listening) await new Promise<void>((r) => this.#server.close(() => r()));
  }

  /** Listens again on the same port. */
  async up(): Promise<void> {
    if (this.#server.listening) return;
    this.#server = this.#makeServer();
    await this.listen();
  }

  /**
   * Stops gracefully: accepts no new connection, lifts every fault (delayed requests go on at
   * once, stalled watches flow), ends the open watches, waits for the other requests to be
   * answered, then closes every connection. Idempotent.
   */
  close(): Promise<void> {
    this.#closing ??= (async () => {
      const server = this.#server;
      const stopped = server.listening
        ? new Promise<void>((resolve) => server.close(() => resolve()))
        : undefined;
      this.heal();
      for (const go of [...this.#waits]) go();
      this.cutWatches();
      if (this.#inFlight > 0) {
        await new Promise<void>((resolve) => {
          this.#drained = resolve;
        });
      }
      await this.down();
      await stopped;
      this.#agent.destroy();
    })();
    return this.#closing;
  }

  /** Stops at once: every connection is reset, requests in flight included. Idempotent. */
  async destroy(): Promise<void> {
    const closing = this.close();
    await this.down();
    await closing;
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }

  #makeServer(): Server {
    const server = createServer((req, res) => {
      this.#inFlight++;
      res.once("close", () => {
        if (--this.#inFlight === 0) this.#drained?.();
      });
      void this.#handle(req, res);
    });
    server.on("connection", (s: Socket) => {
      this.#sockets.add(s);
      s.on("close", () => this.#sockets.delete(s));
    });
    return server;
  }

  async #handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? "/", "http://proxy");
    const watchParam = url.searchParams.get("watch");
    const seen: ProxiedRequest = {
      method: req.method ?? "GET",
      path: url.pathname,
      query: url.searchParams,
      watch: watchParam === "true" || watchParam === "1",
      watchList: url.searchParams.get("sendInitialEvents") === "true",
    };
    this.requests.push(seen);
    const parts: Buffer[] = [];
    for await (const c of req) parts.push(c as Buffer);
    const delay = take(this.#delay, seen);
    if (delay !== undefined) {
      await new Promise<void>((resolve) => {
        let cancel: (() => void) | undefined;
        const go = () => {
          this.#waits.delete(go);
          cancel?.();
          resolve();
        };
        cancel = this.#clock.setTimer(delay.ms, go);
        this.#waits.add(go);
      });
    }
    const fail = take(this.#fail, seen);
    if (fail !== undefined) return answer(res, fail);
    this.#forward(req, res, seen, Buffer.concat(parts));
  }

  #forward(req: IncomingMessage, res: ServerResponse, seen: ProxiedRequest, body: Buffer): void {
    const headers = { ...req.headers, host: this.#target.host };
    delete headers.connection;
    let path = req.url;
    if (this.#ignoreWatchLists && seen.watchList) {
      // A copy: `seen` stays the request as the client sent it.
      const query = new URLSearchParams(seen.query);
      query.delete("sendInitialEvents");
      query.delete("resourceVersionMatch");
      path = `${seen.path}?${query}`;
    }
    const up = this.#connect(
      {
        protocol: this.#target.protocol,
        hostname: this.#target.hostname,
        port: this.#target.port,
        method: req.method,
        path,
        headers,
        agent: seen.watch ? false : this.#agent,
        // A watch has a connection of its own: the TLS options go with it.
        ...(seen.watch ? this.#tls : {}),
      },
      (upRes) => {
        res.writeHead(upRes.statusCode ?? 502, upRes.headers);
        if (!seen.watch || (upRes.statusCode ?? 0) >= 300) {
          upRes.pipe(res);
          return;
        }
        res.flushHeaders();
        const w: OpenWatch = {
          req: seen,
          res,
          upstream: upRes,
          stalled: this.#stallNew,
          partial: Buffer.alloc(0),
          lines: 0,
          inject: [],
          flush: () => {},
          heldLines: 0,
          endAfterLines: seen.watchList
            ? (this.#endWatchListAfter ?? Number.POSITIVE_INFINITY)
            : Number.POSITIVE_INFINITY,
        };
        this.#watches.add(w);
        // What a stall holds back: blocks of about HOLD_BLOCK_BYTES, then the latest chunks.
        const held: Buffer[] = [];
        let recent: Buffer[] = [];
        let recentBytes = 0;
        const block = () => {
          if (recent.length === 0) return;
          held.push(recent.length === 1 ? recent[0]! : Buffer.concat(recent, recentBytes));
          recent = [];
          recentBytes = 0;
        };
        let ended = false;
        w.flush = () => {
          if (w.stalled) return;
          // What a stall held back goes out at once, in large writes, as fast as the client
          // can read it: merged into blocks as it came, so a release costs no copying.
          block();
          while (held.length > 0 && !w.stalled && this.#watches.has(w))
            passChunk(w, held.shift()!, () => this.#endWatch(w, "end"));
          if (held.length === 0) w.heldLines = 0;
          if (ended && held.length === 0 && !w.stalled && this.#watches.has(w)) {
            this.#watches.delete(w);
            res.end();
          }
        };
        upRes.on("data", (chunk: Buffer) => {
          recent.push(chunk);
          recentBytes += chunk.length;
          if (!w.stalled) {
            w.flush();
            return;
          }
          if (recentBytes >= HOLD_BLOCK_BYTES) block();
          w.heldLines += countNewlines(chunk);
          this.#checkHeld();
        });
        upRes.on("end", () => {
          ended = true;
          w.flush();
        });
        res.on("close", () => {
          this.#watches.delete(w);
          upRes.destroy();
        });
      },
    );
    up.on("error", (err) => {
      if (!res.headersSent)
        answer(res, { status: 502, body: JSON.stringify(status(502, `proxy: ${err.message}`)) });
      else res.destroy();
    });
    up.end(body);
  }

  #endWatch(w: OpenWatch, mode: CutMode): void {
    this.#watches.delete(w);
    endWatchStream(w, mode);
  }
}

/** Starts a {@link FaultProxy} in front of `options.target`. */
export async function startFaultProxy(options: FaultProxyOptions): Promise<FaultProxy> {
  const proxy = new FaultProxy(options);
  await proxy.listen();
  return proxy;
}
