import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { KubeObject } from "../core/index.ts";
import { FakeClock, FakeListerWatcher } from "../testing/index.ts";
import { SharedInformer } from "./shared-informer.ts";
import { stripManagedFields } from "./transforms.ts";

const managed = [{ manager: "kubectl", operation: "Apply", fieldsType: "FieldsV1", fieldsV1: {} }];

describe("stripManagedFields", () => {
  it("drops metadata.managedFields and nothing else, without touching its input", () => {
    const obj: KubeObject = {
      apiVersion: "v1",
      kind: "ConfigMap",
      metadata: { name: "a", namespace: "ns", resourceVersion: "7", managedFields: managed },
    };
    const out = stripManagedFields(obj);
    assert.deepEqual(out, {
      apiVersion: "v1",
      kind: "ConfigMap",
      metadata: { name: "a", namespace: "ns", resourceVersion: "7" },
    });
    assert.deepEqual(obj.metadata?.managedFields, managed, "the input is not changed");
  });

  it("returns an object without managedFields as it is", () => {
    const obj: KubeObject = { metadata: { name: "a", resourceVersion: "1" } };
    assert.equal(stripManagedFields(obj), obj);
  });

  it("is accepted as an informer's transform: the cache holds no managedFields", async () => {
    const lw = new FakeListerWatcher<KubeObject>();
    lw.upsert({ metadata: { name: "a", namespace: "ns", managedFields: managed } });
    const informer = new SharedInformer<KubeObject>({
      listerWatcher: lw,
      clock: new FakeClock(),
      transform: stripManagedFields,
    });
    const running = informer.run();
    await informer.waitForSync();
    assert.equal(informer.store.get("ns/a")?.metadata?.managedFields, undefined);
    assert.equal(informer.store.get("ns/a")?.metadata?.name, "a");
    await informer.stop();
    await running;
  });
});
