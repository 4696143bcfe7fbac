/**
 * /openapi/v3 over HTTP: the index, each group-version's document with real schemas for the
 * built-in kinds (as kube-apiserver publishes them: component names, `$ref`s, the GVK extension,
 * required fields, list and patch markers, int-or-string and Quantity), custom resources' schemas
 * from their CRDs, and the hash/ETag caching kubectl's HTTP cache relies on.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { startTestServer, type TestServer } from "kontroller/testing";
import { call, cond, crdUntil, type Loose } from "./helpers.ts";

const REF = "#/components/schemas/";
const META = "io.k8s.apimachinery.pkg.apis.meta.v1";

/** Every served built-in kind: its group-version document and component name. */
const KINDS: { gv: string; group: string; kind: string; component: string }[] = [
  ...["Namespace", "ConfigMap", "Secret", "Service", "ServiceAccount", "Pod", "Node", "Event"].map(
    (kind) => ({ gv: "api/v1", group: "", kind, component: `io.k8s.api.core.v1.${kind}` }),
  ),
  {
    gv: "apis/events.k8s.io/v1",
    group: "events.k8s.io",
    kind: "Event",
    component: "io.k8s.api.events.v1.Event",
  },
  {
    gv: "apis/coordination.k8s.io/v1",
    group: "coordination.k8s.io",
    kind: "Lease",
    component: "io.k8s.api.coordination.v1.Lease",
  },
  {
    gv: "apis/apps/v1",
    group: "apps",
    kind: "Deployment",
    component: "io.k8s.api.apps.v1.Deployment",
  },
  {
    gv: "apis/apiextensions.k8s.io/v1",
    group: "apiextensions.k8s.io",
    kind: "CustomResourceDefinition",
    component: "io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.CustomResourceDefinition",
  },
];

/** Every `$ref` string in a value. */
function refsIn(value: unknown, out: string[] = []): string[] {
  if (Array.isArray(value)) for (const v of value) refsIn(v, out);
  else if (value !== null && typeof value === "object") {
    for (const [k, v] of Object.entries(value)) {
      if (k === "$ref" && typeof v === "string") out.push(v);
      else refsIn(v, out);
    }
  }
  return out;
}

/** The component a field refers to (`$ref`, or `allOf: [{$ref}]` beside a description). */
const target = (field: Loose): string =>
  (field.$ref ?? field.allOf?.[0]?.$ref ?? "").replace(REF, "");

