import assert from "node:assert/strict";
import { writeFile } from "node:fs/promises";
import { describe, it } from "node:test";
import { kubectlRig } from "./kubectl-rig.ts";

/**
 * `kubectl apply --server-side` against the embedded server, on a built-in kind and on a custom
 * resource: creating, re-applying, a conflict between two field managers, `--force-conflicts`,
 * a field dropped from the configuration, and the move from client-side apply. kubectl is on
 * the machine and in CI (a machine without it fails here).
 */
describe("kubectl apply --server-side against the embedded API server", () => {
  const rig = kubectlRig("kubectl-ssa");
  const { kubectl, fails, file } = rig;
  const json = async (...what: string[]) =>
    JSON.parse(await kubectl("get", ...what, "-o", "json", "--show-managed-fields"));
  /** `manager operation` → the data keys (or spec fields) it owns. */
  const owned = (
    o: {
      metadata: {
        managedFields?: {
          manager: string;
          operation: string;
          fieldsV1: Record<string, Record<string, unknown>>;
        }[];
      };
    },
    top: string,
  ) =>
    Object.fromEntries(
      (o.metadata.managedFields ?? []).map((e) => [
        `${e.manager} ${e.operation}`,
        Object.keys(e.fieldsV1[top] ?? {}).filter((k) => k !== "."),
      ]),
    );

  it("applies a ConfigMap, reports a conflict between field managers, forces it, and removes a dropped field", async () => {
    const cm = (data: string) =>
      `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: web\ndata:\n${data}`;
    const mine = await file("web.yaml", cm("  a: '1'\n  b: '2'\n"));
    assert.match(
      await kubectl("apply", "--server-side", "-f", mine),
      /configmap\/web serverside-applied/,
    );
    assert.match(
      await kubectl("apply", "--server-side", "-f", mine),
      /configmap\/web serverside-applied/,
    );
    let got = await json("cm", "web");
    assert.deepEqual(owned(got, "f:data"), { "kubectl Apply": ["f:a", "f:b"] });

    const theirs = await file("theirs.yaml", cm("  a: '9'\n"));
    const conflict = await fails("apply", "--server-side", "--field-manager=other", "-f", theirs);
    assert.match(conflict, /Apply failed with 1 conflict: conflict with "kubectl": \.data\.a/);
    assert.match(conflict, /--force-conflicts/);
    assert.deepEqual((await json("cm", "web")).data, { a: "1", b: "2" }, "nothing changed");

    await kubectl(
      "apply",
      "--server-side",
      "--field-manager=other",
      "--force-conflicts",
      "-f",
      theirs,
    );
    got = await json("cm", "web");
    assert.deepEqual(got.data, { a: "9", b: "2" });
    assert.deepEqual(owned(got, "f:data"), { "kubectl Apply": ["f:b"], "other Apply": ["f:a"] });

    // kubectl drops b from its configuration: it owned b alone, so b goes; a stays (other's).
    await writeFile(mine, cm("  c: '3'\n"));
    await kubectl("apply", "--server-side", "-f", mine);
    assert.deepEqual((await json("cm", "web")).data, { a: "9", c: "3" });
  });

  it("takes over what kubectl applied client-side, without conflicts", async () => {
    const cm = (a: string) =>
      `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: moved\ndata:\n  a: '${a}'\n  b: '2'\n`;
    const p = await file("moved.yaml", cm("1"));
    assert.match(await kubectl("apply", "-f", p), /configmap\/moved created/);
    await writeFile(p, cm("5"));
    assert.match(await kubectl("apply", "--server-side", "-f", p), /serverside-applied/);
    const got = await json("cm", "moved");
    assert.deepEqual(got.data, { a: "5", b: "2" });
    assert.deepEqual(owned(got, "f:data")["kubectl Apply"], ["f:a", "f:b"]);
    assert.equal(
      got.metadata.annotations["kubectl.kubernetes.io/last-applied-configuration"],
      '{"apiVersion":"v1","data":{"a":"5","b":"2"},"kind":"ConfigMap","metadata":{"name":"moved","namespace":"default"}}\n',
      "the annotation follows what was applied",
    );
  });

  it("applies a custom resource by its schema: conflicts, forces and removes list items", async () => {
    const crd = await file(
      "crd.yaml",
      `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: routers.ssa.example.com
spec:
  group: ssa.example.com
  scope: Namespaced
  names: {plural: routers, singular: router, kind: Router}
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            properties:
              size: {type: integer}
              routes:
                type: array
                x-kubernetes-list-type: map
                x-kubernetes-list-map-keys: [path]
                items:
                  type: object
                  required: [path]
                  properties:
                    path: {type: string}
                    backend: {type: string}
`,
    );
    await kubectl("apply", "--server-side", "-f", crd);
    await kubectl(
      "wait",
      "--for=condition=Established",
      "crd/routers.ssa.example.com",
      "--timeout=10s",
    );
    const router = (spec: string) =>
      `apiVersion: ssa.example.com/v1\nkind: Router\nmetadata:\n  name: r\nspec:\n${spec}`;
    const mine = await file(
      "r.yaml",
      router("  size: 1\n  routes:\n  - {path: /a, backend: a}\n  - {path: /b, backend: b}\n"),
    );
    assert.match(
      await kubectl("apply", "--server-side", "-f", mine),
      /router.ssa.example.com\/r serverside-applied/,
    );
    const theirs = await file(
      "r2.yaml",
      router("  size: 2\n  routes:\n  - {path: /c, backend: c}\n"),
    );
    const conflict = await fails("apply", "--server-side", "--field-manager=scaler", "-f", theirs);
    assert.match(conflict, /Apply failed with 1 conflict: conflict with "kubectl": \.spec\.size/);
    await kubectl(
      "apply",
      "--server-side",
      "--field-manager=scaler",
      "--force-conflicts",
      "-f",
      theirs,
    );
    let got = await json("router", "r");
    assert.equal(got.spec.size, 2);
    assert.deepEqual(
      got.spec.routes.map((r: { path: string }) => r.path),
      ["/a", "/b", "/c"],
      "the routes list merges by path",
    );
    // kubectl drops /b and size (now scaler's): /b goes, size stays.
    await writeFile(mine, router("  routes:\n  - {path: /a, backend: a}\n"));
    await kubectl("apply", "--server-side", "-f", mine);
    got = await json("router", "r");
    assert.equal(got.spec.size, 2);
    assert.deepEqual(
      got.spec.routes.map((r: { path: string }) => r.path),
      ["/a", "/c"],
    );
  });
});
