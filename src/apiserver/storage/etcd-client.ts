import type { Etcd3, IOptions } from "etcd3";
import { GrpcUnaryClient } from "./etcd-grpc.ts";
import {
  type CompactionRequest,
  type CompactionResponse,
  type DeleteRangeRequest,
  type DeleteRangeResponse,
  decodeCompactionResponse,
  decodeDeleteRangeResponse,
  decodeRangeResponse,
  decodeTxnResponse,
  encodeCompactionRequest,
  encodeDeleteRangeRequest,
  encodeRangeRequest,
  encodeTxnRequest,
  type RangeRequest,
  type RangeResponse,
  type TxnRequest,
  type TxnResponse,
} from "./etcd-proto.ts";

/**
 * What {@link EtcdStorage} talks to etcd with: the etcd3 client for the watch stream, and
 * {@link EtcdKv} for the KV calls every request makes.
 */
export interface EtcdClient {
  readonly etcd3: Etcd3;
  readonly kv: EtcdKv;
  close(): void;
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
 * The clients for `endpoints` (the etcd3 package is loaded now, not when
 * kontroller/apiserver is). The etcd3 client does no retries of its own (a failure is
 * reported once, as {@link EtcdStorage} maps it), has no message size limit (grpc-js refuses
 * 4 MiB by default), reconnects within a second of etcd's return, and pings as etcd allows.
 */
export async function createEtcdClient(
  endpoints: readonly string[],
  timeoutMs: number,
): Promise<EtcdClient> {
  const { Etcd3 } = await import("etcd3");
  const etcd3 = new Etcd3({
    hosts: [...endpoints],
    grpcOptions: {
      "grpc.max_receive_message_length": -1,
      "grpc.max_send_message_length": -1,
      "grpc.enable_retries": 0,
      "grpc.enable_channelz": 0,
      // grpc-js waits up to 2 min between reconnection attempts by default.
      "grpc.initial_reconnect_backoff_ms": 100,
      "grpc.max_reconnect_backoff_ms": 1000,
      // etcd refuses pings more often than every 5 s.
      "grpc.keepalive_time_ms": 10_000,
      "grpc.keepalive_timeout_ms": 5_000,
    },
    defaultCallOptions: (context) => (context.isStream ? {} : { deadline: Date.now() + timeoutMs }),
    faultHandling: { host: () => ONCE, global: ONCE },
  });
  const kv = new EtcdKv(endpoints, timeoutMs);
  return {
    etcd3,
    kv,
    close: () => {
      kv.close();
      etcd3.close();
    },
  };
}

/**
 * etcd's KV service (`etcdserverpb.KV`): Range, Txn, DeleteRange and Compact, with the
 * messages coded by hand (etcd-proto.ts) over a plain HTTP/2 connection (etcd-grpc.ts). Per
 * call this costs well under half the CPU of the same call through etcd3 and grpc-js.
 */
export class EtcdKv {
  readonly #rpc: GrpcUnaryClient;

  constructor(endpoints: readonly string[], timeoutMs: number) {
    this.#rpc = new GrpcUnaryClient(endpoints, timeoutMs);
  }

  async range(req: RangeRequest): Promise<RangeResponse> {
    return decodeRangeResponse(
      await this.#rpc.call("/etcdserverpb.KV/Range", encodeRangeRequest(req)),
    );
  }

  async txn(req: TxnRequest): Promise<TxnResponse> {
    return decodeTxnResponse(await this.#rpc.call("/etcdserverpb.KV/Txn", encodeTxnRequest(req)));
  }

  async deleteRange(req: DeleteRangeRequest): Promise<DeleteRangeResponse> {
    return decodeDeleteRangeResponse(
      await this.#rpc.call("/etcdserverpb.KV/DeleteRange", encodeDeleteRangeRequest(req)),
    );
  }

  async compact(req: CompactionRequest): Promise<CompactionResponse> {
    return decodeCompactionResponse(
      await this.#rpc.call("/etcdserverpb.KV/Compact", encodeCompactionRequest(req)),
    );
  }

  close(): void {
    this.#rpc.close();
  }
}
