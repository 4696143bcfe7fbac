/**
 * The compatibility suite's comparison (test/compat): what normalization hides and what it keeps,
 * how two replies differ path by path, how differences group by cause, and how the generated
 * section of the document is replaced. The suite itself runs with `npm run test:compat`.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { diffJson } from "./compat/compare.ts";
import { causesOf, compareReplies, type Difference, generalPath } from "./compat/difference.ts";
import { normalize } from "./compat/normalize.ts";
import {
  BEGIN,
  compatibilitySection,
  END,
  groupByCause,
  replaceSection,
  summaryLine,
} from "./compat/report.ts";
import { allScenarios, resources } from "./compat/scenarios.ts";

const UID = "0b6e3c1e-8f5a-4c7e-9d2a-3f1b2c4d5e6f";

describe("compat normalization", () => {
  it("replaces uids, resourceVersions, times and continue tokens by placeholders", () => {
    const list = {
      kind: "ConfigMapList",
      metadata: { resourceVersion: "42", continue: "eyJ2IjoxfQ" },
      items: [
        {
          metadata: {
            name: "a",
            uid: UID,
            resourceVersion: "41",
            creationTimestamp: "2026-01-02T03:04:05Z",
            managedFields: [{ manager: "m", time: "2026-01-02T03:04:05Z" }],
            labels: { "controller-uid": UID },
          },
          eventTime: "2026-01-02T03:04:05.123456Z",
        },
      ],
    };
    assert.deepEqual(normalize(list), {
      kind: "ConfigMapList",
      metadata: { resourceVersion: "<resourceVersion>", continue: "<continue>" },
      items: [
        {
          metadata: {
            name: "a",
            uid: "<uid>",
            resourceVersion: "<resourceVersion>",
            creationTimestamp: "<time>",
            managedFields: [{ manager: "m", time: "<time>" }],
            labels: { "controller-uid": "<uid>" },
          },
          eventTime: "<time>",
        },
      ],
    });
  });

  it("hides allocated cluster IPs and node ports, and generated name suffixes", () => {
    const service = {
      metadata: { name: "compat-gen-x7k2p", generateName: "compat-gen-" },
      spec: {
        clusterIP: "10.0.0.17",
        clusterIPs: ["10.0.0.17"],
        ports: [{ port: 80, nodePort: 30517 }],
      },
    };
    assert.deepEqual(normalize(service), {
      metadata: { name: "compat-gen-<suffix>", generateName: "compat-gen-" },
      spec: {
        clusterIP: "<cluster-ip>",
        clusterIPs: ["<cluster-ip>"],
        ports: [{ port: 80, nodePort: "<node-port>" }],
      },
    });
  });

  it("orders field managers by manager and operation, and hides generated names in messages", () => {
    const a = { manager: "a", operation: "Apply", time: "2026-01-02T03:04:05Z" };
    const b = { manager: "b", operation: "Update", time: "2026-01-02T03:04:04Z" };
    const normalized = normalize({
      metadata: { managedFields: [b, a] },
      message: 'configmaps "compat-gen-x7k2p" already exists',
    });
    assert.deepEqual(normalized, {
      metadata: {
        managedFields: [
          { ...a, time: "<time>" },
          { ...b, time: "<time>" },
        ],
      },
      message: 'configmaps "compat-gen-<suffix>" already exists',
    });
  });

  it("keeps what a client may rely on: names, a headless service's None, empty values", () => {
    const body = { metadata: { name: "web", resourceVersion: "" }, spec: { clusterIP: "None" } };
    assert.deepEqual(normalize(body), body);
  });

  it("hides a Table's Age cells only", () => {
    const table = {
      kind: "Table",
      columnDefinitions: [{ name: "Name" }, { name: "Age" }],
      rows: [{ cells: ["web", "3s"] }],
    };
    assert.deepEqual(normalize(table), { ...table, rows: [{ cells: ["web", "<age>"] }] });
  });

  it("hides the cluster IP a Service's Table prints, and a uid inside a printed selector", () => {
    const table = {
      kind: "Table",
      columnDefinitions: [{ name: "Cluster-IP" }, { name: "Selector" }],
      rows: [
        { cells: ["10.0.0.17", "controller-uid=0fc4ae71-0002-42e6-b384-447bef560aa1,app=x"] },
        { cells: ["None", ""] },
      ],
    };
    assert.deepEqual(normalize(table), {
      ...table,
      rows: [{ cells: ["<cluster-ip>", "controller-uid=<uid>,app=x"] }, { cells: ["None", ""] }],
    });
  });
});

describe("compat comparison", () => {
  it("names each differing JSON path with both values, matching named list entries by name", () => {
    const reference = { spec: { containers: [{ name: "a", image: "x" }, { name: "b" }] } };
    const embedded = { spec: { containers: [{ name: "b" }] } };
    assert.deepEqual(diffJson(reference, embedded), [
      {
        path: "spec.containers[name=a]",
        reference: { name: "a", image: "x" },
        embedded: undefined,
      },
    ]);
    assert.deepEqual(diffJson([1, 2], [1, 3]), [{ path: "[1]", reference: 2, embedded: 3 }]);
  });

  it("compares statuses, media types and normalized bodies", () => {
    const where = { scenario: "configmaps", step: "get", served: true, compare: "body" as const };
    const req = { method: "GET", path: "/api/v1/namespaces/n/configmaps/a" };
    const same = compareReplies(
      where,
      req,
      { status: 200, contentType: "application/json", body: { metadata: { uid: UID } } },
      {
        status: 200,
        contentType: "application/json; charset=utf-8",
        body: { metadata: { uid: "x" } },
      },
    );
    assert.equal(same.sameStatus, true);
    assert.equal(same.sameBody, false);
    assert.deepEqual(same.difference?.paths, [
      { path: "metadata.uid", reference: "<uid>", embedded: "x" },
    ]);
    const onlyStatus = compareReplies(
      { ...where, compare: "status" },
      req,
      { status: 200, contentType: "application/json", body: {} },
      { status: 404, contentType: "text/plain", body: "no" },
    );
    assert.deepEqual(onlyStatus.difference?.status, { reference: 200, embedded: 404 });
    assert.equal(onlyStatus.sameBody, true);
  });

  it("groups differences by cause: unserved resources, status codes, differing paths, known", () => {
    const d = (scenario: string, more: Partial<Difference>): Difference => ({
      scenario,
      step: "create",
      method: "POST",
      path: `/x/${scenario}`,
      status: { reference: 201, embedded: 201 },
      paths: [],
      served: true,
      ...more,
    });
    const differences = [
      d("jobs", { served: false, status: { reference: 201, embedded: 404 } }),
      d("cronjobs", { served: false, status: { reference: 201, embedded: 404 } }),
      d("pods", { status: { reference: 201, embedded: 400 } }),
      d("pods", {
        paths: [
          { path: "spec.containers[name=main].x", reference: 1, embedded: 2 },
          { path: "spec.kept", reference: 1, embedded: 2 },
        ],
      }),
      d("deployments", {
        paths: [{ path: "spec.containers[name=other].x", reference: 1, embedded: 2 }],
      }),
      d("leases", { paths: [{ path: "spec.y", reference: 1, embedded: 2 }] }),
    ];
    const known = [
      { reason: "on purpose", matches: (x: Difference) => x.scenario === "leases" },
      {
        reason: "this path on purpose",
        matches: (_: Difference, at: { path: string } | undefined) => at?.path === "spec.kept",
      },
    ];
    assert.deepEqual(causesOf(differences[2]!, known), [
      { kind: "status", title: "create: kube-apiserver 201, embedded 400" },
    ]);
    const groups = groupByCause(differences, known).map((g) => [
      g.cause.kind,
      g.cause.title,
      g.differences.map((x) => x.scenario),
    ]);
    const section = compatibilitySection(
      { requests: 6, sameStatus: 3, sameBody: 0 },
      "kube-apiserver v1.36.2",
      4,
      groupByCause(differences, known),
    );
    assert.match(
      section,
      /\| unexplained: not served by the embedded server \| 2 +\| cronjobs, jobs \|/,
    );
    assert.match(section, /\| kept on purpose: on purpose +\| 1 +\| leases +\|/);
    assert.match(section, /`compat: 6 requests, 3 identical status codes, 0 identical bodies`/);
    assert.deepEqual(groups, [
      ["not served", "not served by the embedded server", ["jobs", "cronjobs"]],
      ["body", "spec.containers[name=…].x", ["pods", "deployments"]],
      ["status", "create: kube-apiserver 201, embedded 400", ["pods"]],
      ["known", "on purpose", ["leases"]],
      ["known", "this path on purpose", ["pods"]],
    ]);
  });

  it("generalizes a path over list items, watch events, indexes and field-manager details", () => {
    assert.equal(generalPath("items[0].spec.ports[1].nodePort"), "items[*].spec.ports[*].nodePort");
    assert.equal(generalPath("[3].object.metadata.labels"), "metadata.labels");
    assert.equal(
      generalPath("metadata.managedFields[0].fieldsV1.f:spec"),
      "metadata.managedFields",
    );
    assert.equal(
      generalPath("items[1].metadata.managedFields[0].time"),
      "items[*].metadata.managedFields",
    );
    assert.equal(generalPath("[2]"), "(event)");
  });

  it("rewrites only the document's generated section, and prints one summary line", () => {
    const doc = `# Compatibility\n\nintro\n\n${BEGIN}\nold\n${END}\n\nafter\n`;
    assert.equal(
      replaceSection(doc, "new"),
      `# Compatibility\n\nintro\n\n${BEGIN}\nnew\n${END}\n\nafter\n`,
    );
    assert.equal(replaceSection("# C\n", "new"), `# C\n\n${BEGIN}\nnew\n${END}\n`);
    assert.equal(
      summaryLine({ requests: 3, sameStatus: 2, sameBody: 1 }),
      "compat: 3 requests, 2 identical status codes, 1 identical bodies",
    );
  });
});

describe("compat scenarios", () => {
  it("cover at least 40 resources and 300 requests, each resource in a namespace of its own", () => {
    assert.ok(resources.length >= 40, `${resources.length} resources`);
    const scenarios = allScenarios();
    const requests = scenarios.reduce((n, s) => n + s.steps.length, 0);
    assert.ok(requests >= 300, `${requests} requests`);
    const names = scenarios.map((s) => s.name);
    assert.equal(new Set(names).size, names.length);
  });
});
