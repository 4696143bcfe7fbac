import assert from "node:assert/strict";
import { execFile, spawn } from "node:child_process";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, it } from "node:test";
import { promisify } from "node:util";
import { startFaultProxy } from "kontroller/testing";
import { call } from "./helpers.ts";
import { kubectlRig } from "./kubectl-rig.ts";

const run = promisify(execFile);

/** kubectl against the test server; a machine without kubectl fails here (CI requires it). */
describe("kubectl against the embedded API server", () => {
  const rig = kubectlRig("kubectl");
  const { kubectl, fails, file } = rig;

  it("applies, creates, gets (Table and YAML), labels, annotates and patches built-ins", async () => {
    const cm = await file(
      "cm.yaml",
      "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: web\ndata:\n  a: '1'\n",
    );
    assert.match(await kubectl("apply", "-f", cm), /configmap\/web created/);
    assert.match(await kubectl("apply", "-f", cm), /configmap\/web unchanged/);
    await writeFile(
      cm,
      "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: web\ndata:\n  a: '2'\n",
    );
    assert.match(await kubectl("apply", "-f", cm), /configmap\/web configured/);
    const table = await kubectl("get", "configmaps");
    assert.match(table, /^NAME\s+DATA\s+AGE\n/);
    assert.match(table, /\nweb\s+1\s+\S+\n/);
    const everywhere = await kubectl("get", "configmaps", "-A", "--show-labels");
    assert.match(everywhere, /^NAMESPACE\s+NAME\s+DATA\s+AGE\s+LABELS\n/);
    assert.match(everywhere, /\ndefault\s+web\s+1\s+\S+\s+<none>\n/);
    const yaml = await kubectl("get", "cm", "web", "-o", "yaml");
    assert.match(yaml, /a: "2"/);
    assert.match(yaml, /resourceVersion: "\d+"/);
    await kubectl("label", "cm", "web", "tier=front");
    await kubectl("annotate", "cm", "web", "note=hello");
    await kubectl("patch", "cm", "web", "-p", '{"data":{"b":"3"}}');
    await kubectl("patch", "cm", "web", "--type=merge", "-p", '{"data":{"c":"4"}}');
    await kubectl("patch", "cm", "web", "--type=json", "-p", '[{"op":"remove","path":"/data/a"}]');
    const got = JSON.parse(await kubectl("get", "cm", "web", "-o", "json"));
    assert.deepEqual(got.data, { b: "3", c: "4" });
    assert.equal(got.metadata.labels.tier, "front");
    assert.equal(got.metadata.annotations.note, "hello");
    const deploy = await file(
      "deploy.yaml",
      "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: app\nspec:\n  selector:\n    matchLabels: {app: x}\n  template:\n    metadata:\n      labels: {app: x}\n    spec:\n      containers:\n      - name: c\n        image: nginx:1\n",
    );
    assert.match(await kubectl("create", "-f", deploy), /deployment.apps\/app created/);
    assert.match(await kubectl("get", "deploy"), /app\s+0\/1\s+0\s+0/);
    // kubectl validates strictly by default: an unknown field of a built-in kind is an error;
    // with --validate=warn it is dropped and reported.
    const typo = await file(
      "typo.yaml",
      "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: typo\ndat:\n  a: '1'\n",
    );
    assert.match(
      await fails("create", "-f", typo),
      /ConfigMap in version "v1" cannot be handled as a ConfigMap: strict decoding error: unknown field "dat"/,
    );
    const { stderr } = await run(
      "kubectl",
      ["--kubeconfig", rig.server.kubeconfigPath, "create", "--validate=warn", "-f", typo],
      { env: rig.env(), timeout: 30_000 },
    );
    assert.match(stderr, /Warning: unknown field "dat"/);
    const bad = await file(
      "bad.yaml",
      "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: Bad_Name\n",
    );
    assert.match(
      await fails("create", "-f", bad),
      /is invalid: metadata.name: Invalid value: "Bad_Name"/,
    );
  });

  it("deletes with and without finalizers, waiting for the object to go", async () => {
    // (`kubectl create configmap` sends protobuf, which this server refuses with 415 for now.)
    await kubectl(
      "create",
      "-f",
      await file("plain.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: plain\n"),
    );
    assert.match(await kubectl("delete", "cm", "plain"), /configmap "plain" deleted/);
    const held = await file(
      "held.yaml",
      "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: held\n  finalizers: [example.com/hold]\n",
    );
    await kubectl("create", "-f", held);
    assert.match(await kubectl("delete", "cm", "held", "--wait=false"), /configmap "held" deleted/);
    assert.match(
      await kubectl("get", "cm", "held", "-o", "jsonpath={.metadata.deletionTimestamp}"),
      /\d{4}-/,
    );
    await kubectl(
      "patch",
      "cm",
      "held",
      "--type=json",
      "-p",
      '[{"op":"remove","path":"/metadata/finalizers"}]',
    );
    assert.match(await fails("get", "cm", "held"), /NotFound/);
  });

  it("reports Kubernetes 1.36 as the server's version, and dry-runs a delete on the server", async () => {
    const { stdout, stderr } = await run(
      "kubectl",
      ["--kubeconfig", rig.server.kubeconfigPath, "version", "-o", "json"],
      { env: rig.env(), timeout: 30_000 },
    );
    const { clientVersion, serverVersion } = JSON.parse(stdout);
    assert.match(serverVersion.gitVersion, /^v1\.36\.\d+$/);
    assert.equal(serverVersion.minor, "36");
    // kubectl's own warning where its minor version is more than one from the server's.
    const skewed = Math.abs(Number.parseInt(clientVersion.minor, 10) - 36) > 1;
    assert.match(stderr, skewed ? /^WARNING: version difference between client/ : /^$/);
    await kubectl(
      "create",
      "-f",
      await file("dry.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: dry\n"),
    );
    assert.match(
      await kubectl("delete", "cm", "dry", "--dry-run=server"),
      /deleted \(server dry run\)/,
    );
    assert.match(await kubectl("get", "cm", "dry", "-o", "name"), /configmap\/dry/);
  });

  it("lists api-resources and watches with get -w", async () => {
    const resources = await kubectl("api-resources");
    for (const r of [
      "configmaps",
      "namespaces",
      "deployments",
      "leases",
      "customresourcedefinitions",
    ]) {
      assert.match(resources, new RegExp(`\\n${r}\\s`));
    }
    const child = spawn("kubectl", ["--kubeconfig", rig.server.kubeconfigPath, "get", "cm", "-w"], {
      env: rig.env(),
    });
    let out = "";
    let started = false;
    // The first output (rows, or "No resources found") comes after the list and before the
    // watch; the watch starts at the list's resourceVersion, so a create now is seen by it.
    const create = () => {
      if (started) return;
      started = true;
      void call(rig.server.url, "POST", "/api/v1/namespaces/default/configmaps", {
        metadata: { name: "watched" },
      });
    };
    const seen = new Promise<void>((resolve) => {
      child.stderr.on("data", create);
      child.stdout.on("data", (d: Buffer) => {
        out += d.toString();
        if (/watched/.test(out)) resolve();
        else create();
      });
    });
    await seen;
    child.kill();
    assert.match(out, /watched\s+0\s+\S+/);
  });

  it("applies a CRD and then a custom resource of it, printing its columns", async () => {
    const crd = await file(
      "crd.yaml",
      `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: gadgets.example.com
spec:
  group: example.com
  scope: Namespaced
  names: {plural: gadgets, singular: gadget, kind: Gadget}
  versions:
  - name: v1
    served: true
    storage: true
    additionalPrinterColumns:
    - {name: Size, type: integer, jsonPath: .spec.size}
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            properties:
              size: {type: integer}
`,
    );
    await kubectl("apply", "-f", crd);
    await kubectl(
      "wait",
      "--for=condition=Established",
      "crd/gadgets.example.com",
      "--timeout=10s",
    );
    const cr = await file(
      "cr.yaml",
      "apiVersion: example.com/v1\nkind: Gadget\nmetadata:\n  name: g1\nspec:\n  size: 3\n",
    );
    assert.match(await kubectl("apply", "-f", cr), /gadget.example.com\/g1 created/);
    assert.match(await kubectl("get", "gadgets"), /^NAME\s+SIZE\n/);
    assert.match(await kubectl("get", "gadgets"), /\ng1\s+3\n/);
    await writeFile(
      cr,
      "apiVersion: example.com/v1\nkind: Gadget\nmetadata:\n  name: g1\nspec:\n  size: 4\n",
    );
    assert.match(await kubectl("apply", "-f", cr), /configured/);
    const strict = await file(
      "strict.yaml",
      "apiVersion: example.com/v1\nkind: Gadget\nmetadata:\n  name: g2\nspec:\n  size: 1\n  extra: true\n",
    );
    assert.match(await fails("create", "-f", strict), /unknown field "spec.extra"/);
    // explain reads the CRD's schema from the group-version's OpenAPI v3 document.
    const explained = await kubectl("explain", "gadgets.spec");
    assert.match(explained, /KIND:\s+Gadget/);
    assert.match(explained, /size\s+<integer>/);
    assert.match(await kubectl("delete", "gadget", "g1"), /deleted/);
  });

  it("discovers from the aggregated /api and /apis alone, with no request per group-version", async () => {
    const crd = await file(
      "sprockets.yaml",
      `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: sprockets.example.org
spec:
  group: example.org
  scope: Cluster
  names: {plural: sprockets, singular: sprocket, kind: Sprocket, shortNames: [spr]}
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema: {type: object, x-kubernetes-preserve-unknown-fields: true}
`,
    );
    await kubectl("apply", "-f", crd);
    await kubectl(
      "wait",
      "--for=condition=Established",
      "crd/sprockets.example.org",
      "--timeout=10s",
    );
    await kubectl(
      "apply",
      "-f",
      await file("s1.yaml", "apiVersion: example.org/v1\nkind: Sprocket\nmetadata:\n  name: s1\n"),
    );
    // Through a proxy that records every request, with a cache of its own: discovery from scratch.
    await using proxy = await startFaultProxy({
      target: rig.server.url,
      ...(rig.tls === undefined ? {} : { tls: rig.tls }),
    });
    const fresh = async (...args: string[]) =>
      (
        await run(
          "kubectl",
          ["--kubeconfig", rig.server.kubeconfigPath, "--server", proxy.url, ...args],
          {
            env: { ...process.env, KUBECACHEDIR: join(rig.dir, "fresh-cache"), HOME: rig.dir },
            timeout: 30_000,
          },
        )
      ).stdout;
    const resources = await fresh("api-resources");
    assert.match(resources, /\nsprockets\s+spr\s+example\.org\/v1\s+false\s+Sprocket\n/);
    assert.match(resources, /\nconfigmaps\s+cm\s+v1\s+true\s+ConfigMap\n/);
    assert.match(await fresh("get", "spr"), /\ns1\s+\S+\n/);
    const paths = proxy.requests.map((r) => r.path);
    assert.ok(paths.includes("/api") && paths.includes("/apis"), paths.join(" "));
    const perGroupVersion = paths.filter(
      (p) => /^\/api\/[^/]+$/.test(p) || /^\/apis\/[^/]+(\/[^/]+)?$/.test(p),
    );
    assert.deepEqual(perGroupVersion, [], "legacy discovery fetches each group-version");
    await kubectl("delete", "-f", crd);
  });
});