describe("/openapi/v3", () => {
  let s: TestServer;
  const docs = new Map<string, Loose>();
  let index: Loose;
  const doc = async (gv: string) => {
    if (!docs.has(gv)) {
      const url = index.paths[gv].serverRelativeURL;
      const r = await call(s.url, "GET", url);
      assert.equal(r.status, 200, url);
      docs.set(gv, r.body);
    }
    return docs.get(gv);
  };
  const schemas = async (gv: string): Promise<Record<string, Loose>> =>
    (await doc(gv)).components.schemas;

  before(async () => {
    s = await startTestServer();
    index = (await call(s.url, "GET", "/openapi/v3")).body;
  });
  after(() => s.close());

  it("lists one document per group-version, each at ?hash=<its SHA-512>", () => {
    const gvs = Object.keys(index.paths).sort();
    // Every group-version served, the review groups' too, as kube-apiserver lists them.
    assert.deepEqual(gvs, [
      "api/v1",
      "apis/admissionregistration.k8s.io/v1",
      "apis/apiextensions.k8s.io/v1",
      "apis/apiregistration.k8s.io/v1",
      "apis/apps/v1",
      "apis/authentication.k8s.io/v1",
      "apis/authorization.k8s.io/v1",
      "apis/autoscaling/v1",
      "apis/autoscaling/v2",
      "apis/batch/v1",
      "apis/certificates.k8s.io/v1",
      "apis/coordination.k8s.io/v1",
      "apis/discovery.k8s.io/v1",
      "apis/events.k8s.io/v1",
      "apis/flowcontrol.apiserver.k8s.io/v1",
      "apis/networking.k8s.io/v1",
      "apis/node.k8s.io/v1",
      "apis/policy/v1",
      "apis/rbac.authorization.k8s.io/v1",
      "apis/resource.k8s.io/v1",
      "apis/scheduling.k8s.io/v1",
      "apis/storage.k8s.io/v1",
    ]);
    for (const gv of gvs) {
      assert.match(
        index.paths[gv].serverRelativeURL,
        new RegExp(`^/openapi/v3/${gv}\\?hash=[0-9A-F]{128}$`),
      );
    }
  });

  for (const k of KINDS) {
    it(`publishes ${k.kind} (${k.gv}) as ${k.component}, with every schema it refers to`, async () => {
      const all = await schemas(k.gv);
      const withGvk = Object.entries(all).filter(([, v]) =>
        v["x-kubernetes-group-version-kind"]?.some(
          (g: Loose) => g.group === k.group && g.version === "v1" && g.kind === k.kind,
        ),
      );
      assert.deepEqual(
        withGvk.map(([n]) => n),
        [k.component],
      );
      const kind = all[k.component];
      assert.equal(kind.type, "object");
      assert.ok(kind.description.length > 20, "the kind has a description");
      assert.equal(kind.properties.apiVersion.type, "string");
      assert.equal(kind.properties.kind.type, "string");
      assert.equal(target(kind.properties.metadata), `${META}.ObjectMeta`);
      assert.match(kind.properties.metadata.description, /api-conventions.md#metadata/);
      // The list kind, as list responses are described.
      const list = all[`${k.component}List`];
      assert.deepEqual(list.required, ["items"]);
      assert.equal(list.properties.items.items.$ref, REF + k.component);
      assert.equal(target(list.properties.metadata), `${META}.ListMeta`);
      // Every reference resolves inside the document: kubectl explain needs no other.
      for (const ref of refsIn(all)) {
        assert.ok(ref.startsWith(REF) && all[ref.slice(REF.length)] !== undefined, ref);
      }
      // kubectl apply/create look for this before validating on the server.
      const ops = Object.values((await doc(k.gv)).paths) as Loose[];
      const patch = ops.find(
        (p) => p.patch?.["x-kubernetes-group-version-kind"]?.kind === k.kind,
      )?.patch;
      assert.ok(
        patch.parameters.some((p: Loose) => p.name === "fieldValidation" && p.in === "query"),
      );
    });
  }

  it("publishes every kind discovery lists in its group-version's document, by its GVK", async () => {
    const gvs = [
      "v1",
      ...((await call(s.url, "GET", "/apis")).body.groups as Loose[]).flatMap((g) =>
        (g.versions as Loose[]).map((v) => v.groupVersion as string),
      ),
    ];
    let kinds = 0;
    for (const groupVersion of gvs) {
      const path = groupVersion === "v1" ? "/api/v1" : `/apis/${groupVersion}`;
      const [group, version] = groupVersion.includes("/") ? groupVersion.split("/") : ["", "v1"];
      const all = await schemas(path.slice(1));
      const list = (await call(s.url, "GET", path)).body.resources as Loose[];
      for (const r of list.filter((r) => !r.name.includes("/"))) {
        const withGvk = (kind: string) =>
          Object.keys(all).filter((n) =>
            all[n]["x-kubernetes-group-version-kind"]?.some(
              (g: Loose) => g.group === group && g.version === version && g.kind === kind,
            ),
          );
        assert.equal(withGvk(r.kind).length, 1, `${groupVersion} ${r.kind}`);
        const kind = all[withGvk(r.kind)[0]!];
        assert.equal(kind.type, "object", r.kind);
        assert.ok(kind.description.length > 20, `${r.kind} has a description`);
        if (r.verbs.includes("list")) {
          assert.equal(withGvk(`${r.kind}List`).length, 1, `${groupVersion} ${r.kind}List`);
        }
        kinds++;
      }
      for (const ref of refsIn(all)) assert.ok(all[ref.slice(REF.length)] !== undefined, ref);
    }
    assert.ok(kinds >= 68, `${kinds} kinds`);
  });

  it("serves /openapi/v2: one Swagger 2.0 document with kube's definition names, in JSON", async () => {
    const r = await call(s.url, "GET", "/openapi/v2");
    assert.equal(r.status, 200);
    const v2 = r.body;
    assert.equal(v2.swagger, "2.0");
    const ingress = v2.definitions["io.k8s.api.networking.v1.Ingress"];
    assert.deepEqual(ingress["x-kubernetes-group-version-kind"], [
      { group: "networking.k8s.io", kind: "Ingress", version: "v1" },
    ]);
    // Swagger 2.0 has no allOf beside a description: a $ref with its description, as kube.
    assert.equal(
      ingress.properties.spec.$ref,
      "#/definitions/io.k8s.api.networking.v1.IngressSpec",
    );
    assert.equal(v2.definitions["io.k8s.apimachinery.pkg.util.intstr.IntOrString"].type, "string");
    const rules = v2.definitions["io.k8s.api.rbac.v1.ClusterRole"].properties.rules;
    assert.equal(rules.items.$ref, "#/definitions/io.k8s.api.rbac.v1.PolicyRule");
    for (const ref of refsIn(v2)) {
      if (ref.startsWith("#/definitions/")) {
        assert.ok(v2.definitions[ref.slice("#/definitions/".length)], ref);
      }
    }
    const patch =
      v2.paths["/apis/networking.k8s.io/v1/namespaces/{namespace}/ingresses/{name}"].patch;
    assert.deepEqual(patch["x-kubernetes-group-version-kind"], {
      group: "networking.k8s.io",
      version: "v1",
      kind: "Ingress",
    });
    assert.ok(
      patch.parameters.some((p: Loose) => p.name === "fieldValidation" && p.in === "query"),
    );
    // JSON for a JSON client; kube also speaks protobuf here, this server answers 406 to it.
    const accept = async (a: string) =>
      (await fetch(`${s.url}/openapi/v2`, { headers: { accept: a } })).status;
    assert.equal(await accept("application/json"), 200);
    assert.equal(await accept("*/*"), 200);
    assert.equal(await accept("text/html"), 406);
    assert.equal(await accept("application/com.github.proto-openapi.spec.v2@v1.0+protobuf"), 406);
  });

  it("shares one component per type: Pod and Deployment reach the same PodSpec", async () => {
    const core = await schemas("api/v1");
    const apps = await schemas("apis/apps/v1");
    assert.equal(
      target(core["io.k8s.api.core.v1.Pod"].properties.spec),
      "io.k8s.api.core.v1.PodSpec",
    );
    const template = apps["io.k8s.api.apps.v1.DeploymentSpec"].properties.template;
    assert.equal(target(template), "io.k8s.api.core.v1.PodTemplateSpec");
    assert.equal(
      target(apps["io.k8s.api.core.v1.PodTemplateSpec"].properties.spec),
      "io.k8s.api.core.v1.PodSpec",
    );
    assert.deepEqual(apps["io.k8s.api.core.v1.PodSpec"], core["io.k8s.api.core.v1.PodSpec"]);
    // A document holds what its kinds use, not every type.
    assert.equal(apps["io.k8s.api.core.v1.Node"], undefined);
    assert.equal(core["io.k8s.api.apps.v1.DeploymentSpec"], undefined);
  });

  it("describes fields as kube does: types, formats, required, list and patch markers", async () => {
    const core = await schemas("api/v1");
    const podSpec = core["io.k8s.api.core.v1.PodSpec"];
    assert.deepEqual(podSpec.required, ["containers"]);
    const containers = podSpec.properties.containers;
    assert.equal(containers.type, "array");
    assert.equal(containers.items.$ref, `${REF}io.k8s.api.core.v1.Container`);
    assert.match(containers.description, /List of containers belonging to the pod/);
    assert.equal(containers["x-kubernetes-list-type"], "map");
    assert.deepEqual(containers["x-kubernetes-list-map-keys"], ["name"]);
    assert.equal(containers["x-kubernetes-patch-strategy"], "merge");
    assert.equal(containers["x-kubernetes-patch-merge-key"], "name");
    assert.equal(podSpec.properties.volumes["x-kubernetes-patch-strategy"], "merge,retainKeys");

    const container = core["io.k8s.api.core.v1.Container"];
    assert.deepEqual(container.required, ["name"]);
    assert.deepEqual(container.properties.args, {
      description: container.properties.args.description,
      items: { type: "string" },
      type: "array",
      "x-kubernetes-list-type": "atomic",
    });
    assert.deepEqual(container.properties.ports["x-kubernetes-list-map-keys"], [
      "containerPort",
      "protocol",
    ]);
    const port = core["io.k8s.api.core.v1.ContainerPort"];
    assert.deepEqual(port.required, ["containerPort"]);
    assert.deepEqual(
      { type: port.properties.containerPort.type, format: port.properties.containerPort.format },
      { type: "integer", format: "int32" },
    );

    // Quantity, int-or-string and Time are named types, as in kube's documents.
    const limits = core["io.k8s.api.core.v1.ResourceRequirements"].properties.limits;
    assert.equal(limits.type, "object");
    assert.equal(
      limits.additionalProperties.$ref,
      `${REF}io.k8s.apimachinery.pkg.api.resource.Quantity`,
    );
    assert.deepEqual(core["io.k8s.apimachinery.pkg.api.resource.Quantity"].oneOf, [
      { type: "string" },
      { type: "number" },
    ]);
    const targetPort = core["io.k8s.api.core.v1.ServicePort"].properties.targetPort;
    assert.equal(target(targetPort), "io.k8s.apimachinery.pkg.util.intstr.IntOrString");
    assert.match(targetPort.description, /Number or name of the port to access on the pods/);
    const intOrString = core["io.k8s.apimachinery.pkg.util.intstr.IntOrString"];
    assert.equal(intOrString.format, "int-or-string");
    assert.deepEqual(intOrString.oneOf, [{ type: "integer" }, { type: "string" }]);
    const objectMeta = core[`${META}.ObjectMeta`];
    assert.equal(target(objectMeta.properties.creationTimestamp), `${META}.Time`);
    assert.deepEqual(
      { type: core[`${META}.Time`].type, format: core[`${META}.Time`].format },
      { type: "string", format: "date-time" },
    );
    assert.equal(objectMeta.properties.finalizers["x-kubernetes-list-type"], "set");
    assert.equal(objectMeta.properties.ownerReferences["x-kubernetes-patch-merge-key"], "uid");
    const binaryData = core["io.k8s.api.core.v1.ConfigMap"].properties.binaryData;
    assert.deepEqual(binaryData.additionalProperties, { format: "byte", type: "string" });

    const lease = await schemas("apis/coordination.k8s.io/v1");
    const renewTime = lease["io.k8s.api.coordination.v1.LeaseSpec"].properties.renewTime;
    assert.equal(target(renewTime), `${META}.MicroTime`);
    assert.match(renewTime.description, /renewTime is a time when the current holder/);
    const apps = await schemas("apis/apps/v1");
    const strategy = apps["io.k8s.api.apps.v1.DeploymentSpec"].properties.strategy;
    assert.equal(target(strategy), "io.k8s.api.apps.v1.DeploymentStrategy");
    assert.equal(strategy["x-kubernetes-patch-strategy"], "retainKeys");
    assert.equal(
      target(apps["io.k8s.api.apps.v1.RollingUpdateDeployment"].properties.maxSurge),
      "io.k8s.apimachinery.pkg.util.intstr.IntOrString",
    );
    // DELETE's body and answer.
    assert.ok(core[`${META}.DeleteOptions`] && core[`${META}.Status`]);
  });

  it("publishes a custom resource's CRD schema, with apiVersion, kind and ObjectMeta as kube does", async () => {
    const crd = {
      apiVersion: "apiextensions.k8s.io/v1",
      kind: "CustomResourceDefinition",
      metadata: { name: "widgets.openapi.example.com" },
      spec: {
        group: "openapi.example.com",
        scope: "Namespaced",
        names: { plural: "widgets", singular: "widget", kind: "Widget", listKind: "WidgetList" },
        versions: [
          {
            name: "v1",
            served: true,
            storage: true,
            schema: {
              openAPIV3Schema: {
                type: "object",
                description: "A widget.",
                properties: {
                  spec: { type: "object", properties: { size: { type: "integer" } } },
                },
              },
            },
          },
        ],
      },
    };
    const crds = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions";
    assert.equal((await call(s.url, "POST", crds, crd)).status, 201);
    await crdUntil(s.url, crd.metadata.name, (o) => cond(o, "Established")?.status === "True");
    const fresh = (await call(s.url, "GET", "/openapi/v3")).body;
    const url = fresh.paths["apis/openapi.example.com/v1"].serverRelativeURL;
    const all = (await call(s.url, "GET", url)).body.components.schemas;
    const widget = all["com.example.openapi.v1.Widget"];
    assert.equal(widget.description, "A widget.");
    assert.deepEqual(widget.properties.spec, {
      type: "object",
      properties: { size: { type: "integer" } },
    });
    assert.deepEqual(widget["x-kubernetes-group-version-kind"], [
      { group: "openapi.example.com", version: "v1", kind: "Widget" },
    ]);
    assert.equal(target(widget.properties.metadata), `${META}.ObjectMeta`);
    assert.equal(widget.properties.apiVersion.type, "string");
    assert.ok(all[`${META}.ObjectMeta`].properties.labels);
    const list = all["com.example.openapi.v1.WidgetList"];
    assert.equal(list.properties.items.items.$ref, `${REF}com.example.openapi.v1.Widget`);
    for (const ref of refsIn(all)) assert.ok(all[ref.slice(REF.length)] !== undefined, ref);
    // The built-in documents did not change: their hashes, and so kubectl's cache, still hold.
    for (const gv of Object.keys(index.paths)) {
      assert.equal(fresh.paths[gv].serverRelativeURL, index.paths[gv].serverRelativeURL);
    }
  });
});
