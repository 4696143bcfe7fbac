/**
 * `kubectl explain` against the embedded server: it reads /openapi/v3, fetches the
 * group-version's document and finds the kind by `x-kubernetes-group-version-kind` — built-in
 * kinds from the generated schemas, custom resources from their CRDs. Also: kubectl's strict
 * validation still works with real schemas published, and kubectl's HTTP cache keeps a document
 * it fetched by hash.
 */
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { join } from "node:path";
import { describe, it } from "node:test";
import { promisify } from "node:util";
import { startFaultProxy, startTestServer } from "kontroller/testing";
import { kubectlRig } from "./kubectl-rig.ts";

const run = promisify(execFile);

describe("kubectl explain against the embedded API server", () => {
  const rig = kubectlRig("explain");
  const { kubectl, fails, file } = rig;

  it("explains pods.spec.containers: its fields, their types, descriptions and required ones", async () => {
    const out = await kubectl("explain", "pods.spec.containers");
    assert.match(out, /^KIND:\s+Pod\nVERSION:\s+v1\n/);
    assert.match(out, /FIELD: containers <\[\]Container>/);
    assert.match(out, /List of containers belonging to the pod\./);
    assert.match(out, /\n {2}name\t<string> -required-\n/);
    assert.match(out, /\n {2}image\t<string>\n {4}Container image name\./);
    assert.match(out, /\n {2}ports\t<\[\]ContainerPort>\n/);
    assert.match(out, /\n {2}env\t<\[\]EnvVar>\n/);
    assert.match(out, /\n {2}resources\t<ResourceRequirements>\n/);
    const limits = await kubectl("explain", "pods.spec.containers.resources.limits");
    assert.match(limits, /FIELD: limits <map\[string\]Quantity>/);
    assert.match(limits, /Limits describes the maximum amount of compute resources allowed/);
    const port = await kubectl("explain", "services.spec.ports.targetPort");
    assert.match(port, /FIELD: targetPort <IntOrString>/);
    assert.match(port, /Number or name of the port to access on the pods/);
  });

  it("explains deployment.spec.strategy, in the apps group", async () => {
    const out = await kubectl("explain", "deployment.spec.strategy");
    assert.match(out, /^GROUP:\s+apps\nKIND:\s+Deployment\nVERSION:\s+v1\n/);
    assert.match(out, /FIELD: strategy <DeploymentStrategy>/);
    assert.match(out, /DeploymentStrategy describes how to replace existing pods with new ones/);
    assert.match(out, /\n {2}rollingUpdate\t<RollingUpdateDeployment>\n/);
    // kube's schema lists the enum (kubectl prints it under the type); the OpenAPI documents the
    // embedded server's schemas come from lack this one.
    assert.match(
      out,
      /\n {2}type\t<string>\n( {2}enum: Recreate, RollingUpdate\n)? {4}Type of deployment\. Can be "Recreate" or/,
    );
    const surge = await kubectl("explain", "deployment.spec.strategy.rollingUpdate.maxSurge");
    assert.match(surge, /FIELD: maxSurge <IntOrString>/);
  });

  it("explains configmap --recursive: every field, nested through ObjectMeta", async () => {
    const out = await kubectl("explain", "configmap", "--recursive");
    assert.match(out, /DESCRIPTION:\n {4}ConfigMap holds configuration data for pods to consume\./);
    for (const line of [
      "  apiVersion\t<string>",
      "  binaryData\t<map[string]string>",
      "  data\t<map[string]string>",
      "  immutable\t<boolean>",
      "  kind\t<string>",
      "  metadata\t<ObjectMeta>",
      "    labels\t<map[string]string>",
      "    ownerReferences\t<[]OwnerReference>",
      "      uid\t<string> -required-",
      "    resourceVersion\t<string>",
    ]) {
      assert.ok(out.includes(`\n${line}\n`), `missing ${JSON.stringify(line)} in:\n${out}`);
    }
  });

  it("explains every other served kind", async () => {
    for (const [args, kind, field] of [
      [["namespaces.spec"], "Namespace", /finalizers\t<\[\]string>/],
      [["secrets"], "Secret", /stringData\t<map\[string\]string>/],
      [["serviceaccounts"], "ServiceAccount", /secrets\t<\[\]ObjectReference>/],
      [["nodes.status"], "Node", /capacity\t<map\[string\]Quantity>/],
      [["events"], "Event", /involvedObject\t<ObjectReference> -required-/],
      [["events", "--api-version=events.k8s.io/v1"], "Event", /regarding\t<ObjectReference>/],
      [["leases.spec"], "Lease", /renewTime\t<string>\n {4}renewTime is a time/],
      [
        ["crd.spec"],
        "CustomResourceDefinition",
        /versions\t<\[\]CustomResourceDefinitionVersion> -required-/,
      ],
    ] as const) {
      const out = await kubectl("explain", ...args);
      assert.match(out, new RegExp(`KIND:\\s+${kind}\\n`), args.join(" "));
      assert.match(out, field, args.join(" "));
    }
    assert.match(
      await fails("explain", "pods.spec.containerz"),
      /field "containerz" does not exist/,
    );
  });

  it("explains the kinds of every group: ingresses, RBAC, batch, both HPA versions, discovery, scheduling", async () => {
    for (const [args, header, field, lines] of [
      [
        ["ingress.spec.rules"],
        "GROUP:\\s+networking\\.k8s\\.io\\nKIND:\\s+Ingress\\nVERSION:\\s+v1",
        /FIELD: rules <\[\]IngressRule>/,
        [/rules is a list of host rules used to configure the Ingress/, /\n {2}host\t<string>\n/],
      ],
      [
        ["clusterrole.rules"],
        "GROUP:\\s+rbac\\.authorization\\.k8s\\.io\\nKIND:\\s+ClusterRole",
        /FIELD: rules <\[\]PolicyRule>/,
        [/\n {2}verbs\t<\[\]string> -required-\n/, /\n {2}resourceNames\t<\[\]string>\n/],
      ],
      [
        ["cronjob.spec.jobTemplate"],
        "GROUP:\\s+batch\\nKIND:\\s+CronJob",
        /FIELD: jobTemplate <JobTemplateSpec>/,
        [
          /Specifies the job that will be created when executing a CronJob/,
          /\n {2}spec\t<JobSpec>\n/,
        ],
      ],
      [
        ["hpa.spec", "--api-version=autoscaling/v1"],
        "GROUP:\\s+autoscaling\\nKIND:\\s+HorizontalPodAutoscaler\\nVERSION:\\s+v1",
        /FIELD: spec <HorizontalPodAutoscalerSpec>/,
        [
          /\n {2}targetCPUUtilizationPercentage\t<integer>\n/,
          /\n {2}scaleTargetRef\t<CrossVersionObjectReference> -required-\n/,
        ],
      ],
      [
        ["hpa.spec"],
        "GROUP:\\s+autoscaling\\nKIND:\\s+HorizontalPodAutoscaler\\nVERSION:\\s+v2",
        /FIELD: spec <HorizontalPodAutoscalerSpec>/,
        [
          /\n {2}metrics\t<\[\]MetricSpec>\n/,
          /\n {2}behavior\t<HorizontalPodAutoscalerBehavior>\n/,
        ],
      ],
      [
        ["endpointslice"],
        "GROUP:\\s+discovery\\.k8s\\.io\\nKIND:\\s+EndpointSlice",
        /EndpointSlice represents a set of service endpoints/,
        [/\n {2}addressType\t<string> -required-\n/, /\n {2}endpoints\t<\[\]Endpoint>\n/],
      ],
      [
        ["priorityclass"],
        "GROUP:\\s+scheduling\\.k8s\\.io\\nKIND:\\s+PriorityClass",
        /PriorityClass defines mapping from a priority class name to the priority/,
        [/\n {2}value\t<integer>/, /\n {2}globalDefault\t<boolean>\n/],
      ],
    ] as const) {
      const out = await kubectl("explain", ...args);
      assert.match(out, new RegExp(`^${header}`), args.join(" "));
      assert.match(out, field, args.join(" "));
      for (const line of lines) assert.match(out, line, `${args.join(" ")}:\n${out}`);
    }
  });

  it("explains a custom resource from its CRD schema, with ObjectMeta as metadata", async () => {
    const crd = await file(
      "crd.yaml",
      `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: gauges.explain.example.com
spec:
  group: explain.example.com
  scope: Namespaced
  names: {plural: gauges, singular: gauge, kind: Gauge}
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
            description: What the gauge measures.
            required: [unit]
            properties:
              unit: {type: string, description: The unit of the reading.}
              limit: {type: integer}
`,
    );
    await kubectl("apply", "-f", crd);
    await kubectl("wait", "--for=condition=Established", "crd/gauges.explain.example.com");
    // kube-apiserver publishes a new CRD's OpenAPI a moment after it is established: ask for
    // the index until it lists the group-version (each ask is a kubectl round trip).
    for (let asked = 1; ; asked++) {
      const index = JSON.parse(await kubectl("get", "--raw", "/openapi/v3"));
      if ("apis/explain.example.com/v1" in index.paths) break;
      assert.ok(asked < 300, "the CRD's OpenAPI document was never published");
    }
    const spec = await kubectl("explain", "gauges.spec");
    assert.match(spec, /GROUP:\s+explain\.example\.com\nKIND:\s+Gauge\n/);
    assert.match(spec, /What the gauge measures\./);
    assert.match(spec, /\n {2}unit\t<string> -required-\n {4}The unit of the reading\.\n/);
    assert.match(spec, /\n {2}limit\t<integer>\n/);
    const meta = await kubectl("explain", "gauges.metadata");
    assert.match(meta, /FIELD: metadata <ObjectMeta>/);
    assert.match(meta, /\n {2}labels\t<map\[string\]string>\n/);
    // Strict validation (kubectl's default) still checks custom resources on the server.
    const cr = await file(
      "cr.yaml",
      "apiVersion: explain.example.com/v1\nkind: Gauge\nmetadata:\n  name: g\nspec:\n  unit: bar\n  limt: 3\n",
    );
    assert.match(await fails("create", "-f", cr), /unknown field "spec.limt"/);
    await kubectl("delete", "-f", crd);
  });

  it("applies built-ins with strict validation, which still refuses a misspelt nested field", async () => {
    const deploy = (field: string) =>
      `apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  selector:\n    matchLabels: {app: web}\n  template:\n    metadata:\n      labels: {app: web}\n    spec:\n      containers:\n      - name: c\n        ${field}: nginx:1\n        ports: [{containerPort: 80}]\n        resources: {limits: {cpu: 500m, memory: 64Mi}}\n`;
    const good = await file("deploy.yaml", deploy("image"));
    assert.match(await kubectl("apply", "-f", good), /deployment.apps\/web created/);
    assert.match(await kubectl("apply", "-f", good), /deployment.apps\/web unchanged/);
    const typo = await file("typo.yaml", deploy("imagee"));
    assert.match(
      await fails("apply", "-f", typo),
      /strict decoding error: unknown field "spec.template.spec.containers\[0\].imagee"/,
    );
  });

  it("applies an Ingress with strict validation, which refuses a misspelt field", async () => {
    const ingress = (field: string) =>
      `apiVersion: networking.k8s.io/v1\nkind: Ingress\nmetadata:\n  name: web\nspec:\n  rules:\n  - host: web.example.com\n    http:\n      paths:\n      - path: /\n        ${field}: Prefix\n        backend:\n          service: {name: web, port: {number: 80}}\n`;
    const good = await file("ingress.yaml", ingress("pathType"));
    assert.match(await kubectl("apply", "-f", good), /ingress.networking.k8s.io\/web created/);
    const typo = await file("ingress-typo.yaml", ingress("pathTyp"));
    assert.match(
      await fails("apply", "-f", typo),
      /strict decoding error: unknown field "spec.rules\[0\].http.paths\[0\].pathTyp"/,
    );
    await kubectl("delete", "-f", good);
  });

  it("is answered from kubectl's HTTP cache the second time: a document fetched by hash is not fetched again", async () => {
    // A server of its own over plain HTTP: the fault proxy that counts the requests forwards
    // to HTTP only.
    await using plain = await startTestServer({ controllers: false });
    await using proxy = await startFaultProxy({ target: plain.url });
    const cached = (...args: string[]) =>
      run("kubectl", ["--kubeconfig", plain.kubeconfigPath, "--server", proxy.url, ...args], {
        env: { ...process.env, KUBECACHEDIR: join(rig.dir, "proxied-cache"), HOME: rig.dir },
        timeout: 30_000,
      });
    const fetched = () =>
      proxy.requests.filter((r) => r.path === "/openapi/v3/api/v1").map((r) => r.query.get("hash"));
    assert.match((await cached("explain", "pods.spec")).stdout, /FIELD: spec <PodSpec>/);
    const first = fetched();
    assert.equal(first.length, 1, "the first explain fetches the document");
    assert.match(first[0] ?? "", /^[0-9A-F]{128}$/);
    assert.match((await cached("explain", "pods.status")).stdout, /FIELD: status <PodStatus>/);
    assert.deepEqual(fetched(), first, "the second reads it from the cache");
  });
});
