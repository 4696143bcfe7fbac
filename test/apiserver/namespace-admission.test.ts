/**
 * Namespace lifecycle admission reads the namespaces' watch cache, which (with etcd) hears of a
 * write only after the writer's response: a create right after this server deleted the namespace
 * must still be refused, as kube refuses it by looking namespaces it saw deleted up live.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  ApiServer,
  MemoryStorage,
  type Storage,
  type StorageWatchOptions,
  type WatchBatch,
} from "kontroller/apiserver";
import { call, configMap } from "./helpers.ts";

/** MemoryStorage whose watches hold their batches back while `hold()` is in force. */
class HeldWatchStorage extends MemoryStorage {
  #released: Promise<void> | undefined;
  #release: () => void = () => {};

  hold(): void {
    this.#released = new Promise((resolve) => {
      this.#release = resolve;
    });
  }

  release(): void {
    this.#released = undefined;
    this.#release();
  }

  override watch(prefix: string, options?: StorageWatchOptions): AsyncIterable<WatchBatch> {
    const inner = super.watch(prefix, options);
    const self = this;
    return {
      async *[Symbol.asyncIterator]() {
        for await (const batch of inner) {
          while (self.#released !== undefined) await self.#released;
          yield batch;
        }
      },
    };
  }
}

describe("namespace admission after this server deleted the namespace", () => {
  it("refuses a create in it while the namespaces' cache has not seen the deletion yet", async () => {
    const storage: HeldWatchStorage & Storage = new HeldWatchStorage();
    const server = new ApiServer({ storage });
    const url = await server.listen();
    try {
      const cache = server.registry.caches().get("/registry/namespaces/")!;
      const created = await call(url, "POST", "/api/v1/namespaces", { metadata: { name: "gone" } });
      assert.equal(created.status, 201);
      await cache.waitUntilFresh(Number(created.body.metadata.resourceVersion));
      assert.equal(
        (await call(url, "POST", "/api/v1/namespaces/gone/configmaps", configMap("before"))).status,
        201,
      );

      storage.hold();
      const deleted = await call(url, "DELETE", "/api/v1/namespaces/gone");
      assert.equal(deleted.body.status.phase, "Terminating");
      assert.ok(
        cache.resourceVersion < Number(deleted.body.metadata.resourceVersion),
        "the cache has not seen the deletion",
      );
      const during = await call(url, "POST", "/api/v1/namespaces/gone/configmaps", configMap("a"));
      assert.equal(during.status, 403);
      assert.equal(during.body.details.causes[0].reason, "NamespaceTerminating");

      storage.release();
      await cache.waitUntilFresh(Number(deleted.body.metadata.resourceVersion));
      const after = await call(url, "POST", "/api/v1/namespaces/gone/configmaps", configMap("b"));
      assert.equal(after.status, 403, "refused from the cache once it caught up");
    } finally {
      storage.release();
      await server.close();
      await storage.close();
    }
  });
});
