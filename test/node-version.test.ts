import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { it } from "node:test";

it("runs on the Node the project pins (the `node` devDependency), whatever the machine has", () => {
  const pkg = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")) as {
    devDependencies: Record<string, string>;
  };
  const pinned = /\d+/.exec(pkg.devDependencies.node ?? "")?.[0];
  assert.equal(process.versions.node.split(".")[0], pinned);
});
