import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { createClient } from "../client/index.ts";
import { isInvalid, isNotFound } from "../core/index.ts";
import { configMaps, eventsV1 } from "../resources/index.ts";
import { FakeClock, startTestServer } from "../testing/index.ts";
import { createOrPatch, createOrUpdate } from "./create-or-update.ts";
import { EventRecorder } from "./event-recorder.ts";
import { addFinalizer, hasFinalizer, removeFinalizer } from "./finalizers.ts";

const F = "example.com/cleanup";

describe("controller helpers against an API server", () => {
  it("adds and removes finalizers, safe against concurrent writers", async () => {
    await using server = await startTestServer();
    await using client = createClient({ url: server.url });
    const cms = client.resource(configMaps, { namespace: "default" });
    const created = await cms.create({ metadata: { name: "a" }, data: { k: "v" } });

    const added = await addFinalizer(cms, created, F);
    assert.equal(hasFinalizer(added, F), true);
    assert.equal(await addFinalizer(cms, added, F), added, "no request when already there");

    // Someone else writes; our copy is now stale. The change still lands, theirs is kept.
    await cms.update({ ...added, data: { k: "theirs" } });
    const both = await addFinalizer(cms, created, "example.com/second");
    assert.deepEqual(both.metadata?.finalizers, [F, "example.com/second"]);
    assert.equal(both.data?.k, "theirs");

    const removed = await removeFinalizer(cms, both, "example.com/second");
    assert.deepEqual(removed.metadata?.finalizers, [F]);

    // Deleting: the finalizer keeps it; removing the last one lets it go; none may be added.
    await cms.delete("a");
    const deleting = await cms.get("a");
    assert.ok(deleting.metadata?.deletionTimestamp);
    await assert.rejects(addFinalizer(cms, deleting, "example.com/late"), isInvalid);
    await removeFinalizer(cms, deleting, F);
    await assert.rejects(cms.get("a"), isNotFound);
  });

  it("createOrUpdate creates, leaves alone, and updates", async () => {
    await using server = await startTestServer();
    await using client = createClient({ url: server.url });
    const cms = client.resource(configMaps);
    const desired = { metadata: { name: "b", namespace: "default" } };
    const set = (v: string) => (cm: { data?: Record<string, string> }) => {
      cm.data = { k: v };
    };
    const first = await createOrUpdate(cms, structuredClone(desired), set("1"));
    assert.equal(first.result, "created");
    const again = await createOrUpdate(cms, structuredClone(desired), set("1"));
    assert.equal(again.result, "unchanged");
    assert.equal(again.object.metadata?.resourceVersion, first.object.metadata?.resourceVersion);
    const changed = await createOrUpdate(cms, structuredClone(desired), set("2"));
    assert.equal(changed.result, "updated");
    assert.equal((await cms.inNamespace("default").get("b")).data?.k, "2");
    await assert.rejects(
      createOrUpdate(cms, structuredClone(desired), (cm) => {
        cm.metadata!.name = "other";
      }),
      /mutate changed the object's name/,
    );
  });

  it("createOrPatch sends only the change", async () => {
    await using server = await startTestServer();
    await using client = createClient({ url: server.url });
    const cms = client.resource(configMaps, { namespace: "default" });
    const made = await createOrPatch(
      cms,
      { metadata: { name: "c", namespace: "default" } },
      (cm) => {
        cm.data = { mine: "1" };
      },
    );
    assert.equal(made.result, "created");
    // Another writer adds a key; our patch touches only ours.
    await cms.patch("c", "merge", { data: { theirs: "x" } });
    const patched = await createOrPatch(
      cms,
      { metadata: { name: "c", namespace: "default" } },
      (cm) => {
        cm.data = { ...cm.data, mine: "2" };
      },
    );
    assert.equal(patched.result, "updated");
    assert.deepEqual(patched.object.data, { mine: "2", theirs: "x" });
    const same = await createOrPatch(
      cms,
      { metadata: { name: "c", namespace: "default" } },
      () => {},
    );
    assert.equal(same.result, "unchanged");
  });

  it("records events and folds repeats into a series", async () => {
    await using server = await startTestServer();
    await using client = createClient({ url: server.url });
    const clock = new FakeClock();
    const events = client.resource(eventsV1);
    const recorder = new EventRecorder({
      events,
      reportingController: "example.com/test",
      reportingInstance: "test-1",
      clock,
    });
    const cm = await client
      .resource(configMaps, { namespace: "default" })
      .create({ metadata: { name: "e" } });
    for (let i = 0; i < 3; i++)
      recorder.record(cm, { type: "Warning", reason: "Failed", action: "Reconcile", note: "boom" });
    recorder.record(cm, { type: "Normal", reason: "Synced", action: "Reconcile" });
    await recorder.flush();
    // Only the recorder's: a real kube-apiserver records Events of its own in "default".
    const recorded = async () =>
      (await events.inNamespace("default").list()).items.filter(
        (e) => e.reportingController === "example.com/test",
      );
    let list = await recorded();
    assert.equal(list.length, 2, "one Event per distinct event, not per repeat");
    const failed = list.find((e) => e.reason === "Failed")!;
    assert.equal(failed.type, "Warning");
    assert.equal(failed.regarding?.name, "e");
    assert.equal(failed.regarding?.uid, cm.metadata?.uid);
    assert.equal(failed.reportingController, "example.com/test");
    assert.equal(failed.series?.count, 3);
    // After the window, the same event starts a new Event.
    await clock.advanceAsync(7 * 60_000);
    recorder.record(cm, { type: "Warning", reason: "Failed", action: "Reconcile", note: "boom" });
    await recorder.close();
    list = await recorded();
    assert.equal(list.filter((e) => e.reason === "Failed").length, 2);
    recorder.record(cm, { type: "Normal", reason: "Ignored", action: "Reconcile" });
    await recorder.flush();
    assert.equal((await recorded()).length, 3, "nothing recorded after close");
  });

  it("reports event write failures instead of throwing", async () => {
    await using server = await startTestServer();
    await using client = createClient({ url: server.url });
    const errors: unknown[] = [];
    const recorder = new EventRecorder({
      events: client.resource(eventsV1),
      reportingController: "example.com/test",
      reportingInstance: "test-1",
      onError: (e) => errors.push(e),
    });
    // The namespace does not exist: the create fails with 404.
    recorder.record(
      { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "x", namespace: "nowhere" } },
      {
        type: "Normal",
        reason: "R",
        action: "A",
      },
    );
    await recorder.flush();
    assert.equal(errors.length, 1);
    assert.ok(isNotFound(errors[0]));
  });
});
