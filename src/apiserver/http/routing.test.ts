import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { verbOf } from "./resource-handler.ts";
import type { ResourceRequest, Verb } from "./types.ts";

const path = (name: string, subresource = ""): ResourceRequest => ({
  group: "",
  version: "v1",
  namespace: "ns",
  namespaced: true,
  resource: "pods",
  name,
  subresource,
});

describe("routing by verb", () => {
  const table: [string, ResourceRequest, string, Verb | undefined][] = [
    ["GET", path(""), "", "list"],
    ["GET", path(""), "watch=true", "watch"],
    ["GET", path(""), "watch=false", "list"],
    ["GET", path("a"), "", "get"],
    ["GET", path("a"), "watch=1", "watch"],
    ["GET", path("a", "status"), "", "get"],
    ["GET", path("a", "scale"), "watch=true", "get"],
    ["POST", path(""), "", "create"],
    ["POST", path("a", "binding"), "", "create"],
    ["PUT", path("a"), "", "update"],
    ["PATCH", path("a"), "", "patch"],
    ["DELETE", path("a"), "", "delete"],
    ["DELETE", path(""), "", "deletecollection"],
    ["OPTIONS", path("a"), "", undefined],
  ];
  for (const [method, r, query, want] of table) {
    const where = `${r.name || "(collection)"}${r.subresource ? `/${r.subresource}` : ""}`;
    it(`${method} ${where}${query ? `?${query}` : ""} is ${want ?? "no verb (405)"}`, () => {
      assert.equal(verbOf(method, r, new URLSearchParams(query)), want);
    });
  }
});
