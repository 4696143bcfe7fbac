/**
 * Endpoints, EndpointSlices and networking.k8s.io kinds read back as kube-apiserver 1.36
 * returns them: ports speak TCP, a NetworkPolicy governs ingress (and egress with egress
 * rules), an endpoint's conditions and an Ingress's load balancer status are written, slices
 * and classes have generations. The expectations are kube's answers; runs on both backends.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { startTestServer, type TestServer } from "kontroller/testing";
import { call } from "./helpers.ts";
import { checkKind, type KindCase, kindCases } from "./kind-defaults-rig.ts";

const NETWORKING = "/apis/networking.k8s.io/v1";
const apiVersion = "networking.k8s.io/v1";
const backend = { service: { name: "web", port: { number: 80 } } };
const peer = { podSelector: { matchLabels: { app: "db" } } };

const CASES: KindCase[] = [
  {
    path: "/apis/networking.k8s.io/v1/servicecidrs",
    apiVersion: "networking.k8s.io/v1",
    kind: "ServiceCIDR",
    body: { spec: { cidrs: ["10.98.0.0/24"] } },
    want: { spec: { cidrs: ["10.98.0.0/24"] }, status: {} },
  },
  {
    path: "/api/v1/namespaces/default/endpoints",
    apiVersion: "v1",
    kind: "Endpoints",
    body: { subsets: [{ addresses: [{ ip: "10.1.2.3" }], ports: [{ name: "http", port: 80 }] }] },
    want: {
      subsets: [
        { addresses: [{ ip: "10.1.2.3" }], ports: [{ name: "http", port: 80, protocol: "TCP" }] },
      ],
    },
    owns: ["f:subsets"],
  },
  {
    path: "/apis/discovery.k8s.io/v1/namespaces/default/endpointslices",
    apiVersion: "discovery.k8s.io/v1",
    kind: "EndpointSlice",
    body: { addressType: "IPv4", endpoints: [{ addresses: ["10.1.2.3"] }], ports: [{ port: 80 }] },
    want: {
      addressType: "IPv4",
      endpoints: [{ addresses: ["10.1.2.3"], conditions: {} }],
      ports: [{ name: "", port: 80, protocol: "TCP" }],
      metadata: { generation: 1 },
    },
  },
  {
    path: `${NETWORKING}/namespaces/default/networkpolicies`,
    apiVersion,
    kind: "NetworkPolicy",
    body: {
      spec: {
        podSelector: {},
        ingress: [{ from: [peer], ports: [{ port: 5432 }] }],
        egress: [{ to: [peer], ports: [{ port: 53, protocol: "UDP" }] }],
      },
    },
    want: {
      spec: {
        podSelector: {},
        ingress: [{ from: [peer], ports: [{ port: 5432, protocol: "TCP" }] }],
        egress: [{ to: [peer], ports: [{ port: 53, protocol: "UDP" }] }],
        policyTypes: ["Ingress", "Egress"],
      },
      metadata: { generation: 1 },
    },
    owns: ["f:spec.f:policyTypes"],
  },
  {
    path: `${NETWORKING}/namespaces/default/ingresses`,
    apiVersion,
    kind: "Ingress",
    body: {
      spec: { defaultBackend: backend },
      status: { loadBalancer: { ingress: [{ ip: "1.2.3.4" }] } },
    },
    want: {
      spec: { defaultBackend: backend },
      status: { loadBalancer: {} },
      metadata: { generation: 1 },
    },
  },
  {
    path: `${NETWORKING}/ingressclasses`,
    apiVersion,
    kind: "IngressClass",
    body: {
      spec: {
        controller: "example.com/ingress",
        parameters: { apiGroup: "example.com", kind: "Params", name: "p" },
      },
    },
    want: {
      spec: {
        controller: "example.com/ingress",
        parameters: { apiGroup: "example.com", kind: "Params", name: "p", scope: "Cluster" },
      },
      metadata: { generation: 1 },
    },
    owns: ["f:spec.f:parameters.f:scope"],
  },
];

describe("network kinds read back as kube-apiserver returns them", () => {
  let s: TestServer;
  before(async () => {
    s = await startTestServer({ controllers: false });
  });
  after(() => s.close());
  kindCases(() => s, CASES);

  it("names an IPAddress by its address: a generateName is the name itself, an empty group left out", async () => {
    const path = "/apis/networking.k8s.io/v1/ipaddresses";
    const address = (metadata: Record<string, unknown>) => ({
      apiVersion: "networking.k8s.io/v1",
      kind: "IPAddress",
      metadata,
      spec: { parentRef: { group: "", resource: "services", namespace: "default", name: "x" } },
    });
    const named = await call(
      s.url,
      "POST",
      `${path}?fieldManager=writer`,
      address({ name: "192.168.78.1" }),
    );
    assert.equal(named.status, 201, JSON.stringify(named.body));
    assert.deepEqual(named.body.spec.parentRef, {
      resource: "services",
      namespace: "default",
      name: "x",
    });
    assert.deepEqual(named.body.metadata.managedFields[0].fieldsV1, {
      "f:spec": { "f:parentRef": { ".": {}, "f:name": {}, "f:namespace": {}, "f:resource": {} } },
    });
    const generated = await call(s.url, "POST", path, address({ generateName: "192.168.78.2" }));
    assert.equal(generated.status, 201, JSON.stringify(generated.body));
    assert.equal(generated.body.metadata.name, "192.168.78.2");
    const refused = await call(s.url, "POST", path, address({ name: "not-an-ip" }));
    assert.equal(refused.status, 422);
    assert.deepEqual(refused.body.details.causes[0], {
      reason: "FieldValueInvalid",
      message:
        'Invalid value: "not-an-ip": must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)',
      field: "metadata.name",
    });
  });

  it("counts a change of an EndpointSlice's labels as a new generation", async () => {
    const slices = CASES[2]!;
    await checkKind(s, slices, "labelled");
    const patched = await call(
      s.url,
      "PATCH",
      `${slices.path}/labelled`,
      { metadata: { labels: { "kubernetes.io/service-name": "web" } } },
      { "content-type": "application/merge-patch+json" },
    );
    assert.equal(patched.status, 200);
    assert.equal(patched.body.metadata.generation, 2);
  });
});
