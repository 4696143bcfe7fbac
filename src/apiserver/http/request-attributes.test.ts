import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { requestAttributes } from "./request-attributes.ts";

const resource = (
  verb: string,
  group: string,
  version: string,
  resource: string,
  extra: { namespace?: string; name?: string; subresource?: string } = {},
) => ({
  kind: "resource",
  verb,
  namespace: extra.namespace ?? "",
  group,
  version,
  resource,
  subresource: extra.subresource ?? "",
  name: extra.name ?? "",
});

describe("requestAttributes (kube's RequestInfo)", () => {
  const cases: [string, string, unknown][] = [
    ["GET", "/api/v1/namespaces/ns/pods", resource("list", "", "v1", "pods", { namespace: "ns" })],
    ["GET", "/api/v1/pods?watch=true", resource("watch", "", "v1", "pods")],
    ["GET", "/api/v1/pods?watch=0", resource("list", "", "v1", "pods")],
    [
      "GET",
      "/api/v1/namespaces/ns/pods/web/log",
      resource("get", "", "v1", "pods", { namespace: "ns", name: "web", subresource: "log" }),
    ],
    [
      "HEAD",
      "/apis/apps/v1/namespaces/ns/deployments/d",
      resource("get", "apps", "v1", "deployments", { namespace: "ns", name: "d" }),
    ],
    [
      "PUT",
      "/apis/apps/v1/namespaces/ns/deployments/d/scale",
      resource("update", "apps", "v1", "deployments", {
        namespace: "ns",
        name: "d",
        subresource: "scale",
      }),
    ],
    ["POST", "/api/v1/namespaces", resource("create", "", "v1", "namespaces")],
    // A namespace's own path is in that namespace, as kube's authorizer sees it.
    [
      "GET",
      "/api/v1/namespaces/ns",
      resource("get", "", "v1", "namespaces", { namespace: "ns", name: "ns" }),
    ],
    [
      "PUT",
      "/api/v1/namespaces/ns/finalize",
      resource("update", "", "v1", "namespaces", {
        namespace: "ns",
        name: "ns",
        subresource: "finalize",
      }),
    ],
    [
      "DELETE",
      "/api/v1/namespaces/ns/configmaps",
      resource("deletecollection", "", "v1", "configmaps", { namespace: "ns" }),
    ],
    [
      "GET",
      "/api/v1/namespaces/ns/configmaps?fieldSelector=metadata.name%3Dc1&watch=1",
      resource("watch", "", "v1", "configmaps", { namespace: "ns", name: "c1" }),
    ],
    [
      "GET",
      "/api/v1/watch/namespaces/ns/pods",
      resource("watch", "", "v1", "pods", { namespace: "ns" }),
    ],
    [
      "GET",
      "/api/v1/proxy/namespaces/ns/pods/p/x/y",
      resource("proxy", "", "v1", "pods", { namespace: "ns", name: "p" }),
    ],
    ["GET", "/apis/apps/v1", { kind: "non-resource", verb: "get", path: "/apis/apps/v1" }],
    ["GET", "/api/v1", { kind: "non-resource", verb: "get", path: "/api/v1" }],
    ["HEAD", "/healthz", { kind: "non-resource", verb: "head", path: "/healthz" }],
    ["POST", "/metrics", { kind: "non-resource", verb: "post", path: "/metrics" }],
    [
      "GET",
      "/openapi/v3/api%2Fv1",
      { kind: "non-resource", verb: "get", path: "/openapi/v3/api/v1" },
    ],
  ];
  for (const [method, url, want] of cases) {
    it(`${method} ${url}`, () => {
      const q = url.indexOf("?");
      const path = q < 0 ? url : url.slice(0, q);
      const query = new URLSearchParams(q < 0 ? "" : url.slice(q + 1));
      assert.deepEqual(requestAttributes(method, path, query), want);
    });
  }

  it("takes no name from a field selector naming two, or one that is no path segment", () => {
    const q = (s: string) => new URLSearchParams({ fieldSelector: s });
    const name = (s: string) => {
      const a = requestAttributes("GET", "/api/v1/pods", q(s));
      return a.kind === "resource" ? a.name : undefined;
    };
    assert.equal(name("metadata.name==a,status.phase=Running"), "a");
    assert.equal(name("metadata.name=a,metadata.name=b"), "");
    assert.equal(name("metadata.name=a/b"), "");
    assert.equal(name("metadata.name!=a"), "");
  });
});
