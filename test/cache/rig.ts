/**
 * The rig of the fault-scenario suites: the test server (embedded, or kube-apiserver), a fault
 * proxy in front of it, an informer that reaches the server only through the proxy (its timers
 * on a FakeClock), a writer that talks to the server directly, and a handler that checks every
 * notification against what it saw before.
 */
import {
  type EventHandler,
  type Logger,
  listerWatcherFor,
  type ReflectorFailure,
  SharedInformer,
  type SharedInformerOptions,
} from "kontroller/cache";
import { type Client, createClient, type ResourceClient } from "kontroller/client";
import { DeletedFinalStateUnknown, deletionHandlingKey, objectKey } from "kontroller/core";
import { type ConfigMap, configMaps } from "kontroller/resources";
import {
  FakeClock,
  type FaultProxy,
  startFaultProxy,
  startTestServer,
  type TestBackend,
  type TestServer,
  type TestServerOptions,
} from "kontroller/testing";

/** Lets I/O and promise continuations run until `done()` holds (event-loop turns, not time). */
export async function until(
  done: () => boolean,
  what = "the condition",
  turns = 50_000,
): Promise<void> {
  for (let i = 0; i < turns; i++) {
    if (done()) return;
    await new Promise((r) => setImmediate(r));
  }
  throw new Error(`gave up waiting for ${what}`);
}

/** One answer per backend: every kube-apiserver of a run has the same etcd under it. */
const streamingListAnswers = new Map<TestBackend, Promise<boolean>>();

/**
 * Whether the server serves streaming lists (`sendInitialEvents=true`) and watches from no
 * resourceVersion. kube-apiserver refuses both, with an ERROR event holding a 500 ("the required
 * storage feature RequestWatchProgress is disabled"), when its etcd is older than 3.4.31 (or a
 * 3.5 older than 3.5.13); an informer then lists and watches, as client-go falls back to.
 */
export function servesStreamingLists(server: TestServer): Promise<boolean> {
  let answer = streamingListAnswers.get(server.backend);
  if (answer === undefined) {
    answer = askForStreamingList(server.url);
    streamingListAnswers.set(server.backend, answer);
  }
  return answer;
}

/**
 * A watch's answer to a resourceVersion the server no longer has, as kube-apiserver sends it:
 * the stream opens, then an ERROR event holds the 410.
 */
export const EXPIRED_WATCH = `${JSON.stringify({
  type: "ERROR",
  object: {
    kind: "Status",
    apiVersion: "v1",
    metadata: {},
    status: "Failure",
    message: "too old resource version",
    reason: "Expired",
    code: 410,
  },
})}\n`;

/** The skip reason of a test that needs the server's streaming lists, where it has none. */
export const NO_STREAMING_LISTS =
  "the server refuses streaming lists and watches from no resourceVersion (kube-apiserver does where its etcd lacks RequestWatchProgress: before 3.4.31, or a 3.5 before 3.5.13)";

/** Opens a streaming list that matches nothing and reads its first event. */
async function askForStreamingList(url: string): Promise<boolean> {
  const query = new URLSearchParams({
    watch: "true",
    sendInitialEvents: "true",
    resourceVersionMatch: "NotOlderThan",
    allowWatchBookmarks: "true",
    labelSelector: "kontroller.test/none=none",
    timeoutSeconds: "5",
  });
  const ac = new AbortController();
  try {
    const res = await fetch(`${url}/api/v1/namespaces/default/configmaps?${query}`, {
      signal: ac.signal,
    });
    if (!res.ok || res.body === null) return false;
    let text = "";
    const decoder = new TextDecoder();
    for await (const chunk of res.body) {
      text += decoder.decode(chunk as Uint8Array, { stream: true });
      const end = text.indexOf("\n");
      if (end >= 0) return (JSON.parse(text.slice(0, end)) as { type?: string }).type !== "ERROR";
    }
    return false;
  } finally {
    ac.abort();
  }
}

const rvOf = (o: ConfigMap) => Number(o.metadata?.resourceVersion);

/**
 * A handler that mirrors the informer into its own map and records every inconsistency: an add
 * of a key it has, an update whose old object is not the last one it was given (by identity)
 * or that goes back in resourceVersion, a delete of a key it does not have.
 */
export function mirroringHandler() {
  const model = new Map<string, ConfigMap>();
  const problems: string[] = [];
  const log: string[] = [];
  const handler: EventHandler<ConfigMap> = {
    onAdd(obj, initial) {
      const key = objectKey(obj);
      if (model.has(key)) problems.push(`add of a key already seen: ${key}`);
      model.set(key, obj);
      log.push(`add ${obj.metadata?.name}${initial ? " (initial)" : ""}`);
    },
    onUpdate(old, obj) {
      const key = objectKey(obj);
      const prev = model.get(key);
      if (prev !== old) problems.push(`update of ${key}: old is not the object last seen`);
      if (old !== obj && rvOf(obj) < rvOf(old))
        problems.push(`update of ${key} goes back in resourceVersion`);
      model.set(key, obj);
      log.push(
        `update ${obj.metadata?.name}${old.metadata?.uid !== obj.metadata?.uid ? " (new uid)" : ""}`,
      );
    },
    onDelete(obj) {
      const key = deletionHandlingKey(obj);
      if (!model.has(key)) problems.push(`delete of a key never seen: ${key}`);
      model.delete(key);
      log.push(`delete ${key}${obj instanceof DeletedFinalStateUnknown ? " (tombstone)" : ""}`);
    },
  };
  return { model, problems, log, handler };
}

