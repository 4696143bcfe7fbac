/**
 * The Kubernetes protobuf codec against JSON, in the same run, over one PodList of 10 000 Pods
 * as kube-apiserver stores them (labels, annotations, an owner, managed fields, one or two
 * containers with ports, env, resource quantities, mounts and probes, volumes, tolerations,
 * status with conditions and container statuses):
 *
 * - `encode-10k-pods`: the list object to bytes — `encodeObject` (the `k8s\0` envelope) against
 *   `JSON.stringify` and its UTF-8 bytes.
 * - `decode-10k-pods`: those bytes back to the list object — `decodeObject` against `JSON.parse`
 *   of the UTF-8 text.
 *
 * The JSON list's items keep the apiVersion and kind they are stored with; protobuf's cannot
 * (the Pod message has no type meta), which costs JSON about 30 bytes a Pod.
 *
 * Each round reports `ms` and `mb_per_s`, the megabytes (10^6) per second of that format's own
 * bytes; `encode-10k-pods` also reports each format's size as `bytes`. Before measuring, the
 * suite checks that the protobuf round trip gives back the list JSON gives back, so that a broken
 * codec fails the run instead of being measured. `--quick` encodes 1 000 Pods, same names.
 */
import assert from "node:assert/strict";
import { isDeepStrictEqual } from "node:util";
import { compactMessage, decodeObject, encodeObject, kindMessage } from "kontroller/resources";
import { heapUsedAfterGc, type Measured, type Suite, timed } from "./harness.ts";
import { pod } from "./protobuf/pods.ts";
import { runSync } from "./protobuf/sync.ts";

export const suite: Suite = {
  name: "protobuf",
  description:
    "Kubernetes protobuf vs JSON: encode and decode a list of 10 000 Pods, and an informer's sync of them",
  async run(ctx) {
    const count = ctx.quick ? 1_000 : 10_000;
    const list = {
      apiVersion: "v1",
      kind: "PodList",
      metadata: { resourceVersion: "2851043" },
      items: Array.from({ length: count }, (_, i) => pod(i)),
    };
    const json = utf8.encode(JSON.stringify(list));
    const protobuf = encodeObject(list);
    checkRoundTrip(decodeObject(protobuf), JSON.parse(utf8decoder.decode(json)));

    const rate = (bytes: number, ms: number): Measured => ({
      ms: { value: ms, unit: "ms" },
      mb_per_s: { value: bytes / 1e6 / (ms / 1000), unit: "MB/s" },
    });
    // One round is one call over the whole list (0.5-1.5 s on 2 cores). Each starts after a
    // full collection, so that no round pays for the garbage of the one before; one warm-up
    // round keeps JIT warm-up out of the figures, and 15 rounds steady the median (single rounds
    // of either format vary by 1.5x on a 2-core machine).
    const round = (bytes: number, work: () => unknown) => async () => {
      heapUsedAfterGc();
      const { ms } = await timed(work);
      return rate(bytes, ms);
    };
    const options = { warmupRounds: ctx.quick ? 0 : 1, minRounds: 15 };
    await ctx.compare(
      "encode-10k-pods",
      {
        protobuf: round(protobuf.length, () => encodeObject(list)),
        json: round(json.length, () => utf8.encode(JSON.stringify(list))),
      },
      options,
    );
    ctx.report({
      workload: "encode-10k-pods",
      impl: "protobuf",
      metric: "bytes",
      value: protobuf.length,
      unit: "bytes",
    });
    ctx.report({
      workload: "encode-10k-pods",
      impl: "json",
      metric: "bytes",
      value: json.length,
      unit: "bytes",
    });
    await ctx.compare(
      "decode-10k-pods",
      {
        protobuf: round(protobuf.length, () => decodeObject(protobuf)),
        json: round(json.length, () => JSON.parse(utf8decoder.decode(json))),
      },
      options,
    );
    await runSync(ctx);
  },
};

/**
 * Throws unless `decoded` (the protobuf round trip) equals `expected` (the JSON one) up to what
 * protobuf cannot say and what Go's JSON adds: a list's items carry no apiVersion and kind (the
 * Pod message has no type meta); decoding writes the zeros and empty structs Go's JSON writes
 * (`restartCount: 0`, `lastProbeTime: null`, `resources: {}`), which both sides lose here. The
 * message shows the first Pod that differs, not the whole list, whose diff would not fit in
 * memory.
 */
function checkRoundTrip(decoded: Json, expected: Json): void {
  const what = "the protobuf round trip of the PodList differs from its JSON round trip";
  const pod = kindMessage("v1", "Pod")!;
  const plain = (p: unknown) => withoutEmpty(compactMessage(structuredClone(p) as Json, pod));
  const items = ((decoded.items ?? []) as unknown[]).map(plain);
  const want = (expected.items as Json[]).map(({ apiVersion, kind, ...p }) => plain(p));
  assert.equal(items.length, want.length, `${what}: its item count`);
  const at = want.findIndex((p, i) => !isDeepStrictEqual(items[i], p));
  if (at !== -1) assert.deepEqual(items[at], want[at], `${what}: item ${at}`);
  assert.deepEqual({ ...decoded, items: [] }, { ...expected, items: [] }, what);
}

/** `value` without nulls and empty objects, at any depth. */
function withoutEmpty(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutEmpty);
  if (typeof value !== "object" || value === null) return value;
  const entries = Object.entries(value)
    .map(([k, v]) => [k, withoutEmpty(v)] as const)
    .filter(([, v]) => v !== null && !(typeof v === "object" && Object.keys(v).length === 0));
  return Object.fromEntries(entries);
}

type Json = Record<string, unknown>;

const utf8 = new TextEncoder();
const utf8decoder = new TextDecoder();
