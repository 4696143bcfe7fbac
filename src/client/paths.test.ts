import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { parseLabelSelector } from "../core/index.ts";
import { configMaps, deployments, namespaces } from "../resources/index.ts";
import { collectionPath, objectPath, queryString, withQuery } from "./paths.ts";

describe("paths", () => {
  it("builds core and group paths, namespaced or across namespaces", () => {
    assert.equal(collectionPath(configMaps, "default"), "/api/v1/namespaces/default/configmaps");
    assert.equal(collectionPath(configMaps, undefined), "/api/v1/configmaps");
    assert.equal(collectionPath(deployments, "x"), "/apis/apps/v1/namespaces/x/deployments");
    assert.equal(
      objectPath(deployments, "x", "web", "status"),
      "/apis/apps/v1/namespaces/x/deployments/web/status",
    );
  });

  it("ignores a namespace for cluster-scoped kinds and escapes names", () => {
    assert.equal(
      objectPath(namespaces, "ignored", "kube-system"),
      "/api/v1/namespaces/kube-system",
    );
    assert.equal(objectPath(configMaps, "a b", "c/d"), "/api/v1/namespaces/a%20b/configmaps/c%2Fd");
  });

  it("builds query strings from defined values, escaping selectors", () => {
    assert.equal(queryString({}), "");
    assert.equal(
      queryString({
        watch: "true",
        labelSelector: parseLabelSelector("app in (a,b),!x"),
        limit: 500,
        continue: undefined,
        allowWatchBookmarks: true,
      }),
      "?watch=true&labelSelector=app%20in%20(a%2Cb)%2C!x&limit=500&allowWatchBookmarks=true",
    );
    assert.equal(withQuery("/p", ""), "/p");
    assert.equal(withQuery("/p", "?a=1"), "/p?a=1");
  });
});
