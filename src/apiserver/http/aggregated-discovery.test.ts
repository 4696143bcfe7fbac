import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { ApiError } from "../../core/index.ts";
import { type ResourceDefinitionInit, resourceDefinition } from "../../resources/index.ts";
import { ALL_VERBS, type ServedResource } from "../registry/registry.ts";
import { aggregatedDiscovery, discoveryContentType } from "./aggregated-discovery.ts";
import { discoveredResources } from "./discovered.ts";
import { type DiscoverySource, groupList, resourceList } from "./discovery.ts";
import { negotiateDiscovery } from "./negotiate.ts";

/** What client-go and kubectl 1.32 send on `/api` and `/apis`. */
const CLIENT_GO_ACCEPT =
  "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList,application/json";

/** A served resource as the registry holds it; discovery reads no store. */
function served(
  init: ResourceDefinitionInit,
  subresources: string[] = [],
  verbs: readonly string[] = ALL_VERBS,
): ServedResource {
  return {
    def: resourceDefinition(init),
    store: undefined as never,
    subresources,
    verbs,
    strategicMerge: false,
  };
}

/** A custom resource's version, served as its CRD says. */
function custom(init: ResourceDefinitionInit, subresources: string[]): ServedResource {
  return {
    ...served(init, subresources),
    custom: { printerColumns: [], storageVersion: "v1" },
  };
}

const stored = {
  all: () => [
    served(
      { group: "", version: "v1", kind: "Namespace", plural: "namespaces", scope: "Cluster" },
      ["status", "finalize"],
    ),
    served({
      group: "",
      version: "v1",
      kind: "ConfigMap",
      plural: "configmaps",
      shortNames: ["cm"],
    }),
    served({ group: "", version: "v1", kind: "Pod", plural: "pods" }, ["status", "binding"]),
    served({ group: "apps", version: "v1", kind: "Deployment", plural: "deployments" }, [
      "status",
      "scale",
    ]),
    // A cluster-scoped CRD with two versions, the older one installed first.
    custom(
      {
        group: "example.com",
        version: "v1beta1",
        kind: "Gizmo",
        plural: "gizmos",
        scope: "Cluster",
        categories: ["all"],
      },
      ["status", "scale"],
    ),
    custom(
      {
        group: "example.com",
        version: "v1",
        kind: "Gizmo",
        plural: "gizmos",
        scope: "Cluster",
        shortNames: ["gz"],
        categories: ["all"],
      },
      ["status", "scale"],
    ),
  ],
};

/** What discovery lists of them (with the subresources the HTTP layer handles, the reviews…). */
const registry: DiscoverySource = { all: () => discoveredResources(stored) };

const TOP = { topLevel: true, core: false }; // /apis
const API = { topLevel: true, core: true }; // /api
const GROUP = { topLevel: false, core: false }; // /apis/apps

/** The aggregated version negotiateDiscovery picks for `/apis`. */
const agg = (accept: string | undefined) => negotiateDiscovery(accept, TOP).aggregated;

/** Asserts kube's 406 for `accept` on `route`, and returns its message. */
function refused(accept: string, route: typeof TOP): string {
  let message = "";
  assert.throws(
    () => negotiateDiscovery(accept, route),
    (err: unknown) => {
      assert.ok(err instanceof ApiError && err.status.code === 406, String(err));
      message = err.status.message ?? "";
      return true;
    },
  );
  return message;
}

