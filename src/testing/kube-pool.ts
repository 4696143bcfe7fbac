/**
 * Real kube-apiservers kept for the life of the test process, so that a suite pays for one start
 * (seconds) and not one per test. A server is lent to one test at a time; when the test gives it
 * back, its etcd is put back as it was when the server became ready — every key the test made is
 * deleted, every key it changed or deleted is restored — and the server waits, unref'd, for the
 * next test asking for the same configuration. The test process's exit kills what is left and
 * removes its files.
 *
 * The reset goes through etcd, under kube-apiserver: kube-apiserver sees it as it sees any write,
 * through its watch of etcd, and its caches follow. Only the keys kube-apiserver itself keeps
 * changing (its identity leases) are left alone. The server is lent again once its discovery
 * lists the group-versions it started with (a test's CRDs are served a moment after their etcd
 * keys are gone).
 */
import { get as httpsGet } from "node:https";
import { type KubeApiServerProcess, startKubeApiServer } from "./kube-apiserver.ts";

/** What a pooled server is started with; servers are shared only between equal configurations. */
export interface KubeConfiguration {
  /** The admin token; undefined: a random one. */
  token: string | undefined;
  /** Extra kube-apiserver flags. */
  args: readonly string[];
}

/** A server lent to one test. */
export interface KubeLease {
  readonly kube: KubeApiServerProcess;
  /**
   * Gives the server back: resets its etcd and keeps it for the next test (or stops it, where the
   * reset fails). Idempotent.
   */
  release(): Promise<void>;
}

/** One etcd key as the etcd JSON gateway spells it: key and value in base64. */
interface StoredKey {
  key: string;
  value: string;
  mod_revision: string;
}

interface Pooled {
  readonly kube: KubeApiServerProcess;
  /** Every key under /registry/ when the server became ready, by base64 key. */
  readonly snapshot: ReadonlyMap<string, StoredKey>;
  /** The group-versions `/apis` listed then (a test's CRDs add to them). */
  readonly groupVersions: string;
}

/** Idle servers by configuration; a server is in here or lent out, never both. */
const idle = new Map<string, Pooled[]>();

/** Lends a server of this configuration: an idle one, else a new one. */
export async function leaseKubeApiServer(config: KubeConfiguration): Promise<KubeLease> {
  const key = JSON.stringify([config.token ?? null, config.args]);
  let pooled = idle.get(key)?.pop();
  while (pooled !== undefined && !pooled.kube.running) {
    // It died while idle; its close() reports how, and nobody is waiting for that.
    await pooled.kube.close().catch(() => {});
    pooled = idle.get(key)?.pop();
  }
  if (pooled === undefined) pooled = await startPooled(config);
  const lent = pooled;
  let releasing: Promise<void> | undefined;
  return {
    kube: lent.kube,
    release() {
      releasing ??= (async () => {
        try {
          if (!lent.kube.running) throw new Error("kube-apiserver exited while lent");
          await reset(lent);
          await settled(lent);
        } catch (err) {
          await lent.kube.close().catch(() => {});
          throw err;
        }
        const list = idle.get(key) ?? [];
        list.push(lent);
        idle.set(key, list);
      })();
      return releasing;
    },
  };
}

async function startPooled(config: KubeConfiguration): Promise<Pooled> {
  const kube = await startKubeApiServer({
    args: config.args,
    ...(config.token === undefined ? {} : { token: config.token }),
  });
  try {
    kube.unref();
    const snapshot = new Map((await readAll(kube.etcd.endpoint)).map((kv) => [kv.key, kv]));
    return { kube, snapshot, groupVersions: await groupVersionsOf(kube) };
  } catch (err) {
    await kube.close();
    throw err;
  }
}

