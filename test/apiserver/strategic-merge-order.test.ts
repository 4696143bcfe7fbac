/**
 * The order of a list a strategic merge patch merges, as kube-apiserver orders it, on either
 * backend: the patch's items in the patch's order, each server-only item kept before a patch item
 * only where the live list had it first — so an item new to the list lands before the server's
 * items not yet placed. Lists of scalars (finalizers) and of objects by merge key (containers).
 */
import assert from "node:assert/strict";
import { after, before, it } from "node:test";
import { startTestServer, type TestServer } from "kontroller/testing";
import { call, type Loose } from "./helpers.ts";

const PATH = "/api/v1/namespaces/default/podtemplates";
const SMP = { "content-type": "application/strategic-merge-patch+json" };

let s: TestServer;
before(async () => {
  s = await startTestServer({ controllers: false });
});
after(() => s.close());

it("merges finalizers and containers in kube's order", async () => {
  const created = await call(s.url, "POST", PATH, {
    apiVersion: "v1",
    kind: "PodTemplate",
    metadata: { name: "ordered", finalizers: ["x/a", "x/c"] },
    template: {
      spec: {
        containers: [
          { name: "a", image: "i" },
          { name: "c", image: "i" },
        ],
      },
    },
  });
  assert.equal(created.status, 201, JSON.stringify(created.body));
  const patch = async (finalizers: string[], containers: Loose[]) => {
    const r = await call(
      s.url,
      "PATCH",
      `${PATH}/ordered`,
      { metadata: { finalizers }, template: { spec: { containers } } },
      SMP,
    );
    assert.equal(r.status, 200, JSON.stringify(r.body));
    const names = r.body.template.spec.containers.map((c: Loose) => `${c.name}=${c.image}`);
    return [r.body.metadata.finalizers, names];
  };
  assert.deepEqual(
    await patch(
      ["x/b", "x/c"],
      [
        { name: "b", image: "j" },
        { name: "c", image: "k" },
      ],
    ),
    [
      ["x/b", "x/a", "x/c"],
      ["b=j", "a=i", "c=k"],
    ],
  );
  assert.deepEqual(
    await patch(
      ["x/d"],
      [
        { name: "a", image: "z" },
        { name: "d", image: "j" },
      ],
    ),
    [
      ["x/d", "x/b", "x/a", "x/c"],
      ["b=j", "a=z", "d=j", "c=k"],
    ],
  );
  const cleared = await call(
    s.url,
    "PATCH",
    `${PATH}/ordered`,
    { metadata: { finalizers: null } },
    SMP,
  );
  assert.equal(cleared.status, 200, JSON.stringify(cleared.body));
});