describe("negotiateDiscovery", () => {
  it("picks aggregated v2 for client-go's Accept header, the first range it names", () => {
    assert.equal(agg(CLIENT_GO_ACCEPT), "v2");
    assert.equal(negotiateDiscovery(CLIENT_GO_ACCEPT, API).aggregated, "v2");
  });

  it("keeps the legacy answer for plain JSON, no Accept, or an empty one", () => {
    for (const accept of [undefined, "", "application/json", "*/*", "application/json, */*"]) {
      assert.equal(agg(accept), undefined, String(accept));
    }
    assert.equal(
      agg("application/json,application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList"),
      undefined,
      "plain JSON first wins",
    );
  });

  it("answers aggregated v2 in protobuf where that comes first", () => {
    const accept =
      "application/vnd.kubernetes.protobuf;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json";
    assert.deepEqual(negotiateDiscovery(accept, TOP), { aggregated: "v2", protobuf: true });
  });

  it("serves no v2beta1, as kube-apiserver 1.36: skipped for the next range, else 406", () => {
    const v2beta1 = "application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList";
    assert.deepEqual(negotiateDiscovery(`${v2beta1}, application/json`, TOP), { protobuf: false });
    assert.equal(
      refused(v2beta1, TOP),
      "only the following media types are accepted: application/json, application/yaml, application/vnd.kubernetes.protobuf",
    );
  });

  it("answers a plain protobuf range with the plain document in protobuf, anywhere", () => {
    const accept = "application/vnd.kubernetes.protobuf, application/json";
    for (const route of [TOP, API, GROUP]) {
      assert.deepEqual(negotiateDiscovery(accept, route), { protobuf: true });
    }
  });

  it("answers an aggregated range only on /api and /apis: elsewhere it is skipped", () => {
    assert.deepEqual(negotiateDiscovery(CLIENT_GO_ACCEPT, GROUP), { protobuf: false });
  });

  it("refuses what it cannot serve with kube's 406, the core group's by its route filter first", () => {
    assert.match(refused("text/plain", API), /^406: Not Acceptable\n\nAvailable representations: /);
    assert.match(refused("text/plain", TOP), /^only the following media types are accepted: /);
    assert.match(
      refused("application/json;g=meta.k8s.io;v=v1;as=Table", GROUP),
      /^only the following/,
    );
    assert.equal(
      agg("application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList;q=0"),
      "v2",
      "q=0 only sorts a range last, as kube's parser does: it is still served",
    );
  });

  it("names the version in the Content-Type clients decide by", () => {
    assert.equal(
      discoveryContentType("v2"),
      "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList",
    );
    assert.equal(
      discoveryContentType("v2", true),
      "application/vnd.kubernetes.protobuf;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList",
    );
  });
});