const REGISTRY = b64("/registry/");
/** The end of the /registry/ range: the prefix with its last byte raised by one. */
const REGISTRY_END = b64("/registry0");
/** Keys kube-apiserver keeps writing on its own (its identity leases, renewed every 10 s). */
const OWN = ["/registry/leases/kube-system/apiserver-", "/registry/peerserverleases/"];
/** etcd refuses a transaction of more than 128 operations by default. */
const TXN_OPS = 100;

/** Puts etcd back as the snapshot has it, but for the server's own keys. */
async function reset(pooled: Pooled): Promise<void> {
  const endpoint = pooled.kube.etcd.endpoint;
  const ops: unknown[] = [];
  const now = await readAll(endpoint);
  const present = new Set<string>();
  for (const kv of now) {
    present.add(kv.key);
    if (isOwn(kv.key)) continue;
    const then = pooled.snapshot.get(kv.key);
    if (then === undefined) {
      ops.push({ request_delete_range: { key: kv.key } });
    } else if (then.mod_revision !== kv.mod_revision) {
      ops.push({ request_put: { key: then.key, value: then.value } });
    }
  }
  for (const then of pooled.snapshot.values()) {
    if (!present.has(then.key) && !isOwn(then.key)) {
      ops.push({ request_put: { key: then.key, value: then.value } });
    }
  }
  for (let i = 0; i < ops.length; i += TXN_OPS) {
    await gateway(endpoint, "txn", { success: ops.slice(i, i + TXN_OPS) });
  }
}

/** How many times, 50 ms apart, {@link settled} asks `/apis` (10 s in all). */
const SETTLE_ASKS = 200;

/**
 * Resolves once kube-apiserver has followed a reset as far as discovery shows: a CRD deleted
 * under it is no longer served (its handlers and discovery catch up a moment after etcd).
 * kube-apiserver has no event to wait on here: ask, as the fixture asks /readyz.
 */
async function settled(pooled: Pooled): Promise<void> {
  for (let asked = 1; ; asked++) {
    if ((await groupVersionsOf(pooled.kube)) === pooled.groupVersions) return;
    if (asked >= SETTLE_ASKS) {
      throw new Error("kube-apiserver still serves the group-versions of a reset test's CRDs");
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** The group-versions `/apis` lists, sorted, as one string. */
async function groupVersionsOf(kube: KubeApiServerProcess): Promise<string> {
  const body = await new Promise<string>((resolve, reject) => {
    const req = httpsGet(
      `${kube.url}/apis`,
      { ca: kube.ca, headers: { authorization: `Bearer ${kube.token}` } },
      (res) => {
        let text = "";
        res.setEncoding("utf8");
        res.on("data", (chunk: string) => {
          text += chunk;
        });
        res.on("end", () =>
          res.statusCode === 200
            ? resolve(text)
            : reject(new Error(`kube-apiserver /apis: ${res.statusCode} ${text}`)),
        );
        res.on("error", reject);
      },
    );
    req.on("error", reject);
  });
  const groups = (JSON.parse(body) as { groups: { versions: { groupVersion: string }[] }[] })
    .groups;
  return groups
    .flatMap((g) => g.versions.map((v) => v.groupVersion))
    .sort()
    .join(" ");
}

/** Every key under /registry/, with its value. */
async function readAll(endpoint: string): Promise<StoredKey[]> {
  const answer = await gateway(endpoint, "range", { key: REGISTRY, range_end: REGISTRY_END });
  return (answer as { kvs?: StoredKey[] }).kvs ?? [];
}

/** One call of etcd's JSON gateway (`/v3/kv/...`). */
async function gateway(endpoint: string, call: string, body: unknown): Promise<unknown> {
  const res = await fetch(`${endpoint}/v3/kv/${call}`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`etcd ${call} at ${endpoint}: ${res.status} ${text}`);
  return JSON.parse(text);
}

function isOwn(key: string): boolean {
  const raw = Buffer.from(key, "base64").toString("latin1");
  return OWN.some((prefix) => raw.startsWith(prefix));
}

function b64(s: string): string {
  return Buffer.from(s, "latin1").toString("base64");
}
