/**
 * compactMessage: the zeros decoding writes as Go's JSON does come out again, at any depth — the
 * body a JSON client sends — and nothing else does.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { decodeObject } from "./protobuf-codec.ts";
import { compactMessage } from "./protobuf-compact.ts";
import { encodeObject } from "./protobuf-encode.ts";
import { kindMessage } from "./protobuf-schema.ts";

const pod = {
  apiVersion: "v1",
  kind: "Pod",
  metadata: { name: "p" },
  spec: {
    containers: [{ name: "c", image: "nginx", ports: [{ containerPort: 80 }] }],
    volumes: [{ name: "v", configMap: { name: "settings" } }],
  },
  status: {
    conditions: [{ type: "Ready", status: "True" }],
    containerStatuses: [{ name: "c", ready: false, restartCount: 0, image: "", imageID: "" }],
  },
};

describe("compactMessage", () => {
  it("takes out the zeros decoding wrote, in lists and inline structs too", () => {
    const decoded = decodeObject(encodeObject(pod));
    const status = decoded.status as { containerStatuses: Record<string, unknown>[] };
    // Decoding wrote them: restartCount and ready have no omitempty; lastProbeTime is a Time.
    assert.equal(status.containerStatuses[0]!.restartCount, 0);
    assert.equal(status.containerStatuses[0]!.ready, false);
    assert.equal(
      (decoded.status as { conditions: Record<string, unknown>[] }).conditions[0]!.lastProbeTime,
      null,
    );
    compactMessage(decoded, kindMessage("v1", "Pod")!);
    assert.deepEqual(decoded, {
      ...pod,
      spec: {
        ...pod.spec,
        containers: [{ ...pod.spec.containers[0], resources: {} }],
      },
      // Structs held by value stay, as {}: a JSON body that leaves them out means the same.
      status: { ...pod.status, containerStatuses: [{ name: "c", state: {}, lastState: {} }] },
    });
  });

  it("keeps a value that is not the zero, and a zero behind a pointer", () => {
    const deployment = {
      apiVersion: "apps/v1",
      kind: "Deployment",
      metadata: { name: "d" },
      spec: { replicas: 0, selector: { matchLabels: { a: "b" } }, template: {}, strategy: {} },
    };
    const decoded = compactMessage(
      decodeObject(encodeObject(deployment)),
      kindMessage("apps/v1", "Deployment")!,
    );
    assert.equal((decoded.spec as { replicas: number }).replicas, 0);
    assert.deepEqual((decoded.spec as { selector: unknown }).selector, { matchLabels: { a: "b" } });
  });
});
