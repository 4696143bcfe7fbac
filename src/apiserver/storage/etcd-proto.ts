/**
 * Protocol buffers for the etcd v3 KV requests and responses EtcdStorage sends and reads
 * (`etcdserverpb` Range, Put, DeleteRange, Txn, Compaction; `mvccpb.KeyValue`), by hand: the
 * generic codec costs more CPU than the call. Field numbers are those of etcd's rpc.proto and
 * kv.proto. Revisions are int64 on the wire and numbers here (exact below 2^53); fields this
 * client never reads (cluster and member ids, raft term, lease) are skipped.
 */

/** A key-value as etcd sends it. */
export interface RawKeyValue {
  key: Buffer;
  value: Buffer;
  create_revision: number;
  mod_revision: number;
  version: number;
}

export interface ResponseHeader {
  revision: number;
}

export interface RangeRequest {
  key: Buffer;
  range_end?: Buffer;
  limit?: number;
  revision?: number;
  serializable?: boolean;
  keys_only?: boolean;
  count_only?: boolean;
}

export interface RangeResponse {
  header: ResponseHeader;
  kvs: RawKeyValue[];
  more: boolean;
  count: number;
}

export interface PutRequest {
  key: Buffer;
  value: Buffer;
  prev_kv?: boolean;
}

export interface PutResponse {
  header: ResponseHeader;
  prev_kv: RawKeyValue | undefined;
}

export interface DeleteRangeRequest {
  key: Buffer;
  range_end?: Buffer;
  prev_kv?: boolean;
}

export interface DeleteRangeResponse {
  header: ResponseHeader;
  deleted: number;
  prev_kvs: RawKeyValue[];
}

/** A comparison of a txn; exactly one of the target values is set (a zero is sent too). */
export interface Compare {
  key: Buffer;
  target: "Version" | "Create" | "Mod";
  result: "Equal" | "Greater" | "Less" | "NotEqual";
  version?: number;
  create_revision?: number;
  mod_revision?: number;
}

export interface RequestOp {
  request_range?: RangeRequest;
  request_put?: PutRequest;
  request_delete_range?: DeleteRangeRequest;
}

export interface ResponseOp {
  response_range?: RangeResponse;
  response_put?: PutResponse;
  response_delete_range?: DeleteRangeResponse;
}

export interface TxnRequest {
  compare: Compare[];
  success: RequestOp[];
  failure: RequestOp[];
}

export interface TxnResponse {
  header: ResponseHeader;
  succeeded: boolean;
  responses: ResponseOp[];
}

export interface CompactionRequest {
  revision: number;
  physical?: boolean;
}

export interface CompactionResponse {
  header: ResponseHeader;
}

const TARGETS = { Version: 0, Create: 1, Mod: 2 } as const;
const RESULTS = { Equal: 0, Greater: 1, Less: 2, NotEqual: 3 } as const;

/** Appends protobuf fields to a list of chunks; `finish()` joins them. */
class Writer {
  readonly #chunks: (Buffer | number[])[] = [];
  #length = 0;

  varint(field: number, value: number): this {
    this.#raw(tagAndVarint(field, 0, value));
    return this;
  }

  bool(field: number, value: boolean | undefined): this {
    return value ? this.varint(field, 1) : this;
  }

  /** An int64 field, omitted when zero or absent (proto3 default). */
  int64(field: number, value: number | undefined): this {
    return value ? this.varint(field, value) : this;
  }

  bytes(field: number, value: Buffer | undefined): this {
    if (value === undefined) return this;
    this.#raw(tagAndVarint(field, 2, value.length));
    this.#chunks.push(value);
    this.#length += value.length;
    return this;
  }

  message(field: number, value: Buffer): this {
    return this.bytes(field, value);
  }

  finish(): Buffer {
    return Buffer.concat(
      this.#chunks.map((c) => (Buffer.isBuffer(c) ? c : Buffer.from(c))),
      this.#length,
    );
  }

