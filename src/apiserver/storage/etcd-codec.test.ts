import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { IEvent, IKeyValue } from "etcd3";
import { classifyEtcdError, EtcdKeys, prefixEnd, toStorageEvents } from "./etcd-codec.ts";

function kv(key: string, value: string, mod: number, create = mod, version = 1): IKeyValue {
  return {
    key: Buffer.from(key),
    value: Buffer.from(value),
    create_revision: String(create),
    mod_revision: String(mod),
    version: String(version),
    lease: "0",
  };
}

describe("etcd codec", () => {
  it("ends a prefix range after the last key under it", () => {
    assert.deepEqual(prefixEnd(Buffer.from("/a/")), Buffer.from("/a0"));
    assert.deepEqual(prefixEnd(Buffer.from([0x61, 0xff, 0xff])), Buffer.from([0x62]));
    assert.deepEqual(prefixEnd(Buffer.from([0xff])), Buffer.from([0]), "no end: every key");
    assert.deepEqual(prefixEnd(Buffer.alloc(0)), Buffer.from([0]));
  });

  it("maps storage keys under a prefix and back, and knows keys outside it", () => {
    const keys = new EtcdKeys("/t1");
    assert.equal(keys.toEtcd("/registry/pods/a").toString(), "/t1/registry/pods/a");
    assert.equal(keys.fromEtcd(Buffer.from("/t1/registry/pods/a")), "/registry/pods/a");
    assert.equal(keys.fromEtcd(Buffer.from("/t2/registry/pods/a")), undefined);
    assert.equal(keys.fromEtcd(Buffer.from("/t")), undefined);
    assert.equal(keys.rangeEnd("/registry/").toString(), "/t1/registry0");
    assert.equal(new EtcdKeys("").fromEtcd(Buffer.from("/x")), "/x");
  });

  it("turns watch events under the prefix into storage events, with previous values", () => {
    const events: IEvent[] = [
      { type: "Put", kv: kv("/p/a", "1", 5), prev_kv: undefined as unknown as IKeyValue },
      { type: "Put", kv: kv("/p/a", "2", 6, 5, 2), prev_kv: kv("/p/a", "1", 5) },
      { type: "Put", kv: kv("/q/elsewhere", "x", 7), prev_kv: undefined as unknown as IKeyValue },
      { type: "Delete", kv: kv("/p/a", "", 8, 0, 0), prev_kv: kv("/p/a", "2", 6, 5, 2) },
      { type: "Delete", kv: kv("/p/b", "", 9, 0, 0), prev_kv: undefined as unknown as IKeyValue },
    ];
    const out = toStorageEvents(new EtcdKeys("/p"), events);
    assert.deepEqual(out, [
      { type: "put", kv: { key: "/a", value: "1", createRevision: 5, modRevision: 5, version: 1 } },
      {
        type: "put",
        kv: { key: "/a", value: "2", createRevision: 5, modRevision: 6, version: 2 },
        prev: { key: "/a", value: "1", createRevision: 5, modRevision: 5, version: 1 },
      },
      {
        type: "delete",
        key: "/a",
        revision: 8,
        prev: { key: "/a", value: "2", createRevision: 5, modRevision: 6, version: 2 },
      },
      {
        type: "delete",
        key: "/b",
        revision: 9,
        prev: { key: "/b", value: "", createRevision: 0, modRevision: 0, version: 0 },
      },
    ]);
  });

  it("classifies etcd client errors: compacted, future, transient, other", () => {
    const cases: [string, string | undefined][] = [
      ["11 OUT_OF_RANGE: etcdserver: mvcc: required revision has been compacted", "Compacted"],
      [
        "11 OUT_OF_RANGE: etcdserver: mvcc: required revision is a future revision",
        "FutureRevision",
      ],
      [
        "14 UNAVAILABLE: No connection established. Last error: connect ECONNREFUSED",
        "Unavailable",
      ],
      ["4 DEADLINE_EXCEEDED: Deadline exceeded", "Unavailable"],
      ["1 CANCELLED: Call cancelled", "Unavailable"],
      ["Channel has been shut down", "Unavailable"],
      ["2 UNKNOWN: etcdserver: request timed out", "Unavailable"],
      ["2 UNKNOWN: etcdserver: leader changed", "Unavailable"],
      ["3 INVALID_ARGUMENT: etcdserver: request is too large", undefined],
      ["7 PERMISSION_DENIED: etcdserver: permission denied", undefined],
    ];
    for (const [message, code] of cases)
      assert.equal(classifyEtcdError(new Error(message)), code, message);
    assert.equal(classifyEtcdError("not an error"), undefined);
  });
});
