/**
 * What a write's body must say of its type, and kube's answers when it says something else: a
 * built-in kind's body may leave apiVersion and kind out, another type is a 400 from the
 * decoder (unknown to its scheme, not convertible, or another version of the kind); a custom resource's body must name both, and another kind is a 422 on `kind`; a body
 * that is not JSON, or has a value of the wrong JSON type for its Go type, is reported as kube's
 * decoder reports it. Runs on both backends (the
 * expectations are kube-apiserver 1.36's answers).
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { startTestServer, type TestServer } from "kontroller/testing";
import { call, crdUntil, type Loose } from "./helpers.ts";

let s: TestServer;
before(async () => {
  s = await startTestServer({ controllers: false });
  const crd = await call(s.url, "POST", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", {
    apiVersion: "apiextensions.k8s.io/v1",
    kind: "CustomResourceDefinition",
    metadata: { name: "things.body.example.com" },
    spec: {
      group: "body.example.com",
      scope: "Namespaced",
      names: { plural: "things", kind: "Thing" },
      versions: [
        {
          name: "v1",
          served: true,
          storage: true,
          schema: {
            openAPIV3Schema: { type: "object", "x-kubernetes-preserve-unknown-fields": true },
          },
        },
      ],
    },
  });
  assert.equal(crd.status, 201, JSON.stringify(crd.body));
  await crdUntil(s.url, "things.body.example.com", (o: Loose) =>
    (o.status?.conditions ?? []).some(
      (c: Loose) => c.type === "Established" && c.status === "True",
    ),
  );
});
after(() => s.close());

const CMS = "/api/v1/namespaces/default/configmaps";
const DEPLOYMENTS = "/apis/apps/v1/namespaces/default/deployments";
const THINGS = "/apis/body.example.com/v1/namespaces/default/things";

describe("the type a body declares", () => {
  it("may be left out of a built-in kind's body, and another kind is kube's 400", async () => {
    assert.equal((await call(s.url, "POST", CMS, { metadata: { name: "typeless" } })).status, 201);
    const wrong = await call(s.url, "POST", CMS, {
      apiVersion: "v1",
      kind: "NotAKind",
      metadata: { name: "wrong" },
    });
    assert.equal(wrong.status, 400);
    assert.equal(
      wrong.body.message,
      'NotAKind in version "v1" cannot be handled as a ConfigMap: no kind "NotAKind" is registered for version "v1" in scheme "pkg/api/legacyscheme/scheme.go:30"',
    );
    const other = await call(s.url, "POST", DEPLOYMENTS, {
      apiVersion: "apps/v1",
      kind: "ConfigMap",
      metadata: { name: "other" },
    });
    assert.equal(
      other.body.message,
      'ConfigMap in version "v1" cannot be handled as a Deployment: no kind "ConfigMap" is registered for version "apps/v1" in scheme "pkg/api/legacyscheme/scheme.go:30"',
    );
  });

  it("of another type kube's scheme knows is a failed conversion, or another version", async () => {
    const message = async (method: string, path: string, body: unknown) => {
      const r = await call(s.url, method, path, body);
      assert.equal(r.status, 400, JSON.stringify(r.body));
      return r.body.message as string;
    };
    const revisions = "/apis/apps/v1/namespaces/default/controllerrevisions";
    const secret = { apiVersion: "v1", kind: "Secret", metadata: { name: "s" } };
    assert.equal(
      await message("POST", CMS, secret),
      'Secret in version "v1" cannot be handled as a ConfigMap: converting (v1.Secret) to (core.ConfigMap): unknown conversion',
    );
    // A Status sent back as the object (a failed read's reply) is apimachinery's own type.
    const status = { apiVersion: "v1", kind: "Status", metadata: { name: "typeless" } };
    assert.equal(
      await message("PUT", `${CMS}/typeless`, status),
      'Status in version "v1" cannot be handled as a ConfigMap: converting (v1.Status) to (core.ConfigMap): unknown conversion',
    );
    assert.equal(
      await message("POST", revisions, { kind: "Deployment", metadata: { name: "d" } }),
      'Deployment in version "v1" cannot be handled as a ControllerRevision: converting (v1.Deployment) to (apps.ControllerRevision): unknown conversion',
    );
    assert.equal(
      await message("POST", revisions, { apiVersion: "apps/v1", kind: "Scale" }),
      'Scale in version "v1" cannot be handled as a ControllerRevision: no kind "Scale" is registered for version "apps/v1" in scheme "pkg/api/legacyscheme/scheme.go:30"',
    );
    assert.equal(
      await message("POST", revisions, { apiVersion: "v1", metadata: { name: "v" } }),
      'ControllerRevision in version "v1" cannot be handled as a ControllerRevision: no kind "ControllerRevision" is registered for version "v1" in scheme "pkg/api/legacyscheme/scheme.go:30"',
    );
    // An events.k8s.io Event and a core one are the same internal type: only the version differs.
    const coreEvent = { apiVersion: "v1", kind: "Event", metadata: { name: "e" } };
    assert.equal(
      await message("POST", "/apis/events.k8s.io/v1/namespaces/default/events", coreEvent),
      "the API version in the data (v1) does not match the expected API version (events.k8s.io/v1)",
    );
    const crds = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions";
    const notAKind = { apiVersion: "apiextensions.k8s.io/v1", kind: "NotAKind" };
    assert.equal(
      await message("POST", crds, notAKind),
      'NotAKind in version "v1" cannot be handled as a CustomResourceDefinition: no kind "NotAKind" is registered for version "apiextensions.k8s.io/v1" in scheme "k8s.io/apiextensions-apiserver/pkg/apiserver/apiserver.go:55"',
    );
  });

  it("must be named in a custom resource's body, and another kind is a 422 on kind", async () => {
    const bare = await call(s.url, "POST", THINGS, { metadata: { name: "bare" } });
    assert.equal(bare.status, 400);
    assert.equal(
      bare.body.message,
      `the object provided is unrecognized (must be of type Thing): Object 'Kind' is missing in '{"metadata":{"name":"bare"}}' ({"metadata":{"name":"bare"}})`,
    );
    const kindOnly = await call(s.url, "POST", THINGS, { kind: "Thing", metadata: { name: "k" } });
    assert.equal(kindOnly.status, 400);
    assert.equal(
      kindOnly.body.message,
      "the API version in the data () does not match the expected API version (body.example.com/v1)",
    );
    const wrong = await call(s.url, "POST", THINGS, {
      apiVersion: "body.example.com/v1",
      kind: "NotAKind",
      metadata: { name: "wrong" },
    });
    assert.equal(wrong.status, 422);
    assert.equal(
      wrong.body.message,
      'NotAKind.body.example.com "wrong" is invalid: kind: Invalid value: "NotAKind": must be Thing',
    );
    assert.deepEqual(wrong.body.details, {
      name: "wrong",
      group: "body.example.com",
      kind: "NotAKind",
      causes: [
        {
          reason: "FieldValueInvalid",
          message: 'Invalid value: "NotAKind": must be Thing',
          field: "kind",
        },
      ],
    });
    for (const name of ["bare", "k", "wrong"])
      assert.equal((await call(s.url, "GET", `${THINGS}/${name}`)).status, 404);
  });

  it("is looked for first in a body that is not JSON, as kube's decoder does", async () => {
    const truncated = await call(s.url, "POST", CMS, '{"apiVersion": "v1", "kind": ');
    assert.equal(truncated.status, 400);
    assert.equal(
      truncated.body.message,
      `the object provided is unrecognized (must be of type ConfigMap): couldn't get version/kind; json parse error: unexpected end of JSON input ({"apiVersion": "v1", "kind": )`,
    );
  });

  it("is checked value by value against the kind's Go types, as kube's decoder does", async () => {
    const deployment = (spec: unknown) => ({
      apiVersion: "apps/v1",
      kind: "Deployment",
      metadata: { name: "typed" },
      spec,
    });
    const message = async (path: string, body: unknown) => {
      const r = await call(s.url, "POST", path, body);
      assert.equal(r.status, 400, JSON.stringify(r.body));
      return r.body.message as string;
    };
    const prefix = 'Deployment in version "v1" cannot be handled as a Deployment: json: ';
    assert.equal(
      await message(DEPLOYMENTS, deployment({ replicas: "three" })),
      `${prefix}cannot unmarshal string into Go struct field DeploymentSpec.spec.replicas of type int32`,
    );
    assert.equal(
      await message(DEPLOYMENTS, deployment({ replicas: 1.5 })),
      `${prefix}cannot unmarshal number 1.5 into Go struct field DeploymentSpec.spec.replicas of type int32`,
    );
    assert.equal(
      await message(DEPLOYMENTS, deployment("nope")),
      `${prefix}cannot unmarshal string into Go struct field Deployment.spec of type v1.DeploymentSpec`,
    );
    assert.equal(
      await message(
        DEPLOYMENTS,
        deployment({ template: { spec: { containers: [{ name: "c", image: 5 }] } } }),
      ),
      `${prefix}cannot unmarshal number into Go struct field Container.spec.template.spec.containers.image of type string`,
    );
    assert.equal(
      await message(CMS, { metadata: { name: "typed", labels: { a: 1 } } }),
      'ConfigMap in version "v1" cannot be handled as a ConfigMap: json: cannot unmarshal number into Go struct field ObjectMeta.metadata.labels of type string',
    );
    assert.equal(
      await message("/apis/rbac.authorization.k8s.io/v1/namespaces/default/roles", {
        metadata: { name: "typed" },
        rules: "x",
      }),
      'Role in version "v1" cannot be handled as a Role: json: cannot unmarshal string into Go struct field Role.rules of type []v1.PolicyRule',
    );
    // A Quantity and an IntOrString take a number as well as a string; null is no value.
    const pod = await call(s.url, "POST", "/api/v1/namespaces/default/pods", {
      metadata: { name: "typed" },
      spec: {
        containers: [
          {
            name: "c",
            image: "i",
            resources: { limits: { cpu: 2 } },
            ports: [{ containerPort: 80 }],
          },
        ],
        nodeSelector: null,
      },
    });
    assert.equal(pod.status, 201, JSON.stringify(pod.body));
    assert.equal((await call(s.url, "GET", `${DEPLOYMENTS}/typed`)).status, 404);
  });
});