  #raw(bytes: number[]): void {
    this.#chunks.push(bytes);
    this.#length += bytes.length;
  }
}

/** A field's tag followed by a varint: the value (wire type 0) or a length (wire type 2). */
function tagAndVarint(field: number, wireType: number, value: number): number[] {
  const out: number[] = [];
  pushVarint(out, field * 8 + wireType);
  pushVarint(out, value);
  return out;
}

function pushVarint(out: number[], value: number): void {
  let v = value;
  while (v > 127) {
    out.push((v % 128) | 128);
    v = Math.floor(v / 128);
  }
  out.push(v);
}

export function encodeRangeRequest(r: RangeRequest): Buffer {
  return new Writer()
    .bytes(1, r.key)
    .bytes(2, r.range_end)
    .int64(3, r.limit)
    .int64(4, r.revision)
    .bool(7, r.serializable)
    .bool(8, r.keys_only)
    .bool(9, r.count_only)
    .finish();
}

function encodePutRequest(r: PutRequest): Buffer {
  return new Writer().bytes(1, r.key).bytes(2, r.value).bool(4, r.prev_kv).finish();
}

export function encodeDeleteRangeRequest(r: DeleteRangeRequest): Buffer {
  return new Writer().bytes(1, r.key).bytes(2, r.range_end).bool(3, r.prev_kv).finish();
}

function encodeCompare(c: Compare): Buffer {
  const w = new Writer().varint(1, RESULTS[c.result]).varint(2, TARGETS[c.target]).bytes(3, c.key);
  // A oneof member is sent even when zero ("create_revision = 0": the key does not exist).
  if (c.target === "Version") w.varint(4, c.version ?? 0);
  else if (c.target === "Create") w.varint(5, c.create_revision ?? 0);
  else w.varint(6, c.mod_revision ?? 0);
  return w.finish();
}

function encodeRequestOp(op: RequestOp): Buffer {
  const w = new Writer();
  if (op.request_range) w.message(1, encodeRangeRequest(op.request_range));
  else if (op.request_put) w.message(2, encodePutRequest(op.request_put));
  else if (op.request_delete_range) w.message(3, encodeDeleteRangeRequest(op.request_delete_range));
  return w.finish();
}

export function encodeTxnRequest(t: TxnRequest): Buffer {
  const w = new Writer();
  for (const c of t.compare) w.message(1, encodeCompare(c));
  for (const op of t.success) w.message(2, encodeRequestOp(op));
  for (const op of t.failure) w.message(3, encodeRequestOp(op));
  return w.finish();
}

export function encodeCompactionRequest(c: CompactionRequest): Buffer {
  return new Writer().int64(1, c.revision).bool(2, c.physical).finish();
}

/** Reads the fields of one message: `on(field, wireType)` consumes each value or skips it. */
export class Reader {
  readonly buf: Buffer;
  pos: number;
  readonly end: number;

  constructor(buf: Buffer, start = 0, end = buf.length) {
    this.buf = buf;
    this.pos = start;
    this.end = end;
  }

  varint(): number {
    let result = 0;
    let scale = 1;
    for (;;) {
      if (this.pos >= this.end) throw new Error("protobuf: truncated varint");
      const b = this.buf[this.pos++]!;
      result += (b & 127) * scale;
      if (b < 128) return result;
      scale *= 128;
    }
  }

  /** A length-delimited field's extent, as a sub-reader. */
  sub(): Reader {
    const len = this.varint();
    const start = this.pos;
    this.pos += len;
    if (this.pos > this.end) throw new Error("protobuf: truncated field");
    return new Reader(this.buf, start, this.pos);
  }

  bytes(): Buffer {
    const r = this.sub();
    return this.buf.subarray(r.pos, r.end);
  }

