import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { type CustomResourceDefinition, isEstablished } from "./crd-type.ts";

const crd = (conditions?: { type: string; status: string }[]): CustomResourceDefinition => ({
  spec: {
    group: "example.com",
    names: { kind: "User", plural: "users" },
    scope: "Cluster",
    versions: [],
  },
  ...(conditions === undefined
    ? {}
    : { status: { conditions } as CustomResourceDefinition["status"] }),
});

describe("isEstablished", () => {
  it("is true only with an Established condition whose status is True", () => {
    assert.equal(
      isEstablished(
        crd([
          { type: "NamesAccepted", status: "True" },
          { type: "Established", status: "True" },
        ]),
      ),
      true,
    );
    assert.equal(isEstablished(crd([{ type: "Established", status: "False" }])), false);
    assert.equal(isEstablished(crd([{ type: "NamesAccepted", status: "True" }])), false);
    assert.equal(isEstablished(crd()), false);
    assert.equal(isEstablished(undefined), false);
  });
});
