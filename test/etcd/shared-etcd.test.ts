/**
 * Several API servers on one etcd serve the same data: a write through one is seen by a watch
 * and a consistent list on another, with the same resourceVersions, and optimistic concurrency
 * holds across them.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { type EtcdProcess, startEtcd } from "kontroller/testing";
import { call, configMap, watch } from "../apiserver/helpers.ts";
import { type Member, startMember } from "./rig.ts";

const cms = "/api/v1/namespaces/default/configmaps";

describe("two API servers on one etcd", () => {
  let etcd: EtcdProcess;
  let a: Member;
  let b: Member;
  before(async () => {
    etcd = await startEtcd();
    a = await startMember(etcd);
    b = await startMember(etcd);
  });
  after(async () => {
    await a[Symbol.asyncDispose]();
    await b[Symbol.asyncDispose]();
    await etcd.close();
  });

  it("a write through one is seen by a watch and a list on the other, resourceVersions agree", async () => {
    const list = await call(b.url, "GET", cms);
    const w = await watch(
      b.url,
      `${cms}?watch=1&resourceVersion=${list.body.metadata.resourceVersion}`,
    );
    const created = await call(a.url, "POST", cms, configMap("seen", { data: { from: "a" } }));
    assert.equal(created.status, 201);
    const rv = created.body.metadata.resourceVersion;
    const added = await w.next();
    assert.equal(added.type, "ADDED");
    assert.equal(added.object.metadata.name, "seen");
    assert.equal(added.object.metadata.resourceVersion, rv);
    assert.equal(added.object.metadata.uid, created.body.metadata.uid);

    const updated = await call(b.url, "PUT", `${cms}/seen`, {
      ...created.body,
      data: { from: "b" },
    });
    assert.equal(updated.status, 200);
    const modified = await w.next();
    w.close();
    assert.equal(modified.type, "MODIFIED");
    assert.equal(modified.object.metadata.resourceVersion, updated.body.metadata.resourceVersion);

    // A consistent read (resourceVersion "") on either server includes the other's last write.
    for (const m of [a, b]) {
      const got = await call(m.url, "GET", cms);
      const item = got.body.items.find(
        (i: { metadata: { name: string } }) => i.metadata.name === "seen",
      );
      assert.equal(item.metadata.resourceVersion, updated.body.metadata.resourceVersion);
      assert.ok(
        Number(got.body.metadata.resourceVersion) >= Number(updated.body.metadata.resourceVersion),
      );
      const single = await call(m.url, "GET", `${cms}/seen`);
      assert.equal(single.body.data.from, "b");
    }
  });

  it("interleaved conflicting updates through both: exactly one wins each round", async () => {
    let current = (await call(a.url, "POST", cms, configMap("contended"))).body;
    const rounds = 20;
    for (let round = 0; round < rounds; round++) {
      const [first, second] = round % 2 === 0 ? [a, b] : [b, a];
      const replies = await Promise.all(
        [first, second].map((m, i) =>
          call(m.url, "PUT", `${cms}/contended`, {
            ...current,
            data: { round: String(round), writer: String(i) },
          }),
        ),
      );
      const codes = replies.map((r) => r.status).sort();
      assert.deepEqual(codes, [200, 409], `round ${round}: ${JSON.stringify(codes)}`);
      const winner = replies.find((r) => r.status === 200)!.body;
      const loser = replies.find((r) => r.status === 409)!.body;
      assert.equal(loser.reason, "Conflict");
      for (const m of [a, b]) {
        const now = (await call(m.url, "GET", `${cms}/contended`)).body;
        assert.equal(now.metadata.resourceVersion, winner.metadata.resourceVersion);
        assert.deepEqual(now.data, winner.data);
      }
      current = winner;
    }
  });

  it("concurrent creates of one name through both: one 201, one 409 AlreadyExists", async () => {
    for (let round = 0; round < 10; round++) {
      const name = `race-${round}`;
      const replies = await Promise.all(
        [a, b].map((m) => call(m.url, "POST", cms, configMap(name))),
      );
      assert.deepEqual(replies.map((r) => r.status).sort(), [201, 409], `round ${round}`);
      assert.equal(replies.find((r) => r.status === 409)!.body.reason, "AlreadyExists");
    }
  });

  it("a delete through one ends the object's watch on the other with DELETED at the delete's resourceVersion", async () => {
    const created = (await call(b.url, "POST", cms, configMap("doomed"))).body;
    const w = await watch(
      a.url,
      `${cms}?watch=1&fieldSelector=metadata.name%3Ddoomed&resourceVersion=${created.metadata.resourceVersion}`,
    );
    const deleted = await call(b.url, "DELETE", `${cms}/doomed`);
    assert.equal(deleted.status, 200);
    const event = await w.next();
    w.close();
    assert.equal(event.type, "DELETED");
    assert.ok(
      Number(event.object.metadata.resourceVersion) > Number(created.metadata.resourceVersion),
    );
    assert.equal((await call(a.url, "GET", `${cms}/doomed`)).status, 404);
  });
});