  skip(wireType: number): void {
    if (wireType === 0) this.varint();
    else if (wireType === 1) this.pos += 8;
    else if (wireType === 2) this.sub();
    else if (wireType === 5) this.pos += 4;
    else throw new Error(`protobuf: unsupported wire type ${wireType}`);
  }

  fields(on: (field: number, wireType: number) => boolean): void {
    while (this.pos < this.end) {
      const tag = this.varint();
      const field = Math.floor(tag / 8);
      const wireType = tag % 8;
      if (!on(field, wireType)) this.skip(wireType);
    }
  }
}

function decodeHeader(r: Reader): ResponseHeader {
  const h: ResponseHeader = { revision: 0 };
  r.fields((f) => {
    if (f !== 3) return false;
    h.revision = r.varint();
    return true;
  });
  return h;
}

export function decodeKeyValue(r: Reader): RawKeyValue {
  const kv: RawKeyValue = {
    key: EMPTY,
    value: EMPTY,
    create_revision: 0,
    mod_revision: 0,
    version: 0,
  };
  r.fields((f) => {
    if (f === 1) kv.key = r.bytes();
    else if (f === 2) kv.create_revision = r.varint();
    else if (f === 3) kv.mod_revision = r.varint();
    else if (f === 4) kv.version = r.varint();
    else if (f === 5) kv.value = r.bytes();
    else return false;
    return true;
  });
  return kv;
}

const EMPTY = Buffer.alloc(0);

export function decodeRangeResponse(r: Reader): RangeResponse {
  const out: RangeResponse = { header: { revision: 0 }, kvs: [], more: false, count: 0 };
  r.fields((f) => {
    if (f === 1) out.header = decodeHeader(r.sub());
    else if (f === 2) out.kvs.push(decodeKeyValue(r.sub()));
    else if (f === 3) out.more = r.varint() !== 0;
    else if (f === 4) out.count = r.varint();
    else return false;
    return true;
  });
  return out;
}

function decodePutResponse(r: Reader): PutResponse {
  const out: PutResponse = { header: { revision: 0 }, prev_kv: undefined };
  r.fields((f) => {
    if (f === 1) out.header = decodeHeader(r.sub());
    else if (f === 2) out.prev_kv = decodeKeyValue(r.sub());
    else return false;
    return true;
  });
  return out;
}

export function decodeDeleteRangeResponse(r: Reader): DeleteRangeResponse {
  const out: DeleteRangeResponse = { header: { revision: 0 }, deleted: 0, prev_kvs: [] };
  r.fields((f) => {
    if (f === 1) out.header = decodeHeader(r.sub());
    else if (f === 2) out.deleted = r.varint();
    else if (f === 3) out.prev_kvs.push(decodeKeyValue(r.sub()));
    else return false;
    return true;
  });
  return out;
}

function decodeResponseOp(r: Reader): ResponseOp {
  const out: ResponseOp = {};
  r.fields((f) => {
    if (f === 1) out.response_range = decodeRangeResponse(r.sub());
    else if (f === 2) out.response_put = decodePutResponse(r.sub());
    else if (f === 3) out.response_delete_range = decodeDeleteRangeResponse(r.sub());
    else return false;
    return true;
  });
  return out;
}

export function decodeTxnResponse(r: Reader): TxnResponse {
  const out: TxnResponse = { header: { revision: 0 }, succeeded: false, responses: [] };
  r.fields((f) => {
    if (f === 1) out.header = decodeHeader(r.sub());
    else if (f === 2) out.succeeded = r.varint() !== 0;
    else if (f === 3) out.responses.push(decodeResponseOp(r.sub()));
    else return false;
    return true;
  });
  return out;
}

export function decodeCompactionResponse(r: Reader): CompactionResponse {
  const out: CompactionResponse = { header: { revision: 0 } };
  r.fields((f) => {
    if (f !== 1) return false;
    out.header = decodeHeader(r.sub());
    return true;
  });
  return out;
}
