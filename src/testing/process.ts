/**
 * The child processes of the test fixtures (etcd, kube-apiserver): spawned, watched until they
 * say they are ready, reaped on failure, and killed when the test process exits. Their output is
 * read for as long as they run (a full pipe would block them); the last lines are kept, so that
 * every failure can say what the process said last.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { rmSync } from "node:fs";
import { createServer, type Socket } from "node:net";
import { errnoCode } from "../core/index.ts";

/** How many of a process's last output lines a failure quotes. */
const TAIL_LINES = 30;

/** What {@link launchProcess} starts. */
export interface LaunchOptions {
  /** The process's name in messages ("etcd", "kube-apiserver"). */
  name: string;
  /** The executable. */
  binary: string;
  args: readonly string[];
  /** True for the output line that says the process is ready (it may still need a probe). */
  ready: (line: string) => boolean;
  /** How long it may take to be ready. */
  timeoutMs: number;
  /** Aborts the start (the process is killed). */
  signal?: AbortSignal | undefined;
  /** The error for a binary that is not there. */
  notFound: (binary: string) => Error;
}

/** A running child process and its last output lines. */
export interface LaunchedProcess {
  readonly child: ChildProcess;
  /** Its last output lines (stdout and stderr), oldest first. */
  tail(): string[];
}

/** Spawns a process and resolves once it prints its ready line; rejects (and reaps it) otherwise. */
export async function launchProcess(options: LaunchOptions): Promise<LaunchedProcess> {
  const { name, binary, timeoutMs, signal } = options;
  signal?.throwIfAborted();
  const child = spawn(binary, options.args, { stdio: ["ignore", "pipe", "pipe"] });
  trackForExit(child);
  const lines: string[] = [];
  let ready: () => void = () => {};
  const readyP = new Promise<void>((resolve) => {
    ready = resolve;
  });
  for (const stream of [child.stdout!, child.stderr!]) {
    let buffered = "";
    stream.setEncoding("utf8");
    stream.on("data", (chunk: string) => {
      buffered += chunk;
      let nl = buffered.indexOf("\n");
      while (nl >= 0) {
        const line = buffered.slice(0, nl);
        buffered = buffered.slice(nl + 1);
        lines.push(line);
        if (lines.length > TAIL_LINES) lines.shift();
        if (options.ready(line)) ready();
        nl = buffered.indexOf("\n");
      }
    });
  }
  const launched: LaunchedProcess = { child, tail: () => [...lines] };
  const exited = new Promise<never>((_, reject) => {
    child.once("error", (err) =>
      reject(errnoCode(err) === "ENOENT" ? options.notFound(binary) : err),
    );
    child.once("exit", (code, sig) =>
      reject(processFailure(name, launched, `exited (${sig ?? code}) before it was ready`)),
    );
  });
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(processFailure(name, launched, `was not ready after ${timeoutMs} ms`)),
      timeoutMs,
    );
  });
  let onAbort: () => void = () => {};
  const aborted = new Promise<never>((_, reject) => {
    onAbort = () => reject(signal!.reason);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
  try {
    await Promise.race([readyP, exited, timedOut, aborted]);
    return launched;
  } catch (err) {
    await stopProcess(child, "SIGKILL");
    throw err;
  } finally {
    clearTimeout(timer);
    signal?.removeEventListener("abort", onAbort);
    for (const p of [exited, timedOut, aborted]) p.catch(() => {});
  }
}

/** An error that says what went wrong with a process, quoting its last lines. */
export function processFailure(name: string, process: LaunchedProcess, why: string): Error {
  return new Error(`${name} ${why}; its last lines:\n${process.tail().join("\n")}`);
}

/** True while the process runs. */
export function isRunning(child: ChildProcess): boolean {
  return child.exitCode === null && child.signalCode === null;
}

/** Signals the process and resolves once it has exited (SIGKILL after 10 s of SIGTERM). */
export async function stopProcess(child: ChildProcess, signal: NodeJS.Signals): Promise<void> {
  if (!isRunning(child) || child.pid === undefined) {
    live.delete(child);
    return;
  }
  const exit = once(child, "exit");
  child.kill(signal);
  const force = signal === "SIGKILL" ? undefined : setTimeout(() => child.kill("SIGKILL"), 10_000);
  await exit;
  clearTimeout(force);
  live.delete(child);
}

/** A TCP port free on the loopback interface right now. */
export async function freePort(): Promise<number> {
  const server = createServer();
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (address === null || typeof address === "string") {
    throw new Error(`a loopback listener reported no port (${String(address)})`);
  }
  return address.port;
}

/**
 * Lets the test process exit while the child runs (as `ChildProcess.unref()`, its output pipes
 * included): the exit hook kills it then.
 */
export function unrefProcess(child: ChildProcess): void {
  child.unref();
  for (const stream of [child.stdout, child.stderr]) (stream as Socket | null)?.unref();
}

/**
 * Removes `dir` when the test process exits, should nothing remove it before; returns the
 * function that forgets it (call it once the directory is gone).
 */
export function removeAtExit(dir: string): () => void {
  installExitHook();
  dirs.add(dir);
  return () => dirs.delete(dir);
}

// The exit hook's state: what a test process that ends (or dies of an uncaught error) leaves
// running or on disk is still removed. Entries leave the sets as their owners clean up.
/** The processes still running, killed when the test process exits. */
const live = new Set<ChildProcess>();
/** The directories still there, removed when the test process exits (after the kills). */
const dirs = new Set<string>();
let exitHook = false;

function trackForExit(child: ChildProcess): void {
  live.add(child);
  child.once("exit", () => live.delete(child));
  installExitHook();
}

function installExitHook(): void {
  if (exitHook) return;
  exitHook = true;
  process.once("exit", () => {
    for (const c of live) c.kill("SIGKILL");
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });
}
