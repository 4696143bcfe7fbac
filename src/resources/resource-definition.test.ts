import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { builtinResources, configMaps, namespaces } from "./builtins.ts";
import { apiVersionOf, resourceDefinition } from "./resource-definition.ts";

describe("resourceDefinition", () => {
  it("fills in singular, scope, listKind, shortNames and categories", () => {
    const def = resourceDefinition({
      group: "example.com",
      version: "v1",
      kind: "Widget",
      plural: "widgets",
    });
    assert.equal(def.singular, "widget");
    assert.equal(def.scope, "Namespaced");
    assert.equal(def.listKind, "WidgetList");
    assert.deepEqual(def.shortNames, []);
    assert.ok(Object.isFrozen(def));
    assert.equal(apiVersionOf(def), "example.com/v1");
  });

  it("describes the built-in kinds with core apiVersions and unique group/plural pairs", () => {
    assert.equal(apiVersionOf(configMaps), "v1");
    assert.equal(namespaces.scope, "Cluster");
    const seen = new Set(builtinResources.map((d) => `${d.group}/${d.version}/${d.plural}`));
    assert.equal(seen.size, builtinResources.length);
  });
});
