/**
 * Binding a pod to a node: `POST /api/v1/namespaces/{ns}/pods/{name}/binding` with a `Binding`,
 * as kube-scheduler's DefaultBinder does. The API server sets `spec.nodeName` once; a pod
 * already bound answers 409.
 */
import type { Client } from "kontroller/client";
import { ApiError, isStatus } from "kontroller/core";
import type { Pod } from "kontroller/resources";

/** Binds pods to nodes; the seam where tests inject failures. */
export interface Binder {
  /**
   * Assigns `pod` to `node`. Rejects with an `ApiError` when the server refuses (409: bound
   * already, or the pod was replaced — its uid is a precondition; 404: deleted), or with a
   * transport error when no answer came.
   */
  bind(pod: Pod, node: string, signal?: AbortSignal): Promise<void>;
}

/** The kube-scheduler way: a Binding POSTed to the pod's `binding` subresource. */
export function bindingSubresource(client: Client): Binder {
  return {
    async bind(pod, node, signal) {
      const namespace = pod.metadata?.namespace ?? "default";
      const name = pod.metadata?.name ?? "";
      const path = `/api/v1/namespaces/${encodeURIComponent(namespace)}/pods/${encodeURIComponent(name)}/binding`;
      const body = JSON.stringify({
        apiVersion: "v1",
        kind: "Binding",
        metadata: { name, namespace, ...(pod.metadata?.uid ? { uid: pod.metadata.uid } : {}) },
        target: { apiVersion: "v1", kind: "Node", name: node },
      });
      const res = await client.transport.request({
        method: "POST",
        path,
        headers: { "content-type": "application/json", accept: "application/json" },
        body,
        ...(signal === undefined ? {} : { signal }),
      });
      const chunks: Uint8Array[] = [];
      for await (const chunk of res.body) chunks.push(chunk);
      if (res.status >= 200 && res.status < 300) return;
      const text = Buffer.concat(chunks).toString("utf8");
      let parsed: unknown;
      try {
        parsed = JSON.parse(text);
      } catch {
        parsed = undefined;
      }
      if (isStatus(parsed)) throw new ApiError(parsed);
      throw ApiError.of(
        "InternalError",
        `POST ${path}: HTTP ${res.status}: ${text.slice(0, 200)}`,
        undefined,
        res.status,
      );
    },
  };
}
