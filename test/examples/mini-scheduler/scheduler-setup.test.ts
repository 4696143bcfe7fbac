/**
 * The scheduler's edges: options checked with errors that name them, one start per instance,
 * waits that honour their signal, and the binder's request and its errors (Status bodies and
 * bodies that are not).
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { Client, createClient, type Transport, type TransportRequest } from "kontroller/client";
import { ApiError, InvalidOptionError, isConflict } from "kontroller/core";
import type { Pod } from "kontroller/resources";
import { bindingSubresource } from "../../../examples/mini-scheduler/binder.ts";
import { Scheduler } from "../../../examples/mini-scheduler/scheduler.ts";

/** A transport that answers every request with `status` and `body`, and records requests. */
function fakeTransport(status: number, body: string) {
  const requests: TransportRequest[] = [];
  const transport: Transport = {
    async request(req) {
      requests.push(req);
      return {
        status,
        header: () => undefined,
        body: (async function* () {
          yield new TextEncoder().encode(body);
        })(),
        discard() {},
      };
    },
    async close() {},
    async destroy() {},
  };
  return { transport, requests };
}

const pod: Pod = {
  metadata: { name: "web", namespace: "shop", uid: "u-1" },
  spec: { containers: [] },
};

describe("mini-scheduler: setup and binder", () => {
  it("refuses bad options, naming them", () => {
    const client = createClient({ url: "http://127.0.0.1:1" });
    const bad: [string, Record<string, unknown>][] = [
      ["client", { client: {} }],
      ["schedulerName", { client, schedulerName: "" }],
      ["initialBackoffMs", { client, initialBackoffMs: -1 }],
      ["maxBackoffMs", { client, initialBackoffMs: 100, maxBackoffMs: 10 }],
      ["maxInFlightBinds", { client, maxInFlightBinds: 0 }],
      ["maxInFlightBinds", { client, maxInFlightBinds: 1.5 }],
      ["binder", { client, binder: {} }],
    ];
    for (const [option, options] of bad) {
      assert.throws(
        () => new Scheduler(options as never),
        (err: unknown) => err instanceof InvalidOptionError && err.option === option,
        option,
      );
    }
  });

  it("starts once, stops at once on an aborted signal, and rejects idle waits on abort", async () => {
    await using client = createClient({ url: "http://127.0.0.1:1" });
    const scheduler = new Scheduler({ client });
    const waiting = new AbortController();
    const idle = scheduler.whenIdle(waiting.signal);
    waiting.abort(new Error("gave up"));
    await assert.rejects(idle, /gave up/);
    await assert.rejects(scheduler.whenIdle(AbortSignal.abort(new Error("before"))), /before/);
    await scheduler.start(AbortSignal.abort());
    await assert.rejects(scheduler.start(new AbortController().signal), /start can be called once/);
    await scheduler.whenIdle(); // a stopped scheduler is idle
  });

  it("POSTs a Binding with the pod's uid as a precondition", async () => {
    const { transport, requests } = fakeTransport(
      201,
      '{"kind":"Status","status":"Success","code":201}',
    );
    await bindingSubresource(new Client({ transport })).bind(pod, "node-a");
    assert.equal(requests[0]?.method, "POST");
    assert.equal(requests[0]?.path, "/api/v1/namespaces/shop/pods/web/binding");
    assert.deepEqual(JSON.parse(String(requests[0]?.body)), {
      apiVersion: "v1",
      kind: "Binding",
      metadata: { name: "web", namespace: "shop", uid: "u-1" },
      target: { apiVersion: "v1", kind: "Node", name: "node-a" },
    });
  });

  it("rejects with the server's Status, or an ApiError carrying the HTTP code", async () => {
    const conflict = fakeTransport(
      409,
      JSON.stringify({
        kind: "Status",
        status: "Failure",
        reason: "Conflict",
        code: 409,
        message: "already assigned",
      }),
    );
    await assert.rejects(
      bindingSubresource(new Client({ transport: conflict.transport })).bind(pod, "n"),
      (err) => isConflict(err),
    );
    const gateway = fakeTransport(502, "<html>bad gateway</html>");
    await assert.rejects(
      bindingSubresource(new Client({ transport: gateway.transport })).bind(pod, "n"),
      (err: unknown) =>
        err instanceof ApiError && err.code === 502 && /bad gateway/.test(err.message),
    );
  });
});