const quiet: Logger = { error() {}, warn() {}, info() {}, debug() {} };

/** Options of {@link startRig}. */
export interface RigOptions {
  server?: TestServerOptions;
  informer?: Partial<SharedInformerOptions<ConfigMap>>;
  /** Client retries of the informer's client. @default 0 (failures reach the reflector) */
  maxRetries?: number;
}

export interface Rig extends AsyncDisposable {
  server: TestServer;
  /**
   * Whether the server serves streaming lists (see {@link servesStreamingLists}); the informer
   * uses them where it does, unless the test's informer options say otherwise.
   */
  streamingLists: boolean;
  proxy: FaultProxy;
  clock: FakeClock;
  /** Writes go straight to the server. */
  writer: ResourceClient<ConfigMap>;
  /** The informer's client (through the proxy). */
  client: Client;
  informer: SharedInformer<ConfigMap>;
  failures: ReflectorFailure[];
  mirror: ReturnType<typeof mirroringHandler>;
  /** Starts the informer and waits for it to sync and for its watch to be open. */
  start(): Promise<void>;
  /**
   * Waits until the informer's watch is open (the server answered it). After a list the watch
   * is a request of its own, so a fault aimed at the watch waits for this.
   */
  watching(): Promise<void>;
  /** The server's state, key → resourceVersion. */
  serverState(): Promise<Map<string, string>>;
  /** Waits until the cache and the mirroring handler equal the server's state. */
  converged(): Promise<void>;
  /** Advances the informer's clock past the backoff of the last failure. */
  backoff(): Promise<void>;
}

function state(objects: Iterable<ConfigMap>): Map<string, string> {
  const out = new Map<string, string>();
  for (const o of objects) out.set(objectKey(o), o.metadata?.resourceVersion ?? "");
  return out;
}

function same(a: Map<string, string>, b: Map<string, string>): boolean {
  if (a.size !== b.size) return false;
  for (const [k, v] of a) if (b.get(k) !== v) return false;
  return true;
}

/** Starts a rig for ConfigMaps in namespace `default`. */
export async function startRig(options: RigOptions = {}): Promise<Rig> {
  const server = await startTestServer({ compactionIntervalMs: 0, ...options.server });
  const streamingLists = await servesStreamingLists(server);
  const clock = new FakeClock();
  // The proxy's delays run on the informer's clock too.
  const proxy = await startFaultProxy({ target: server.url, clock });
  const direct = createClient({ url: server.url });
  const writer = direct.resource(configMaps, { namespace: "default" });
  const client = createClient({
    url: proxy.url,
    clock,
    retry: { maxRetries: options.maxRetries ?? 0 },
  });
  const failures: ReflectorFailure[] = [];
  const informer = new SharedInformer<ConfigMap>({
    listerWatcher: listerWatcherFor(client.resource(configMaps, { namespace: "default" })),
    clock,
    logger: quiet,
    onWatchError: (f) => failures.push(f),
    random: () => 0,
    backoff: { random: () => 0 },
    useWatchList: streamingLists,
    ...options.informer,
  });
  const mirror = mirroringHandler();
  informer.addEventHandler(mirror.handler);
  const stop = new AbortController();
  let running: Promise<void> | undefined;
  const rig: Rig = {
    server,
    streamingLists,
    proxy,
    clock,
    writer,
    client,
    informer,
    failures,
    mirror,
    async start() {
      running = informer.run(stop.signal);
      await informer.waitForSync();
      await rig.watching();
    },
    async watching() {
      await until(() => proxy.openWatches > 0, "the informer's watch");
    },
    async serverState() {
      return state((await writer.list()).items);
    },
    async converged() {
      const want = await rig.serverState();
      await until(
        () => same(state(informer.store.list()), want) && same(state(mirror.model.values()), want),
        "the cache and the handler to equal the server",
      );
      if (mirror.problems.length > 0)
        throw new Error(`inconsistent notifications: ${mirror.problems.join("; ")}`);
    },
    async backoff() {
      const last = failures[failures.length - 1];
      await clock.advanceAsync(last?.delayMs ?? 0);
    },
    async [Symbol.asyncDispose]() {
      stop.abort();
      await running;
      await client.close();
      await direct.close();
      await proxy.close();
      await server.close();
    },
  };
  return rig;
}

/** A ConfigMap named `name` with data. */
export function cm(name: string, data: Record<string, string> = {}): ConfigMap {
  return { metadata: { name, namespace: "default" }, data };
}
