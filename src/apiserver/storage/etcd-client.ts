import type {
  Etcd3,
  ICompactionRequest,
  ICompactionResponse,
  IDeleteRangeRequest,
  IDeleteRangeResponse,
  IOptions,
  IRangeRequest,
  IRangeResponse,
  ITxnRequest,
  ITxnResponse,
} from "etcd3";

/** An etcd3 client and its KV service, as {@link EtcdStorage} uses them. */
export interface EtcdClient {
  readonly etcd3: Etcd3;
  readonly kv: EtcdKv;
}

/** etcd3 calls only `execute` on a policy: this one runs each call once, with no retries. */
const NEVER_ABORTED = new AbortController().signal;
const ONCE = {
  execute(fn: (context: { signal: AbortSignal }) => unknown, signal?: AbortSignal) {
    try {
      return Promise.resolve(fn({ signal: signal ?? NEVER_ABORTED }));
    } catch (err) {
      return Promise.reject(err);
    }
  },
} as unknown as NonNullable<NonNullable<IOptions["faultHandling"]>["global"]>;

/**
 * An etcd3 client for `endpoints` (the package is loaded now, not when kontroller/apiserver
 * is): no retries of its own (a call fails once, as {@link EtcdStorage} reports it), no
 * message size limit, prompt reconnection, keepalive pings etcd accepts.
 */
export async function createEtcdClient(
  endpoints: readonly string[],
  timeoutMs: number,
): Promise<EtcdClient> {
  const { Etcd3 } = await import("etcd3");
  const etcd3 = new Etcd3({
    hosts: [...endpoints],
    grpcOptions: {
      // grpc-js refuses messages over 4 MiB by default: a list of a few thousand objects.
      "grpc.max_receive_message_length": -1,
      "grpc.max_send_message_length": -1,
      // No transparent retries: each call fails once and the caller decides; and the retry
      // layer costs every call a buffer.
      "grpc.enable_retries": 0,
      // No channelz bookkeeping (per-call counters and timestamps nobody reads).
      "grpc.enable_channelz": 0,
      // Reconnect soon after etcd is back (grpc-js waits up to 2 min by default).
      "grpc.initial_reconnect_backoff_ms": 100,
      "grpc.max_reconnect_backoff_ms": 1000,
      // etcd refuses pings more often than every 5 s.
      "grpc.keepalive_time_ms": 10_000,
      "grpc.keepalive_timeout_ms": 5_000,
    },
    defaultCallOptions: (context) => (context.isStream ? {} : { deadline: Date.now() + timeoutMs }),
    faultHandling: { host: () => ONCE, global: ONCE },
  });
  return { etcd3, kv: new EtcdKv(etcd3, timeoutMs) };
}

/** grpc-js `connectivityState.SHUTDOWN`: the channel was closed. */
const SHUTDOWN = 4;

/** What a grpc-js client call needs from etcd3's connection pool. */
interface Connection {
  readonly client: { getChannel(): { getConnectivityState(connect: boolean): number } } & Record<
    string,
    (
      req: unknown,
      metadata: unknown,
      options: { deadline: number },
      done: (err: Error | null, res: unknown) => void,
    ) => unknown
  >;
  readonly metadata: unknown;
  readonly resource: unknown;
}

/** The part of etcd3's (untyped) connection pool this module uses. */
interface Pool {
  withConnection<R>(service: "KV", fn: (connection: Connection) => R): Promise<R>;
  markFailed(resource: unknown, err: Error): void;
}

/**
 * etcd's KV service, called straight on the grpc-js client of etcd3's connection: etcd3's own
 * `exec` path (policies, host shuffling, call-option merging, several promise hops per call)
 * costs about as much CPU as the call, which an API server pays on every request.
 *
 * Invariant: `#connection` is the connection in use until a call on it fails; then etcd3 is
 * told (it drops the host's clients when the failure is a connection's) and the next call
 * asks for a connection again.
 */
export class EtcdKv {
  readonly #pool: Pool;
  readonly #timeoutMs: number;
  #connection: Promise<Connection> | undefined;

  constructor(client: Etcd3, timeoutMs: number) {
    const pool = (client as unknown as { pool?: Partial<Pool> }).pool;
    if (typeof pool?.withConnection !== "function" || typeof pool.markFailed !== "function") {
      throw new Error(
        "EtcdStorage: this version of the etcd3 package has no connection pool where 1.1 has one; use etcd3 ^1.1.2",
      );
    }
    this.#pool = pool as Pool;
    this.#timeoutMs = timeoutMs;
  }

  range(req: IRangeRequest): Promise<IRangeResponse> {
    return this.#call("range", req);
  }

  txn(req: ITxnRequest): Promise<ITxnResponse> {
    return this.#call("txn", req);
  }

  deleteRange(req: IDeleteRangeRequest): Promise<IDeleteRangeResponse> {
    return this.#call("deleteRange", req);
  }

  compact(req: ICompactionRequest): Promise<ICompactionResponse> {
    return this.#call("compact", req);
  }

  async #call<T>(method: string, req: unknown, retried = false): Promise<T> {
    this.#connection ??= this.#pool.withConnection("KV", (c) => c);
    const pending = this.#connection;
    let connection: Connection;
    try {
      connection = await pending;
    } catch (err) {
      if (this.#connection === pending) this.#connection = undefined;
      throw err;
    }
    if (connection.client.getChannel().getConnectivityState(false) === SHUTDOWN && !retried) {
      // etcd3 closed the host's clients after a failure (of a watch, say): take the new ones.
      if (this.#connection === pending) this.#connection = undefined;
      return this.#call(method, req, true);
    }
    const drop = () => {
      if (this.#connection === pending) this.#connection = undefined;
    };
    let settled: Promise<T>;
    try {
      settled = new Promise<T>((resolve, reject) => {
        connection.client[method]!(
          req,
          connection.metadata,
          { deadline: Date.now() + this.#timeoutMs },
          (err, res) => {
            if (err === null) {
              resolve(res as T);
              return;
            }
            drop();
            this.#pool.markFailed(connection.resource, err);
            reject(err);
          },
        );
      });
    } catch (err) {
      // etcd3 closed this client after a failure elsewhere ("Channel has been shut down"):
      // take the host's new one.
      drop();
      if (retried) throw err;
      return this.#call(method, req, true);
    }
    return settled;
  }
}
