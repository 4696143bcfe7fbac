/**
 * The API server's two ways to stop: close() answers the requests in flight first, destroy()
 * cuts them. Both end open watches, and neither accepts new work.
 */
import assert from "node:assert/strict";
import { request } from "node:http";
import { describe, it } from "node:test";
import { ApiServer, MemoryStorage } from "kontroller/apiserver";

/** A MemoryStorage whose creates wait at a gate, so a request can be held in flight. */
function gatedStorage() {
  const storage = new MemoryStorage();
  let open: () => void = () => {};
  const gate = new Promise<void>((resolve) => {
    open = resolve;
  });
  let reached: () => void = () => {};
  const waiting = new Promise<void>((resolve) => {
    reached = resolve;
  });
  const create = storage.create.bind(storage);
  storage.create = async (key, value) => {
    if (key.includes("/configmaps/")) {
      reached();
      await gate;
    }
    return create(key, value);
  };
  return { storage, waiting, open };
}

/** POSTs a ConfigMap; resolves with the status code, or the error of a cut connection. */
function createConfigMap(url: string, name: string): Promise<number | Error> {
  return new Promise((resolve) => {
    const req = request(
      `${url}/api/v1/namespaces/default/configmaps`,
      { method: "POST", headers: { "content-type": "application/json" } },
      (res) => {
        res.resume();
        res.on("end", () => resolve(res.statusCode ?? 0));
        res.on("error", resolve);
      },
    );
    req.on("error", resolve);
    req.end(JSON.stringify({ apiVersion: "v1", kind: "ConfigMap", metadata: { name } }));
  });
}

/** Resolves once a promise has settled, or with "pending" after the event loop's next turns. */
async function state(p: Promise<unknown>): Promise<"settled" | "pending"> {
  let settled = false;
  void p.then(
    () => {
      settled = true;
    },
    () => {
      settled = true;
    },
  );
  for (let i = 0; i < 5; i++) await new Promise((resolve) => setImmediate(resolve));
  return settled ? "settled" : "pending";
}

describe("ApiServer shutdown", () => {
  it("close() waits for a request in flight, which is answered, and ends open watches", async () => {
    const { storage, waiting, open } = gatedStorage();
    const server = new ApiServer({ storage, compactionIntervalMs: 0 });
    const url = await server.listen();
    const watch = await fetch(`${url}/api/v1/namespaces/default/configmaps?watch=1`);
    const watchEnded = watch.text();
    const created = createConfigMap(url, "held");
    await waiting;
    const closing = server.close();
    await watchEnded;
    assert.equal(await state(closing), "pending", "close() waits for the request in flight");
    open();
    assert.equal(await created, 201);
    await closing;
    await storage.close();
  });

  it("destroy() cuts a request in flight and stops without waiting for it", async () => {
    const { storage, waiting, open } = gatedStorage();
    const server = new ApiServer({ storage, compactionIntervalMs: 0 });
    const url = await server.listen();
    const created = createConfigMap(url, "cut");
    await waiting;
    const destroyed = server.destroy();
    const outcome = await created;
    assert.ok(outcome instanceof Error, `the request was cut, not answered (${String(outcome)})`);
    open();
    await destroyed;
    await storage.close();
  });

  it("destroy() during a close() that waits ends it", async () => {
    const { storage, waiting, open } = gatedStorage();
    const server = new ApiServer({ storage, compactionIntervalMs: 0 });
    const url = await server.listen();
    const created = createConfigMap(url, "late");
    await waiting;
    const closing = server.close();
    assert.equal(await state(closing), "pending");
    await server.destroy();
    await closing;
    assert.ok((await created) instanceof Error);
    open();
    await storage.close();
  });

  it("after close() the server accepts no connection", async () => {
    const server = new ApiServer({ compactionIntervalMs: 0 });
    const url = await server.listen();
    await server.close();
    await server.close();
    const outcome = await createConfigMap(url, "after");
    assert.ok(outcome instanceof Error, "the connection is refused");
  });
});