describe("aggregatedDiscovery", () => {
  it("answers /api with the core group alone, unnamed (ObjectMeta omits an empty name), resources by name", () => {
    const list = aggregatedDiscovery(registry, true, "v2") as Loose;
    assert.equal(list.kind, "APIGroupDiscoveryList");
    assert.equal(list.apiVersion, "apidiscovery.k8s.io/v2");
    assert.deepEqual(list.metadata, {});
    assert.equal(list.items.length, 1);
    const core = list.items[0];
    assert.deepEqual(core.metadata, {});
    assert.equal(core.versions.length, 1);
    assert.equal(core.versions[0].version, "v1");
    assert.equal(core.versions[0].freshness, "Current");
    const resources = core.versions[0].resources;
    const names = resources.map((r: Loose) => r.resource);
    // With the resources answered without storage.
    assert.deepEqual(names, ["bindings", "componentstatuses", "configmaps", "namespaces", "pods"]);
    const byName = (name: string) => resources.find((r: Loose) => r.resource === name);
    // A built-in kind's group and version left empty, and no subresources list without any, as
    // kube answers.
    assert.deepEqual(byName("configmaps"), {
      resource: "configmaps",
      responseKind: { group: "", version: "", kind: "ConfigMap" },
      scope: "Namespaced",
      singularResource: "configmap",
      verbs: [...ALL_VERBS],
      shortNames: ["cm"],
    });
    assert.deepEqual(byName("componentstatuses"), {
      resource: "componentstatuses",
      responseKind: { group: "", version: "", kind: "ComponentStatus" },
      scope: "Cluster",
      singularResource: "componentstatus",
      verbs: ["get", "list"],
      shortNames: ["cs"],
    });
    // A built-in kind's subresources by name, their group and version left empty as kube does.
    assert.deepEqual(byName("namespaces").subresources, [
      {
        subresource: "finalize",
        responseKind: { group: "", version: "", kind: "Namespace" },
        verbs: ["update"],
      },
      {
        subresource: "status",
        responseKind: { group: "", version: "", kind: "Namespace" },
        verbs: ["get", "patch", "update"],
      },
    ]);
    // The subresources handled without storage among the stored ones, by name.
    assert.deepEqual(
      byName("pods").subresources.map((s: Loose) => `${s.subresource}=${s.responseKind.kind}`),
      [
        "attach=PodAttachOptions",
        "binding=Binding",
        "eviction=Eviction",
        "exec=PodExecOptions",
        "log=Pod",
        "portforward=PodPortForwardOptions",
        "proxy=PodProxyOptions",
        "status=Pod",
      ],
    );
  });

  it("answers /apis with every other group, in the legacy list's order", () => {
    const list = aggregatedDiscovery(registry, false, "v2") as Loose;
    assert.equal(list.apiVersion, "apidiscovery.k8s.io/v2");
    const legacy = groupList(registry) as Loose;
    assert.deepEqual(
      list.items.map((g: Loose) => g.metadata.name),
      legacy.groups.map((g: Loose) => g.name),
    );
    assert.deepEqual(
      list.items.map((g: Loose) => g.metadata.name),
      ["apps", "example.com", "authentication.k8s.io", "authorization.k8s.io"],
    );
  });

  it("describes a resource with status and scale subresources as the legacy list does", () => {
    const list = aggregatedDiscovery(registry, false, "v2") as Loose;
    const deploy = list.items[0].versions[0].resources[0];
    assert.deepEqual(deploy.subresources, [
      {
        subresource: "scale",
        responseKind: { group: "autoscaling", version: "v1", kind: "Scale" },
        verbs: ["get", "patch", "update"],
      },
      {
        subresource: "status",
        responseKind: { group: "", version: "", kind: "Deployment" },
        verbs: ["get", "patch", "update"],
      },
    ]);
    const legacy = (resourceList(registry, "apps", "v1") as Loose).resources;
    const scale = legacy.find((r: Loose) => r.name === "deployments/scale");
    assert.deepEqual(
      {
        responseKind: { group: scale.group, version: scale.version, kind: scale.kind },
        verbs: scale.verbs,
      },
      { responseKind: deploy.subresources[0].responseKind, verbs: deploy.subresources[0].verbs },
      "legacy and aggregated discovery agree",
    );
  });

  it("describes a cluster-scoped CRD, its versions preferred first", () => {
    const list = aggregatedDiscovery(registry, false, "v2") as Loose;
    const group = list.items[1];
    assert.deepEqual(group.metadata, { name: "example.com" });
    assert.deepEqual(
      group.versions.map((v: Loose) => v.version),
      ["v1", "v1beta1"],
      "GA before beta, though v1beta1 was installed first",
    );
    assert.deepEqual(
      group.versions.map((v: Loose) => v.version),
      (groupList(registry) as Loose).groups[1].versions.map((v: Loose) => v.version),
    );
    const v1 = group.versions[0].resources[0];
    assert.deepEqual(
      { ...v1, subresources: v1.subresources.map((s: Loose) => s.subresource) },
      {
        resource: "gizmos",
        responseKind: { group: "example.com", version: "v1", kind: "Gizmo" },
        scope: "Cluster",
        singularResource: "gizmo",
        verbs: [...ALL_VERBS],
        shortNames: ["gz"],
        categories: ["all"],
        subresources: ["status", "scale"],
      },
    );
    const beta = group.versions[1].resources[0];
    assert.deepEqual(beta.responseKind, {
      group: "example.com",
      version: "v1beta1",
      kind: "Gizmo",
    });
    assert.equal(beta.shortNames, undefined, "no short names: the field is left out");
    assert.deepEqual(beta.subresources[0].responseKind, beta.responseKind);
  });

  it("answers an empty list when no group of the asked kind is served", () => {
    const list = aggregatedDiscovery({ all: () => [] }, false, "v2") as Loose;
    assert.deepEqual(list.items, []);
  });
});

// biome-ignore lint/suspicious/noExplicitAny: tests read bodies loosely
type Loose = any;
