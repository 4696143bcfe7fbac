/**
 * The informers under comparison behind one small interface: kontroller's SharedInformer and
 * @kubernetes/client-node's `makeInformer`, both for the ConfigMaps of one namespace, both with
 * one handler.
 */
import * as k8s from "@kubernetes/client-node";
import { listerWatcherFor, SharedInformer } from "kontroller/cache";
import { type Client, createClient } from "kontroller/client";
import { type ConfigMap, configMaps } from "kontroller/resources";

/** Called for every add and update the informer delivers. */
export type Handler = (obj: ConfigMap) => void;

/** An informer, started and stopped the same way whatever its library. */
export interface PeerInformer {
  /** Starts it; resolves once the handler has been given every object of the initial list. */
  start(): Promise<void>;
  /** Stops it and releases its connections. */
  stop(): Promise<void>;
}

/** Builds an informer for `namespace` on the server at `url`. */
export type Peer = (url: string, namespace: string, handler: Handler) => PeerInformer;

const silent = { error() {}, warn() {}, info() {}, debug() {} };

/**
 * Set `KONTROLLER_BENCH_WATCH_LIST=false` to measure kontroller with `useWatchList: false`
 * (lists only), e.g. against a server whose streaming list is slower than its list.
 */
const useWatchList = process.env.KONTROLLER_BENCH_WATCH_LIST !== "false";

/**
 * Set `KONTROLLER_BENCH_STREAM_THREAD=worker` to measure kontroller receiving its watches on its
 * stream worker (`streamThread: "worker"`) instead of the main thread (the default), or `both`
 * to measure both side by side (the worker one reported as `kontroller-worker`).
 */
const streamThreadSetting = process.env.KONTROLLER_BENCH_STREAM_THREAD;

/**
 * kontroller's clients, one per server for the whole run, as a controller makes one client for
 * its life (an informer that starts is a new informer on that client). Its connections (and
 * stream worker thread) are made during the warm-up round. client-node's informers share undici's
 * global dispatcher across rounds in the same way.
 */
const clients = new Map<string, Client>();

/** Closes the clients the kontroller peer made. */
export async function closePeers(): Promise<void> {
  await Promise.all([...clients.values()].map((c) => c.close()));
  clients.clear();
}

/**
 * kontroller: a SharedInformer over a ResourceClient receiving its streams on `streamThread`;
 * synced = its handler saw the list. (Named, for the workloads' error messages.)
 */
function kontrollerPeer(streamThread: "main" | "worker"): Peer {
  const peer: Peer = (url, namespace, handler) => {
    const key = `${streamThread} ${url}`;
    let made = clients.get(key);
    if (made === undefined) {
      made = createClient({ url, streamThread });
      clients.set(key, made);
    }
    return kontrollerInformer(made, namespace, handler);
  };
  return Object.defineProperty(peer, "name", { value: `kontroller (${streamThread} thread)` });
}

/** A kontroller informer on `client` with `handler` as its one event handler. */
function kontrollerInformer(client: Client, namespace: string, handler: Handler): PeerInformer {
  const informer = new SharedInformer<ConfigMap>({
    listerWatcher: listerWatcherFor(client.resource(configMaps, { namespace })),
    useWatchList,
    logger: silent,
    onWatchError: (f) => {
      if (process.env.KONTROLLER_BENCH_DEBUG)
        console.error("watch failure", f.phase, f.recovery, String(f.error));
    },
  });
  const registration = informer.addEventHandler({
    onAdd: handler,
    onUpdate: (_old, obj) => handler(obj),
  });
  let running: Promise<void> | undefined;
  return {
    async start() {
      // As the Manager does before it starts informers: with streamThread "worker", the stream
      // worker is then up (at once after the first round) and the sync is received on it.
      await client.prepare();
      running = informer.run();
      await registration.waitForSync();
    },
    async stop() {
      await informer.stop();
      await running;
    },
  };
}

/**
 * @kubernetes/client-node 2.x: `makeInformer` with the generated `listNamespacedConfigMap` as
 * its list function; `start()` resolves after the list was delivered and the watch opened.
 */
export const clientNodePeer: Peer = (url, namespace, handler) => {
  const kc = new k8s.KubeConfig();
  kc.loadFromOptions({
    clusters: [{ name: "bench", server: url, skipTLSVerify: true }],
    users: [{ name: "bench" }],
    contexts: [{ name: "bench", cluster: "bench", user: "bench" }],
    currentContext: "bench",
  });
  const api = kc.makeApiClient(k8s.CoreV1Api);
  const informer = k8s.makeInformer<k8s.V1ConfigMap>(
    kc,
    `/api/v1/namespaces/${namespace}/configmaps`,
    () => api.listNamespacedConfigMap({ namespace }),
  );
  informer.on("add", (obj) => handler(obj as ConfigMap));
  informer.on("update", (obj) => handler(obj as ConfigMap));
  return {
    start: () => informer.start(),
    stop: () => informer.stop(),
  };
};

/** The informers by the `impl` names the benchmark reports, kontroller's first. */
export const peers: Record<string, Peer> = {
  ...(streamThreadSetting === "both"
    ? { kontroller: kontrollerPeer("main"), "kontroller-worker": kontrollerPeer("worker") }
    : { kontroller: kontrollerPeer(streamThreadSetting === "worker" ? "worker" : "main") }),
  "client-node": clientNodePeer,
};
