import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { evaluateJsonPath } from "../crd/json-path.ts";
import { compareKubeAwareVersions, storageVersionHash } from "./discovery.ts";
import { negotiate } from "./negotiate.ts";
import { parsePath } from "./request-info.ts";
import { humanDuration } from "./table.ts";

describe("parsePath", () => {
  it("parses resource paths as kube's RequestInfoFactory does", () => {
    assert.deepEqual(parsePath("/api/v1/namespaces/ns/configmaps/a"), {
      kind: "resource",
      group: "",
      version: "v1",
      namespace: "ns",
      namespaced: true,
      resource: "configmaps",
      name: "a",
      subresource: "",
      subpath: "",
    });
    assert.deepEqual(parsePath("/api/v1/namespaces/ns/finalize"), {
      kind: "resource",
      group: "",
      version: "v1",
      namespace: "",
      namespaced: false,
      resource: "namespaces",
      name: "ns",
      subresource: "finalize",
      subpath: "",
    });
    assert.equal(
      (parsePath("/apis/apps/v1/deployments") as { resource: string }).resource,
      "deployments",
    );
    assert.deepEqual(parsePath("/apis/apps"), { kind: "group", group: "apps" });
    // What follows a subresource is its path (a proxy's); routing refuses it elsewhere (404).
    assert.equal(
      (parsePath("/api/v1/namespaces/ns/pods/a/proxy/some/path/") as { subpath: string }).subpath,
      "/some/path/",
    );
    assert.equal((parsePath("/api/v1/nodes/n/proxy/") as { subpath: string }).subpath, "/");
    assert.equal((parsePath("/api/v1/nodes/n/proxy") as { subpath: string }).subpath, "");
    assert.equal(parsePath("/api/v1/%E0%A4%A").kind, "unknown");
  });
});

describe("negotiate", () => {
  it("picks JSON, Table or metadata from Accept, and is 406 for what it cannot serve", () => {
    assert.deepEqual(negotiate(undefined, true), { kind: "json" });
    assert.deepEqual(
      negotiate("application/json;as=Table;v=v1;g=meta.k8s.io,application/json", true),
      { kind: "table", apiVersion: "meta.k8s.io/v1" },
    );
    assert.deepEqual(
      negotiate("application/json;as=Table;v=v1;g=meta.k8s.io,application/json", false),
      { kind: "json" },
    );
    assert.deepEqual(
      negotiate("application/json;as=PartialObjectMetadata;v=v1;g=meta.k8s.io", true),
      { kind: "metadata" },
    );
    assert.deepEqual(negotiate("application/vnd.kubernetes.protobuf,*/*", true), { kind: "json" });
    assert.throws(
      () => negotiate("application/vnd.kubernetes.protobuf", true),
      (e: { code?: number }) => e.code === 406,
    );
  });
});

describe("discovery helpers", () => {
  it("orders versions GA > beta > alpha and hashes storage versions as kube does", () => {
    assert.deepEqual(
      ["v1alpha1", "v1beta1", "foo", "v2", "v1", "v1beta2"].sort(compareKubeAwareVersions),
      ["v2", "v1", "v1beta2", "v1beta1", "v1alpha1", "foo"],
    );
    // The values kube-apiserver lists for these kinds.
    assert.equal(storageVersionHash("", "v1", "ConfigMap"), "qFsyl6wFWjQ=");
    assert.equal(storageVersionHash("", "v1", "Event"), "r2yiGXH7wu8=");
  });
});

describe("table helpers", () => {
  it("formats ages like kube's HumanDuration", () => {
    const s = 1000;
    assert.deepEqual(
      [
        -5 * s,
        5 * s,
        150 * s,
        600 * s,
        4 * 3600 * s,
        30 * 3600 * s,
        50 * 3600 * s,
        800 * 86400 * s,
      ].map(humanDuration),
      ["<invalid>", "5s", "2m30s", "10m", "4h", "30h", "2d2h", "2y70d"],
    );
  });

  it("evaluates printer-column JSONPaths", () => {
    const o = {
      spec: {
        n: 3,
        list: [
          { type: "A", s: "x" },
          { type: "Ready", s: "True" },
        ],
      },
      "a.b": 1,
    };
    assert.equal(evaluateJsonPath(o, ".spec.n"), 3);
    assert.equal(evaluateJsonPath(o, ".spec.list[1].s"), "True");
    assert.equal(evaluateJsonPath(o, '.spec.list[?(@.type=="Ready")].s'), "True");
    assert.equal(evaluateJsonPath(o, "['a.b']"), 1);
    assert.equal(evaluateJsonPath(o, ".spec.missing.deeper"), undefined);
  });
});
