import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { startTestServer, type TestServer } from "kontroller/testing";
import { call } from "./helpers.ts";
import { AGE, ago, expectTable, MINUTE, TABLE } from "./table-rig.ts";

/*
 * A custom resource's Table: its CRD's printer columns, cells of each column type as
 * apiextensions-apiserver makes them, or Name and Age when the CRD names none. The expectations
 * are kube-apiserver 1.36's answers: the suite runs on both backends.
 */

const GROUP = "tables.example.com";
const NS = "tables-custom";

const column = (name: string, type: string, jsonPath: string, more = {}) => ({
  name,
  type,
  jsonPath,
  ...more,
});

function crd(plural: string, kind: string, columns: unknown[]) {
  return {
    apiVersion: "apiextensions.k8s.io/v1",
    kind: "CustomResourceDefinition",
    metadata: { name: `${plural}.${GROUP}` },
    spec: {
      group: GROUP,
      scope: "Namespaced",
      names: { plural, singular: kind.toLowerCase(), kind, listKind: `${kind}List` },
      versions: [
        {
          name: "v1",
          served: true,
          storage: true,
          schema: {
            openAPIV3Schema: {
              type: "object",
              properties: {
                spec: { type: "object", "x-kubernetes-preserve-unknown-fields": true },
              },
            },
          },
          ...(columns.length > 0 ? { additionalPrinterColumns: columns } : {}),
        },
      ],
    },
  };
}

/** Creates a custom resource once its CRD serves it (kube establishes a CRD a moment later). */
async function createWhenServed(
  url: string,
  plural: string,
  kind: string,
  name: string,
  spec = {},
) {
  const body = { apiVersion: `${GROUP}/v1`, kind, metadata: { name }, spec };
  for (let attempt = 0; attempt < 100; attempt++) {
    const made = await call(url, "POST", `/apis/${GROUP}/v1/namespaces/${NS}/${plural}`, body);
    if (made.status === 201) return;
    assert.equal(made.status, 404, JSON.stringify(made.body));
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  assert.fail(`${plural} never served`);
}

describe("Table columns of custom resources, as kube-apiserver prints them", () => {
  let s: TestServer;
  let url = "";
  before(async () => {
    s = await startTestServer();
    url = s.url;
    const made = await call(url, "POST", "/api/v1/namespaces", { metadata: { name: NS } });
    assert.equal(made.status, 201);
  });
  after(() => s.close());

  it("prints each printer column's cells by its type", async () => {
    const columns = [
      column("Size", "integer", ".spec.size", { description: "How big it is" }),
      column("Ratio", "number", ".spec.ratio"),
      column("Enabled", "boolean", ".spec.enabled"),
      column("Color", "string", ".spec.color", { priority: 1 }),
      column("Count", "string", ".spec.size"),
      column("Tags", "string", ".spec.tags"),
      column("Meta", "string", ".spec.meta"),
      column("Started", "date", ".spec.started"),
      column("Wrong", "integer", ".spec.color"),
      column("Missing", "string", ".spec.missing"),
    ];
    const made = await call(
      url,
      "POST",
      "/apis/apiextensions.k8s.io/v1/customresourcedefinitions",
      crd("widgets", "Widget", columns),
    );
    assert.equal(made.status, 201, JSON.stringify(made.body));
    await createWhenServed(url, "widgets", "Widget", "w", {
      size: 3,
      ratio: 1.5,
      enabled: true,
      color: "blue",
      tags: ["a", "b"],
      meta: { z: 1, a: { y: 2, b: 3 } },
      started: ago(15.5 * MINUTE),
    });
    await expectTable(url, `/apis/${GROUP}/v1/namespaces/${NS}/widgets`, {
      columns: [
        "Name",
        "Size:integer",
        "Ratio:number",
        "Enabled:boolean",
        "Color (wide)",
        "Count",
        "Tags",
        "Meta",
        "Started:date",
        "Wrong:integer",
        "Missing",
      ],
      rows: [
        [
          "w",
          3,
          1.5,
          true,
          "blue",
          "3",
          '["a","b"]',
          '{"a":{"b":3,"y":2},"z":1}',
          "15m",
          null,
          null,
        ],
      ],
    });
    const t = await call(url, "GET", `/apis/${GROUP}/v1/namespaces/${NS}/widgets`, undefined, {
      accept: TABLE,
    });
    const descriptions = t.body.columnDefinitions.map(
      (c: { description: string }) => c.description,
    );
    assert.equal(descriptions[1], "How big it is");
    assert.equal(
      descriptions[2],
      "Custom resource definition column (in JSONPath format): .spec.ratio",
    );
  });

  it("prints Name and Age (a date column) when the CRD names no columns", async () => {
    const made = await call(
      url,
      "POST",
      "/apis/apiextensions.k8s.io/v1/customresourcedefinitions",
      crd("gadgets", "Gadget", []),
    );
    assert.equal(made.status, 201, JSON.stringify(made.body));
    await createWhenServed(url, "gadgets", "Gadget", "g");
    await expectTable(url, `/apis/${GROUP}/v1/namespaces/${NS}/gadgets`, {
      columns: ["Name", "Age:date"],
      rows: [["g", AGE]],
    });
  });
});
