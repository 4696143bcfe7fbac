/**
 * The rig of the etcd suites: API servers on one throwaway etcd (optionally each behind a TCP
 * proxy, to cut one off), and an informer probe whose waits are driven by its own events,
 * never by the clock.
 */

import { EtcdStorage } from "kontroller/apiserver";
import {
  type EventHandler,
  listerWatcherFor,
  type ReflectorFailure,
  SharedInformer,
  silentLogger,
} from "kontroller/cache";
import { type Client, createClient, type ResourceClient } from "kontroller/client";
import { DeletedFinalStateUnknown, deletionHandlingKey, objectKey } from "kontroller/core";
import { type ConfigMap, configMaps } from "kontroller/resources";
import { type EtcdProcess, startTestServer, type TestServer } from "kontroller/testing";
import { startTcpProxy, type TcpProxy } from "./tcp-proxy.ts";

/** One API server on the shared etcd. */
export interface Member extends AsyncDisposable {
  readonly url: string;
  readonly storage: EtcdStorage;
  readonly server: TestServer;
  /** Between this server and etcd, when started with `proxied`. */
  readonly proxy: TcpProxy | undefined;
  /** A client of this server (no retries: tests see each failure). */
  readonly client: Client;
  readonly configMaps: ResourceClient<ConfigMap>;
}

/** Starts an API server on `etcd` (under `prefix`, default kube's layout). */
export async function startMember(
  etcd: EtcdProcess,
  options: { proxied?: boolean; prefix?: string } = {},
): Promise<Member> {
  const proxy = options.proxied ? await startTcpProxy(etcd.endpoint) : undefined;
  const storage = new EtcdStorage({
    endpoints: [proxy?.url ?? etcd.endpoint],
    ...(options.prefix === undefined ? {} : { prefix: options.prefix }),
  });
  const server = await startTestServer({ storage, compactionIntervalMs: 0, controllers: false });
  const client = createClient({ url: server.url, retry: { maxRetries: 0 } });
  const close = async () => {
    await client.close();
    await server.close();
    await storage.close();
    await proxy?.close();
  };
  return {
    url: server.url,
    storage,
    server,
    proxy,
    client,
    configMaps: client.resource(configMaps, { namespace: "default" }),
    [Symbol.asyncDispose]: close,
  };
}

/** A ConfigMap in `default`. */
export function cm(name: string, data: Record<string, string> = {}): ConfigMap {
  return { metadata: { name, namespace: "default" }, data };
}

/** name → resourceVersion of ConfigMaps. */
export function stateOf(objects: Iterable<ConfigMap>): Map<string, string> {
  const out = new Map<string, string>();
  for (const o of objects) out.set(o.metadata?.name ?? "", o.metadata?.resourceVersion ?? "");
  return out;
}

export function sameState(a: Map<string, string>, b: Map<string, string>): boolean {
  return a.size === b.size && [...a].every(([k, v]) => b.get(k) === v);
}

/**
 * An informer on the ConfigMaps of `default` through one server, with a handler that mirrors
 * it and logs each notification, and waits that wake on its events and reflector failures.
 */
export class InformerProbe implements AsyncDisposable {
  readonly client: Client;
  readonly informer: SharedInformer<ConfigMap>;
  readonly failures: ReflectorFailure[] = [];
  readonly log: string[] = [];
  readonly mirror = new Map<string, ConfigMap>();
  readonly problems: string[] = [];
  #wake = new Set<() => void>();
  #stop = new AbortController();
  #running: Promise<void> | undefined;

  constructor(url: string) {
    this.client = createClient({ url });
    this.informer = new SharedInformer<ConfigMap>({
      listerWatcher: listerWatcherFor(this.client.resource(configMaps, { namespace: "default" })),
      logger: silentLogger,
      backoff: { initialMs: 20, maxMs: 200, random: () => 0 },
      onWatchError: (f) => {
        this.failures.push(f);
        this.#poke();
      },
    });
    const handler: EventHandler<ConfigMap> = {
      onAdd: (o) => {
        if (this.mirror.has(objectKey(o))) this.problems.push(`add of a known ${objectKey(o)}`);
        this.mirror.set(objectKey(o), o);
        this.log.push(`add ${o.metadata?.name}`);
        this.#poke();
      },
      onUpdate: (old, o) => {
        if (this.mirror.get(objectKey(o)) !== old) this.problems.push(`stale old ${objectKey(o)}`);
        this.mirror.set(objectKey(o), o);
        this.log.push(`update ${o.metadata?.name}`);
        this.#poke();
      },
      onDelete: (o) => {
        const key = deletionHandlingKey(o);
        if (!this.mirror.delete(key)) this.problems.push(`delete of an unknown ${key}`);
        this.log.push(
          `delete ${key}${o instanceof DeletedFinalStateUnknown ? " (tombstone)" : ""}`,
        );
        this.#poke();
      },
    };
    this.informer.addEventHandler(handler);
  }

  async start(): Promise<void> {
    this.#running = this.informer.run(this.#stop.signal);
    await this.informer.waitForSync();
  }

  /** The informer's cache, name → resourceVersion. */
  state(): Map<string, string> {
    return stateOf(this.informer.store.list());
  }

  /** Resolves once `done()` holds, checking after each notification or failure. */
  async until(done: () => boolean): Promise<void> {
    while (!done()) await new Promise<void>((resolve) => this.#wake.add(resolve));
  }

  /** Resolves once the cache and the mirror both equal `want` (name → resourceVersion). */
  async converged(want: Map<string, string>): Promise<void> {
    await this.until(
      () => sameState(this.state(), want) && sameState(stateOf(this.mirror.values()), want),
    );
    if (this.problems.length > 0) throw new Error(this.problems.join("; "));
  }

  async [Symbol.asyncDispose](): Promise<void> {
    this.#stop.abort();
    await this.#running;
    await this.client.close();
  }

  #poke(): void {
    const wake = [...this.#wake];
    this.#wake.clear();
    for (const w of wake) w();
  }
}
