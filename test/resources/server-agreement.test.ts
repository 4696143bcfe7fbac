/**
 * One schema, one verdict: the CRD of each definition is accepted by the embedded API server,
 * and an object the server refuses is refused with the same causes (field paths and messages)
 * that `definition.validate()` reports on the client.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { createClient } from "kontroller/client";
import { ApiError, isInvalid } from "kontroller/core";
import { customResourceDefinitions, defineResource, isEstablished } from "kontroller/resources";
import { startTestServer, waitFor } from "kontroller/testing";
import { Type } from "typebox";
import { HealthMonitor } from "../../examples/health-monitor/health-monitor.ts";
import { User } from "../../examples/user-namespace/user.ts";

const Widget = defineResource({
  group: "test.example.com",
  version: "v1",
  kind: "Widget",
  plural: "widgets",
  spec: Type.Object({
    size: Type.Integer({ minimum: 1, maximum: 10 }),
    color: Type.Union([Type.Literal("red"), Type.Literal("blue")]),
    name: Type.String({ minLength: 2, pattern: "^[a-z]+$" }),
    tags: Type.Optional(Type.Array(Type.String(), { maxItems: 2, uniqueItems: true })),
    port: Type.Optional(Type.Union([Type.Integer(), Type.String()])),
    labels: Type.Optional(Type.Record(Type.String(), Type.String({ maxLength: 3 }))),
  }),
});

describe("client and server agree on every definition", () => {
  it("accepts the CRD of every example definition", async () => {
    await using server = await startTestServer({ controllers: false });
    await using client = createClient({ url: server.url });
    for (const def of [User, HealthMonitor, Widget]) {
      const crd = await client.resource(customResourceDefinitions).create(def.crd());
      const established = await waitFor(
        client.resource(customResourceDefinitions),
        crd.metadata?.name ?? "",
        isEstablished,
      );
      assert.ok(established, def.kind);
    }
  });

  it("refuses invalid objects with the same field paths and messages as the client", async () => {
    await using server = await startTestServer({ controllers: false });
    await using client = createClient({ url: server.url });
    await client.resource(customResourceDefinitions).create(Widget.crd());
    await waitFor(
      client.resource(customResourceDefinitions),
      "widgets.test.example.com",
      isEstablished,
    );
    const widgets = client.resource(Widget, { namespace: "default" });
    const bad: unknown[] = [
      { size: 0, color: "red", name: "ok" },
      { size: 11, color: "green", name: "a" },
      { size: "big", color: "red", name: "ABC" },
      { size: 1, color: "red", name: "ok", tags: ["a", "a", "b"] },
      { size: 1, color: "red", name: "ok", port: 1.5, labels: { a: "long" } },
      { color: "red" },
    ];
    for (const [i, spec] of bad.entries()) {
      const obj = {
        apiVersion: "test.example.com/v1",
        kind: "Widget",
        metadata: { name: `w${i}`, namespace: "default" },
        spec,
      };
      const local = Widget.validate(obj);
      assert.ok(local.length > 0, `case ${i} is invalid locally`);
      const err = await widgets.create(obj as never).then(
        () => assert.fail(`case ${i} was accepted by the server`),
        (e: unknown) => e,
      );
      assert.ok(err instanceof ApiError && isInvalid(err), `case ${i}: ${err}`);
      const remote = err.details?.causes ?? [];
      const key = (c: { field?: string; message?: string }) => `${c.field} | ${c.message}`;
      assert.deepEqual(remote.map(key).sort(), local.map(key).sort(), `case ${i}`);
    }
  });

  it("refuses a CRD whose default or list-map keys kube would refuse, where defineResource does", async () => {
    await using server = await startTestServer({ controllers: false });
    await using client = createClient({ url: server.url });
    const crd = Widget.crd();
    const spec = crd.spec.versions[0]!.schema.openAPIV3Schema.properties!.spec!;
    spec.properties!.size = { type: "integer", minimum: 1, default: 0 };
    spec.properties!.ports = {
      type: "array",
      "x-kubernetes-list-type": "map",
      "x-kubernetes-list-map-keys": ["name"],
      items: { type: "object", properties: { name: { type: "string" } } },
    };
    const err = await client
      .resource(customResourceDefinitions)
      .create(crd)
      .then(
        () => assert.fail("the server accepted the CRD"),
        (e: unknown) => e,
      );
    assert.ok(err instanceof ApiError && isInvalid(err), String(err));
    // One version: kube reports its schema where its internal form keeps a shared one.
    const at = "spec.validation.openAPIV3Schema.properties[spec].properties";
    const causes = err.details?.causes ?? [];
    assert.deepEqual(
      causes.map((c) => c.field),
      [`${at}[size].default`, `${at}[ports].items.properties[name].default`],
    );
    assert.match(causes[0]?.message ?? "", /should be greater than or equal to 1/);
    assert.match(causes[1]?.message ?? "", /must have a default or be a required property/);
    // defineResource refuses the same schema, naming the first of them.
    assert.throws(
      () =>
        defineResource({
          group: "test.example.com",
          version: "v1",
          kind: "Widget",
          plural: "widgets",
          spec: Type.Object({ size: Type.Integer({ minimum: 1, default: 0 }) }),
        }),
      /option openAPIV3Schema\.properties\[spec\]\.properties\[size\]\.default would be refused/,
    );
  });
});
