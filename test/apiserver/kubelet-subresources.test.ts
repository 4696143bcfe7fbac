/**
 * What kube-apiserver hands to a kubelet — pods/log, exec, attach, portforward, the pod, node
 * and service proxies — black-box over HTTP: what kube answers on its own (a pod not on a node
 * yet, bad options, unknown containers and objects) on both backends; where a kubelet would
 * answer, the embedded server's 503 saying it runs none, never a 404. Also `bindings` and
 * `componentstatuses`, the other core resources answered without storage.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { embeddedOnly, startTestServer, type TestServer } from "kontroller/testing";
import { call } from "./helpers.ts";

const PODS = "/api/v1/namespaces/default/pods";

describe("subresources that need a kubelet", () => {
  let s: TestServer;
  before(async () => {
    s = await startTestServer({ controllers: false });
    for (const [name, spec] of [
      ["waiting", { containers: [{ name: "c", image: "busybox" }] }],
      [
        "two",
        {
          initContainers: [{ name: "init", image: "busybox" }],
          containers: [
            { name: "a", image: "busybox" },
            { name: "b", image: "busybox" },
          ],
        },
      ],
      ["placed", { nodeName: "n1", containers: [{ name: "c", image: "busybox" }] }],
    ] as const) {
      const r = await call(s.url, "POST", PODS, { metadata: { name }, spec });
      assert.equal(r.status, 201);
    }
    await call(s.url, "POST", "/api/v1/nodes", { metadata: { name: "n1" } });
  });
  after(() => s.close());
  const get = (path: string) => call(s.url, "GET", path);
  const post = (path: string) => call(s.url, "POST", path);

  it("answers the logs of a pod not on a node yet with 204 and no body, as kube does", async () => {
    const r = await get(`${PODS}/waiting/log`);
    assert.equal(r.status, 204);
    assert.equal(r.body, "");
    assert.equal((await get(`${PODS}/two/log?container=init`)).status, 204);
  });

  it("checks the log options and the container first: 400, 422, 404", async () => {
    const negative = await get(`${PODS}/waiting/log?tailLines=-1`);
    assert.equal(negative.status, 422);
    assert.equal(
      negative.body.message,
      'PodLogOptions "waiting" is invalid: tailLines: Invalid value: -1: must be greater than or equal to 0',
    );
    const zeros = await get(`${PODS}/waiting/log?limitBytes=0&sinceSeconds=0`);
    assert.equal(zeros.status, 422);
    assert.deepEqual(
      zeros.body.details.causes.map((c: { field: string }) => c.field),
      ["limitBytes", "sinceSeconds"],
    );
    const both = await get(`${PODS}/waiting/log?sinceSeconds=1&sinceTime=2020-01-01T00:00:00Z`);
    assert.equal(both.status, 422);
    assert.equal(
      both.body.details.causes[0].message,
      "Forbidden: at most one of `sinceTime` or `sinceSeconds` may be specified",
    );
    const stream = await get(`${PODS}/waiting/log?stream=Stdout`);
    assert.equal(stream.status, 422);
    const notInt = await get(`${PODS}/waiting/log?tailLines=abc`);
    assert.equal(notInt.status, 400);
    assert.equal(notInt.body.message, 'strconv.ParseInt: parsing "abc": invalid syntax');
    const container = await get(`${PODS}/waiting/log?container=zz`);
    assert.equal(container.status, 400);
    assert.equal(container.body.message, "container zz is not valid for pod waiting");
    const which = await get(`${PODS}/two/log`);
    assert.equal(which.status, 400);
    assert.equal(
      which.body.message,
      "a container name must be specified for pod two, choose one of: [init a b]",
    );
    const missing = await get(`${PODS}/nope/log`);
    assert.equal(missing.status, 404);
    assert.equal(missing.body.message, 'pods "nope" not found');
  });

  it("answers exec, attach and port-forward of a pod not on a node with kube's 400", async () => {
    for (const sub of ["exec", "attach", "portforward"]) {
      for (const method of ["GET", "POST"]) {
        const r = await call(s.url, method, `${PODS}/waiting/${sub}?command=ls&stdout=true`);
        assert.equal(r.status, 400, `${method} ${sub}`);
        assert.equal(r.body.message, "pod waiting does not have a host assigned");
      }
      const put = await call(s.url, "PUT", `${PODS}/waiting/${sub}`, {});
      assert.equal(put.status, 405);
      assert.equal((await post(`${PODS}/nope/${sub}`)).status, 404);
    }
    const exec = await post(`${PODS}/two/exec?command=ls`);
    assert.equal(exec.status, 400);
    assert.match(exec.body.message, /^a container name must be specified for pod two/);
    const ports = await post(`${PODS}/waiting/portforward?ports=abc`);
    assert.equal(ports.status, 400);
    assert.match(ports.body.message, /^cannot convert to \[\]int32: /);
  });

  it("refuses the proxy of a pod without an address, and of objects that do not exist", async () => {
    for (const path of [
      `${PODS}/waiting/proxy`,
      `${PODS}/waiting/proxy/some/path`,
      `${PODS}/waiting:80/proxy/`,
    ]) {
      const r = await get(path);
      assert.equal(r.status, 400, path);
      assert.equal(r.body.message, "address not allowed");
    }
    assert.equal((await call(s.url, "DELETE", `${PODS}/waiting/proxy`)).status, 400);
    const pod = await get(`${PODS}/nope/proxy`);
    assert.equal(pod.status, 404);
    const node = await get("/api/v1/nodes/nope/proxy/metrics");
    assert.equal(node.status, 404);
    assert.equal(node.body.message, 'nodes "nope" not found');
    const service = await get("/api/v1/namespaces/default/services/nope/proxy");
    assert.equal(service.status, 404);
    assert.equal(service.body.message, 'services "nope" not found');
  });

  it("answers 404 for a path after a subresource other than proxy, and 405 for a POST to log", async () => {
    assert.equal((await get(`${PODS}/waiting/log/x`)).status, 404);
    assert.equal((await get(`${PODS}/waiting/exec/x`)).status, 404);
    assert.equal((await get(`${PODS}/waiting/status/x`)).status, 404);
    const r = await call(s.url, "POST", `${PODS}/waiting/log`, {});
    assert.equal(r.status, 405);
    assert.equal(r.body.message, "the server does not allow this method on the requested resource");
  });

  it("says it runs no kubelet where one would answer: 503, never a 404", {
    skip: embeddedOnly("kube-apiserver reaches for the node's kubelet"),
  }, async () => {
    const cases: [string, string, RegExp][] = [
      [
        "GET",
        `${PODS}/placed/log`,
        /^cannot read the logs of container "c" of pod default\/placed on node "n1": /,
      ],
      [
        "POST",
        `${PODS}/placed/exec?command=ls`,
        /^cannot exec in container "c" of pod default\/placed/,
      ],
      ["GET", `${PODS}/placed/attach`, /^cannot attach to container "c"/],
      [
        "POST",
        `${PODS}/placed/portforward?ports=80`,
        /^cannot forward ports of pod default\/placed/,
      ],
      ["GET", "/api/v1/nodes/n1/proxy/metrics", /^cannot proxy to the kubelet of node "n1"/],
    ];
    for (const [method, path, message] of cases) {
      const r = await call(s.url, method, path);
      assert.equal(r.status, 503, path);
      assert.equal(r.body.reason, "ServiceUnavailable");
      assert.match(r.body.message, message);
      assert.match(r.body.message, /the embedded kontroller API server runs no kubelet/);
    }
  });
});

describe("bindings and componentstatuses", () => {
  let s: TestServer;
  before(async () => {
    s = await startTestServer({ controllers: false });
    await call(s.url, "POST", PODS, {
      metadata: { name: "p" },
      spec: { containers: [{ name: "c", image: "busybox" }] },
    });
  });
  after(() => s.close());

  it("binds a pod through the bindings collection, as pods/{name}/binding does", async () => {
    const bindings = "/api/v1/namespaces/default/bindings";
    const r = await call(s.url, "POST", bindings, {
      metadata: { name: "p" },
      target: { name: "n1" },
    });
    assert.equal(r.status, 201);
    assert.deepEqual(r.body, {
      kind: "Status",
      apiVersion: "v1",
      metadata: {},
      status: "Success",
      code: 201,
    });
    const pod = await call(s.url, "GET", `${PODS}/p`);
    assert.equal(pod.body.spec.nodeName, "n1");
    const again = await call(s.url, "POST", bindings, {
      metadata: { name: "p" },
      target: { name: "n2" },
    });
    assert.equal(again.status, 409);
    assert.equal(
      again.body.message,
      'Operation cannot be fulfilled on pods/binding "p": pod p is already assigned to node "n1"',
    );
    const noName = await call(s.url, "POST", bindings, { target: { name: "n1" } });
    assert.equal(noName.status, 400);
    assert.equal(noName.body.message, "Name parameter required.");
    const missing = await call(s.url, "POST", bindings, {
      metadata: { name: "nope" },
      target: { name: "n1" },
    });
    assert.equal(missing.status, 404);
    assert.equal((await call(s.url, "GET", bindings)).status, 405);
    assert.equal((await call(s.url, "POST", "/api/v1/bindings", {})).status, 404);
  });

  it("lists and gets component statuses, deprecated, and refuses to watch them", async () => {
    const list = await call(s.url, "GET", "/api/v1/componentstatuses");
    assert.equal(list.status, 200);
    assert.equal(list.headers.get("warning"), '299 - "v1 ComponentStatus is deprecated in v1.19+"');
    assert.equal(list.body.kind, "ComponentStatusList");
    const healthy = list.body.items.filter((c: { conditions: { status: string }[] }) =>
      c.conditions.some((x) => x.status === "True"),
    );
    assert.ok(healthy.length >= 1, "the storage is healthy");
    const name = healthy[0].metadata.name;
    const one = await call(s.url, "GET", `/api/v1/componentstatuses/${name}`);
    assert.equal(one.status, 200);
    assert.deepEqual(one.body.conditions, [{ type: "Healthy", status: "True", message: "ok" }]);
    const table = await call(s.url, "GET", `/api/v1/componentstatuses/${name}`, undefined, {
      accept: "application/json;as=Table;v=v1;g=meta.k8s.io",
    });
    assert.deepEqual(
      table.body.columnDefinitions.map((c: { name: string }) => c.name),
      ["Name", "Status", "Message", "Error"],
    );
    assert.deepEqual(table.body.rows[0].cells, [name, "Healthy", "ok", ""]);
    const missing = await call(s.url, "GET", "/api/v1/componentstatuses/nope");
    assert.equal(missing.status, 404);
    assert.equal(missing.body.message, 'componentstatus "nope" not found');
    const watch = await call(s.url, "GET", "/api/v1/componentstatuses?watch=true");
    assert.equal(watch.status, 405);
    assert.equal(
      watch.body.message,
      'watch is not supported on resources of kind "componentstatuses"',
    );
    const none = await call(s.url, "GET", "/api/v1/componentstatuses?labelSelector=a%3Db");
    assert.deepEqual(none.body.items, []);
    assert.equal((await call(s.url, "DELETE", `/api/v1/componentstatuses/${name}`)).status, 405);
  });
});
