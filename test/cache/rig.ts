/**
 * The rig of the fault-scenario suites: the embedded API server, a fault proxy in front of it,
 * an informer that reaches the server only through the proxy (its timers on a FakeClock), a
 * writer that talks to the server directly, and a handler that checks every notification
 * against what it saw before.
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
  proxy: FaultProxy;
  clock: FakeClock;
  /** Writes go straight to the server. */
  writer: ResourceClient<ConfigMap>;
  /** The informer's client (through the proxy). */
  client: Client;
  informer: SharedInformer<ConfigMap>;
  failures: ReflectorFailure[];
  mirror: ReturnType<typeof mirroringHandler>;
  /** Starts the informer and waits for it to sync. */
  start(): Promise<void>;
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
    ...options.informer,
  });
  const mirror = mirroringHandler();
  informer.addEventHandler(mirror.handler);
  const stop = new AbortController();
  let running: Promise<void> | undefined;
  const rig: Rig = {
    server,
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
