/**
 * fast-check: random owner graphs (ConfigMaps and Secrets owning each other, cycles, blocking
 * and non-blocking references, references to owners that never existed) and random deletions
 * with every propagation policy converge to what the reference model of kube's garbage
 * collector says, after the setup and after each deletion. `GC_RUNS=1000` runs more.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import { createClient, type ResourceClient } from "kontroller/client";
import type { KubeObject } from "kontroller/core";
import { configMaps, namespaces, secrets } from "kontroller/resources";
import { startTestServer } from "kontroller/testing";
import { describeState, GcModel, GHOST, type ModelState, type Policy } from "./gc-model.ts";
import { ClusterView } from "./helpers.ts";

interface Spec {
  kind: "ConfigMap" | "Secret";
  /** Indices of other objects. */
  owners: number[];
  block: boolean;
  ghost: boolean;
}

const scenario = fc.integer({ min: 2, max: 6 }).chain((n) =>
  fc.record({
    objects: fc.array(
      fc.record({
        kind: fc.constantFrom("ConfigMap" as const, "Secret" as const),
        owners: fc.uniqueArray(fc.nat(n - 1), { maxLength: 3 }),
        block: fc.boolean(),
        ghost: fc.integer({ min: 0, max: 4 }).map((x) => x === 0),
      }),
      { minLength: n, maxLength: n },
    ),
    deletions: fc.array(
      fc.record({
        target: fc.nat(n - 1),
        policy: fc.constantFrom<Policy>("Background", "Foreground", "Orphan"),
      }),
      { minLength: 1, maxLength: 3 },
    ),
  }),
);

/** The server's state in the model's terms: name → owner names. */
function serverState(view: ClusterView, uidToName: Map<string, string>): ModelState {
  const state: ModelState = new Map();
  for (const kind of ["ConfigMap", "Secret"]) {
    for (const o of view.list(kind)) {
      const refs = o.metadata?.ownerReferences ?? [];
      state.set(o.metadata?.name ?? "", new Set(refs.map((r) => uidToName.get(r.uid) ?? GHOST)));
    }
  }
  return state;
}

describe("garbage collector converges to the reference model", { timeout: 300_000 }, () => {
  it("for random owner graphs and deletions (fast-check)", async () => {
    await using s = await startTestServer();
    await using client = createClient({ url: s.url });
    let run = 0;
    await fc.assert(
      fc.asyncProperty(scenario, async ({ objects, deletions }) => {
        const ns = `run-${run++}`;
        await client.resource(namespaces).create({ metadata: { name: ns } });
        const api = (kind: Spec["kind"]): ResourceClient<KubeObject> =>
          client.resource<KubeObject>(kind === "ConfigMap" ? configMaps : secrets, {
            namespace: ns,
          });
        await using view = await ClusterView.start(s.url, [configMaps, secrets], ns);
        const names = objects.map((_, i) => `o${i}`);
        const created: KubeObject[] = [];
        for (const [i, o] of objects.entries()) {
          created.push(await api(o.kind).create({ metadata: { name: names[i]! } }));
        }
        const uidToName = new Map(created.map((o, i) => [o.metadata?.uid ?? "", names[i]!]));
        const owners = objects.map((o, i) => o.owners.filter((j) => j !== i));
        for (const [i, o] of objects.entries()) {
          const refs = owners[i]!.map((j) => ({
            apiVersion: "v1",
            kind: objects[j]!.kind,
            name: names[j]!,
            uid: created[j]!.metadata?.uid ?? "",
            blockOwnerDeletion: o.block,
          }));
          if (o.ghost)
            refs.push({
              apiVersion: "v1",
              kind: "ConfigMap",
              name: GHOST,
              uid: `${GHOST}-${ns}-${i}`,
              blockOwnerDeletion: o.block,
            });
          if (refs.length > 0)
            await api(o.kind).patch(names[i]!, "merge", { metadata: { ownerReferences: refs } });
        }
        const model = new GcModel(
          objects.map((o, i) => [
            names[i]!,
            [...owners[i]!.map((j) => names[j]!), ...(o.ghost ? [GHOST] : [])],
          ]),
        );
        const converge = (what: string) =>
          view.until(
            () => describeState(serverState(view, uidToName)) === describeState(model.state),
            `${what}: expected ${describeState(model.state)}`,
            10_000,
          );
        await converge("after the setup");
        for (const d of deletions) {
          const name = names[d.target]!;
          if (!model.state.has(name)) continue;
          await api(objects[d.target]!.kind).delete(name, { propagationPolicy: d.policy });
          model.delete(name, d.policy);
          await converge(`after deleting ${name} (${d.policy})`);
        }
        assert.equal(describeState(serverState(view, uidToName)), describeState(model.state));
      }),
      { numRuns: Number(process.env.GC_RUNS ?? 40) },
    );
  });
});
