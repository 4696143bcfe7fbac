import { type FileHandle, mkdir, open } from "node:fs/promises";
import { dirname } from "node:path";
import { checkNumber, errorMessage, InvalidOptionError } from "../../core/index.ts";
import { auditEventJson } from "./event-json.ts";
import type { AuditEvent } from "./types.ts";

/**
 * Where audit events go (kube's audit `Sink`). `processEvent` is called on the request's path,
 * once per event: it must return at once and never throw; slow work (the disk) happens after.
 * The server starts a sink in `listen()` and closes it in `close()`, after the last request.
 */
export interface AuditSink {
  /** Takes one event. The event is not changed afterwards: a sink may keep it as it is. */
  processEvent(event: AuditEvent): void;
  /** Readies the sink (opens its file); a sink that cannot start stops the server's start. */
  start?(): Promise<void>;
  /** Writes what it holds and lets go of its resources. Idempotent. */
  close?(): Promise<void>;
}

/**
 * Keeps events in memory, in the order they came: for tests, and for the testing module's
 * request recorder.
 */
export class MemoryAuditSink implements AuditSink {
  readonly #events: AuditEvent[] = [];
  readonly #waiters = new Set<(event: AuditEvent) => void>();

  processEvent(event: AuditEvent): void {
    this.#events.push(event);
    for (const waiter of this.#waiters) waiter(event);
  }

  /** Every event so far, oldest first. */
  events(): readonly AuditEvent[] {
    return this.#events.slice();
  }

  /** Forgets the events so far. */
  clear(): void {
    this.#events.length = 0;
  }

  /**
   * The first event, among those so far and those to come, that `test` accepts: how a test waits
   * for a request's ResponseComplete, which is written once the answer has gone out.
   */
  waitFor(
    test: (event: AuditEvent) => boolean,
    options: { signal?: AbortSignal } = {},
  ): Promise<AuditEvent> {
    const found = this.#events.find(test);
    if (found !== undefined) return Promise.resolve(found);
    const { signal } = options;
    if (signal?.aborted) return Promise.reject(signal.reason);
    return new Promise((resolve, reject) => {
      const onAbort = () => {
        this.#waiters.delete(waiter);
        reject(signal?.reason);
      };
      const waiter = (event: AuditEvent) => {
        if (!test(event)) return;
        this.#waiters.delete(waiter);
        signal?.removeEventListener("abort", onAbort);
        resolve(event);
      };
      this.#waiters.add(waiter);
      signal?.addEventListener("abort", onAbort, { once: true });
    });
  }
}

/** Options of {@link FileAuditSink}. */
export interface FileAuditSinkOptions {
  /** The log file: created (mode 0600, as kube-apiserver's) with its folder, else appended to. */
  path: string;
  /**
   * Told when a write fails: the events of that write are lost and the server goes on serving.
   * @default a line on stderr
   */
  onError?: (err: Error, lostEvents: number) => void;
  /**
   * Most bytes of events held while the disk catches up; an event past it is dropped (counted in
   * `dropped`) rather than letting memory grow without end.
   * @default 67108864 (64 MiB)
   */
  maxBufferBytes?: number;
}

/**
 * Writes events as kube-apiserver's `--audit-log-path` does: one JSON event a line. Events are
 * serialised when they come and written in batches behind the requests: whatever arrives while
 * one write is on its way goes out in the next, so a request never waits for the disk.
 *
 * Invariant: `#pending` holds the lines not yet handed to the file, `#pendingBytes` their size;
 * `#writing` is set exactly while the drain loop runs, and the loop runs until `#pending` is
 * empty. Not guaranteed: events of a write that failed are not retried; on a crash, events not
 * yet written are lost (kube's blocking mode writes before answering; this does not).
 */
export class FileAuditSink implements AuditSink {
  readonly #path: string;
  readonly #onError: (err: Error, lostEvents: number) => void;
  readonly #maxBufferBytes: number;
  #file: FileHandle | undefined;
  #pending: string[] = [];
  #pendingBytes = 0;
  #writing: Promise<void> | undefined;
  #closing: Promise<void> | undefined;
  #dropped = 0;
  #failed = 0;

  constructor(options: FileAuditSinkOptions) {
    const owner = "FileAuditSink";
    if (typeof options?.path !== "string" || options.path === "") {
      throw new InvalidOptionError(owner, "path", options?.path, "must be the path of a file");
    }
    this.#path = options.path;
    this.#maxBufferBytes = checkNumber(
      owner,
      "maxBufferBytes",
      options.maxBufferBytes ?? 64 * 1024 * 1024,
      {
        above: 0,
      },
    );
    this.#onError =
      options.onError ??
      ((err, lost) =>
        process.stderr.write(
          `kontroller: audit log ${this.#path}: ${errorMessage(err)}; ${lost} event${lost === 1 ? "" : "s"} lost\n`,
        ));
  }

  /** The file's path. */
  get path(): string {
    return this.#path;
  }

  /** Events dropped because the buffer was full or the sink closed. */
  get dropped(): number {
    return this.#dropped;
  }

  /** Events lost to writes that failed. */
  get failed(): number {
    return this.#failed;
  }

  /** Opens the file (making its folder), as kube-apiserver does before it serves. */
  async start(): Promise<void> {
    if (this.#file !== undefined) return;
    try {
      await mkdir(dirname(this.#path), { recursive: true, mode: 0o700 });
      this.#file = await open(this.#path, "a", 0o600);
    } catch (err) {
      throw new Error(`audit log ${this.#path}: cannot open for writing: ${errorMessage(err)}`, {
        cause: err,
      });
    }
    this.#kick();
  }

  processEvent(event: AuditEvent): void {
    if (this.#closing !== undefined) {
      this.#dropped++;
      return;
    }
    const line = `${auditEventJson(event)}\n`;
    if (this.#pendingBytes + line.length > this.#maxBufferBytes) {
      this.#dropped++;
      return;
    }
    this.#pending.push(line);
    this.#pendingBytes += line.length;
    this.#kick();
  }

  /** Resolves once every event taken so far has been written (or its write has failed). */
  async flush(): Promise<void> {
    while (this.#writing !== undefined) await this.#writing;
  }

  /** Writes what is pending, then closes the file. Idempotent. */
  close(): Promise<void> {
    this.#closing ??= (async () => {
      await this.flush();
      await this.#file?.close();
    })();
    return this.#closing;
  }

  #kick(): void {
    if (this.#writing !== undefined || this.#file === undefined || this.#pending.length === 0) {
      return;
    }
    this.#writing = this.#drain().finally(() => {
      this.#writing = undefined;
      this.#kick();
    });
  }

  async #drain(): Promise<void> {
    const file = this.#file!;
    while (this.#pending.length > 0) {
      const lines = this.#pending;
      this.#pending = [];
      this.#pendingBytes = 0;
      try {
        await file.write(lines.join(""));
      } catch (err) {
        this.#failed += lines.length;
        try {
          this.#onError(err instanceof Error ? err : new Error(String(err)), lines.length);
        } catch {
          // a throwing error handler must not stop the writes
        }
      }
    }
  }
}
