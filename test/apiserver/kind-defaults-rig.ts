/**
 * The rig of the kind-defaults suites: a built-in object created over HTTP, read back, and
 * compared field by field with what kube-apiserver 1.36 answers to the same request.
 */
import assert from "node:assert/strict";
import { it } from "node:test";
import type { TestServer } from "kontroller/testing";
import { call, type Loose } from "./helpers.ts";

/** One kind: what is sent, and what kube returns. */
export interface KindCase {
  /** The collection (`/apis/storage.k8s.io/v1/storageclasses`). */
  readonly path: string;
  readonly apiVersion: string;
  readonly kind: string;
  /** The body besides apiVersion, kind and metadata. */
  readonly body: Record<string, unknown>;
  /**
   * What kube returns besides metadata, each top-level field compared in full (`status`
   * undefined: kube returns none), and the metadata fields checked.
   */
  readonly want: Record<string, unknown> & { metadata?: Record<string, unknown> };
  /** Fields the writer owns in `managedFields` because defaulting set them (`f:spec.f:x`). */
  readonly owns?: readonly string[];
}

/** A field set's member at a dotted path of `f:`/`k:` keys (`f:spec.k:{"name":"a.b"}`), if present. */
function fieldAt(fields: Loose, path: string): unknown {
  let cur = fields;
  for (const part of path.split(/\.(?=[fkv]:)/)) cur = cur?.[part];
  return cur;
}

/** Creates `c`'s object named `name` on the server, then checks both the answer and a read. */
export async function checkKind(s: TestServer, c: KindCase, name = "k"): Promise<Loose> {
  const created = await call(s.url, "POST", c.path, {
    apiVersion: c.apiVersion,
    kind: c.kind,
    metadata: { name },
    ...c.body,
  });
  assert.equal(created.status, 201, JSON.stringify(created.body));
  const read = await call(s.url, "GET", `${c.path}/${name}`);
  assert.equal(read.status, 200);
  for (const o of [created.body, read.body]) {
    const { metadata, ...rest } = c.want;
    for (const [key, value] of Object.entries(rest)) assert.deepEqual(o[key], value, key);
    for (const [key, value] of Object.entries(metadata ?? {})) {
      assert.deepEqual(o.metadata[key], value, `metadata.${key}`);
    }
    const fields = o.metadata.managedFields?.[0]?.fieldsV1;
    for (const path of c.owns ?? []) {
      assert.ok(fieldAt(fields, path) !== undefined, `the writer owns ${path}`);
    }
  }
  return read.body;
}

/** One test per case: `defaults a <Kind> as kube-apiserver does`. */
export function kindCases(server: () => TestServer, cases: readonly KindCase[]): void {
  for (const c of cases) {
    it(`reads a ${c.kind} back as kube-apiserver returns it`, async () => {
      await checkKind(server(), c);
    });
  }
}
