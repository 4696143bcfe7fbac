import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import { ApiError, type KubeObject } from "../../core/index.ts";
import { FakeClock } from "../../testing/index.ts";
import { builtinType } from "./builtin-schema.ts";
import { FieldManager } from "./field-manager.ts";

/*
 * Server-side apply and updates on a ConfigMap's `data`, against a reference model that says,
 * key by key, who owns what and what the data is:
 * - an apply by A sets the keys it applies; a key whose value that changes and that someone else
 *   owns is a conflict (nothing happens) unless forced (A takes it); afterwards A owns exactly
 *   the keys it applied, and a key A owned and no longer applies goes unless someone else owns
 *   it; data emptied that way goes too;
 * - an update by U owns the keys it adds or changes (taking them from everyone); a removed key
 *   (or all of data) is owned by no one; U also owns `data` itself (".") if it makes it exist;
 * - while nobody owns anything, updates are not tracked (kube's rule), and the next apply first
 *   gives all there is to `before-first-apply`.
 */

type Data = Record<string, string> | undefined;
type Op =
  | { t: "apply"; m: string; data: Data; force: boolean }
  | { t: "update"; m: string; data: Data };

/** "." is data itself; other items are keys of data. */
class Model {
  data: Data;
  owners = new Map<string, Set<string>>();

  constructor(creator: string, data: Data) {
    this.data = data === undefined ? undefined : { ...data };
    if (data !== undefined) this.#own(creator, [".", ...Object.keys(data)]);
  }

  #own(m: string, items: string[]): void {
    for (const i of items) {
      const s = this.owners.get(i) ?? new Set();
      s.add(m);
      this.owners.set(i, s);
    }
  }

  #tracked(): boolean {
    return [...this.owners.values()].some((s) => s.size > 0);
  }

  #drop(item: string): void {
    this.owners.delete(item);
  }

  update(u: string, next: Data): void {
    const tracked = this.#tracked();
    const before = this.data;
    this.data = next === undefined ? undefined : { ...next };
    if (before !== undefined && next === undefined) {
      this.owners.clear();
      return;
    }
    for (const k of Object.keys(before ?? {})) if (next?.[k] === undefined) this.#drop(k);
    if (!tracked) return;
    const changed = Object.keys(next ?? {}).filter((k) => before?.[k] !== next![k]);
    if (before === undefined && next !== undefined) changed.push(".");
    for (const k of changed) this.owners.set(k, new Set([u]));
  }

  /** The conflicts (item → other owners), or undefined if the apply went through. */
  apply(a: string, config: Data, force: boolean): [string, string][] | undefined {
    const untracked = !this.#tracked() && this.data !== undefined;
    const owners = (k: string) =>
      untracked && (k === "." || this.data?.[k] !== undefined)
        ? ["before-first-apply"]
        : [...(this.owners.get(k) ?? [])];
    const changed = Object.keys(config ?? {}).filter((k) => this.data?.[k] !== config![k]);
    const conflicts: [string, string][] = [];
    for (const k of changed) for (const m of owners(k)) if (m !== a) conflicts.push([k, m]);
    if (conflicts.length > 0 && !force) return conflicts; // nothing is written
    if (untracked) this.#own("before-first-apply", [".", ...Object.keys(this.data!)]);
    const last = [...this.owners].filter(([, s]) => s.has(a)).map(([k]) => k);
    if (config !== undefined) this.data = { ...(this.data ?? {}), ...config };
    for (const k of changed) this.owners.set(k, new Set([a]));
    for (const k of Object.keys(config ?? {})) this.#own(a, [k]);
    const dropped = last.filter((k) => config?.[k] === undefined);
    for (const k of dropped) this.owners.get(k)!.delete(a);
    for (const k of dropped)
      if (this.owners.get(k)!.size === 0) {
        delete this.data![k];
        this.#drop(k);
      }
    if (
      dropped.some((k) => k !== ".") &&
      this.data !== undefined &&
      Object.keys(this.data).length === 0
    ) {
      this.data = undefined; // emptied by removal
      this.#drop(".");
    }
    return undefined;
  }

  /** Who owns what: `manager → items`, managers that own nothing left out. */
  ownership(): Map<string, string[]> {
    const out = new Map<string, string[]>();
    for (const [item, s] of this.owners)
      for (const m of s) out.set(m, [...(out.get(m) ?? []), item].sort());
    return out;
  }
}

/** Who owns what according to an object's managedFields (only `data` is looked at). */
function ownership(o: KubeObject): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const e of o.metadata?.managedFields ?? []) {
    const data = (e.fieldsV1 as Record<string, Record<string, unknown>> | undefined)?.["f:data"];
    if (data === undefined) continue;
    const keys = Object.keys(data);
    const items = keys.length === 0 ? ["."] : keys.map((k) => (k === "." ? "." : k.slice(2)));
    out.set(e.manager!, items.sort());
  }
  return out;
}

const KEYS = ["a", "b", "c"];
const data = fc.option(
  fc
    .dictionary(fc.constantFrom(...KEYS), fc.constantFrom("1", "2"), { maxKeys: 3 })
    .map((d) => ({ ...d })),
  { nil: undefined, freq: 4 },
);
const op: fc.Arbitrary<Op> = fc.oneof(
  fc.record({
    t: fc.constant("apply" as const),
    m: fc.constantFrom("A1", "A2", "A3"),
    data,
    force: fc.boolean(),
  }),
  fc.record({ t: fc.constant("update" as const), m: fc.constantFrom("U1", "U2"), data }),
);

const cm = (d: Data, meta: KubeObject["metadata"] = {}) =>
  ({
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: { ...meta, name: "x", namespace: "ns" },
    ...(d === undefined ? {} : { data: d }),
  }) as KubeObject;

describe("server-side apply ownership (property)", () => {
  it("agrees with the reference model on data, owners and conflicts", () => {
    fc.assert(
      fc.property(data, fc.array(op, { maxLength: 12 }), (initial, ops) => {
        const clock = new FakeClock();
        const fm = new FieldManager({
          apiVersion: "v1",
          kind: "ConfigMap",
          type: builtinType("", "v1", "ConfigMap")!,
          clock,
        });
        const model = new Model("U1", initial);
        let live = cm(initial);
        fm.update(undefined, live, "U1");
        for (const o of ops) {
          clock.advance(1000);
          if (o.t === "update") {
            const next = cm(o.data, { ...live.metadata, managedFields: undefined });
            fm.update(live, next, o.m);
            model.update(o.m, o.data);
            live = next;
          } else {
            const want = model.apply(o.m, o.data, o.force);
            try {
              live = fm.apply(live, cm(o.data), o.m, o.force);
              assert.equal(want, undefined, `conflicts expected: ${JSON.stringify(want)}`);
            } catch (err) {
              if (!(err instanceof ApiError) || err.code !== 409) throw err;
              assert.ok(want !== undefined, `unexpected conflict: ${err.message}`);
              const got = (err.details?.causes ?? []).map((c) => `${c.field} ${c.message}`);
              const expected = want.map(
                ([k, m]) =>
                  `.data.${k} conflict with "${m}"${m.startsWith("A") ? "" : " using v1"}`,
              );
              assert.deepEqual(got.sort(), expected.sort());
            }
          }
          assert.deepEqual((live as { data?: unknown }).data, model.data, JSON.stringify(o));
          assert.deepEqual(ownership(live), model.ownership(), JSON.stringify(o));
        }
      }),
      { numRuns: 1000, ...(process.env.FC_SEED ? { seed: Number(process.env.FC_SEED) } : {}) },
    );
  });
});
