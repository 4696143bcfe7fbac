import assert from "node:assert/strict";
import { before, describe, it } from "node:test";
import { call } from "./helpers.ts";
import { kubectlRig } from "./kubectl-rig.ts";
import { AGE, ago, create, expectTable, MINUTE } from "./table-rig.ts";

/*
 * The Table columns kube-apiserver prints for pods, the workloads and Services, the `-o wide`
 * ones included, with cells computed as its printers compute them; and `kubectl get -o wide`
 * printing them. The expectations are kube-apiserver 1.36's answers: the suite runs on both
 * backends (KONTROLLER_TEST_BACKEND=kube-apiserver).
 */

const NS = "tables-apps";
const api = `/api/v1/namespaces/${NS}`;
const apps = `/apis/apps/v1/namespaces/${NS}`;
const batch = `/apis/batch/v1/namespaces/${NS}`;

const containers = [
  { name: "a", image: "nginx" },
  { name: "b", image: "redis" },
];
const template = (labels: Record<string, string>, extra: Record<string, unknown> = {}) => ({
  metadata: { labels },
  spec: { containers, ...extra },
});
const meta = (name: string) => ({ name, namespace: NS });

describe("Table columns of pods, workloads and Services, as kube-apiserver prints them", () => {
  const rig = kubectlRig("table-apps", { controllers: false });
  let url = "";

  before(async () => {
    url = rig.server.url;
    await create(url, "/api/v1/namespaces", { metadata: { name: NS } });
  });

  it("prints a pod's readiness, status, restarts and wide columns from its status", async () => {
    await create(
      url,
      `${api}/pods`,
      {
        metadata: meta("web"),
        spec: {
          initContainers: [{ name: "init", image: "busybox" }],
          containers,
          readinessGates: [{ conditionType: "example.com/gate" }],
        },
      },
      {
        phase: "Running",
        podIP: "10.1.2.3",
        podIPs: [{ ip: "10.1.2.3" }],
        nominatedNodeName: "node-b",
        conditions: [
          { type: "Initialized", status: "True" },
          { type: "Ready", status: "False" },
          { type: "example.com/gate", status: "True" },
        ],
        initContainerStatuses: [
          {
            name: "init",
            image: "busybox",
            imageID: "",
            ready: false,
            restartCount: 0,
            state: { terminated: { exitCode: 0, reason: "Completed" } },
          },
        ],
        containerStatuses: [
          {
            name: "a",
            image: "nginx",
            imageID: "",
            ready: true,
            restartCount: 3,
            state: { running: { startedAt: ago(MINUTE) } },
            lastState: {
              terminated: { exitCode: 1, reason: "Error", finishedAt: ago(12.5 * MINUTE) },
            },
          },
          {
            name: "b",
            image: "redis",
            imageID: "",
            ready: false,
            restartCount: 0,
            state: { waiting: { reason: "CrashLoopBackOff" } },
          },
        ],
      },
    );
    await create(
      url,
      `${api}/pods`,
      {
        metadata: meta("starting"),
        spec: { nodeName: "node-a", initContainers: [{ name: "init", image: "x" }], containers },
      },
      {
        phase: "Pending",
        initContainerStatuses: [
          {
            name: "init",
            image: "x",
            imageID: "",
            ready: false,
            restartCount: 0,
            state: { waiting: { reason: "PodInitializing" } },
          },
        ],
      },
    );
    const completed = { terminated: { exitCode: 0, reason: "Completed" } };
    await create(
      url,
      `${api}/pods`,
      { metadata: meta("done"), spec: { containers } },
      {
        phase: "Succeeded",
        containerStatuses: containers.map((c) => ({
          ...c,
          imageID: "",
          ready: false,
          restartCount: 0,
          state: completed,
        })),
      },
    );
    await expectTable(url, `${api}/pods`, {
      columns: [
        "Name",
        "Ready",
        "Status",
        "Restarts",
        "Age",
        "IP (wide)",
        "Node (wide)",
        "Nominated Node (wide)",
        "Readiness Gates (wide)",
      ],
      rows: [
        ["done", "0/2", "Completed", "0", AGE, "<none>", "<none>", "<none>", "<none>"],
        ["starting", "0/2", "Init:0/1", "0", AGE, "<none>", "node-a", "<none>", "<none>"],
        [
          "web",
          "1/2",
          "CrashLoopBackOff",
          "3 (12m ago)",
          AGE,
          "10.1.2.3",
          "<none>",
          "node-b",
          "1/1",
        ],
      ],
      // A finished pod's row is marked Completed.
      conditions: [
        [
          {
            type: "Completed",
            status: "True",
            reason: "Succeeded",
            message: "The pod has completed successfully.",
          },
        ],
        undefined,
        undefined,
      ],
    });
  });

  it("prints Deployments, ReplicaSets, StatefulSets and DaemonSets with containers, images and selectors", async () => {
    const selector = {
      matchLabels: { app: "web" },
      matchExpressions: [{ key: "tier", operator: "In", values: ["b", "a"] }],
    };
    const labels = { app: "web", tier: "a" };
    await create(
      url,
      `${apps}/deployments`,
      { metadata: meta("web"), spec: { replicas: 3, selector, template: template(labels) } },
      { replicas: 3, readyReplicas: 2, updatedReplicas: 3, availableReplicas: 2 },
    );
    await expectTable(url, `${apps}/deployments`, {
      columns: [
        "Name",
        "Ready",
        "Up-to-date",
        "Available",
        "Age",
        "Containers (wide)",
        "Images (wide)",
        "Selector (wide)",
      ],
      rows: [["web", "2/3", 3, 2, AGE, "a,b", "nginx,redis", "app=web,tier in (a,b)"]],
    });
    await create(
      url,
      `${apps}/replicasets`,
      {
        metadata: meta("web-1"),
        spec: {
          replicas: 2,
          selector: { matchLabels: { app: "web" } },
          template: template(labels),
        },
      },
      { replicas: 2, readyReplicas: 1 },
    );
    await expectTable(url, `${apps}/replicasets`, {
      columns: [
        "Name",
        "Desired:integer",
        "Current:integer",
        "Ready:integer",
        "Age",
        "Containers (wide)",
        "Images (wide)",
        "Selector (wide)",
      ],
      rows: [["web-1", 2, 2, 1, AGE, "a,b", "nginx,redis", "app=web"]],
    });
    await create(
      url,
      `${apps}/statefulsets`,
      {
        metadata: meta("db"),
        spec: {
          replicas: 2,
          serviceName: "db",
          selector: { matchLabels: { app: "db" } },
          template: template({ app: "db" }),
        },
      },
      { replicas: 2, readyReplicas: 1 },
    );
    await expectTable(url, `${apps}/statefulsets`, {
      columns: ["Name", "Ready", "Age", "Containers (wide)", "Images (wide)"],
      rows: [["db", "1/2", AGE, "a,b", "nginx,redis"]],
    });
    await create(
      url,
      `${apps}/daemonsets`,
      {
        metadata: meta("agent"),
        spec: {
          selector: { matchExpressions: [{ key: "app", operator: "Exists" }] },
          template: template({ app: "agent" }, { nodeSelector: { zone: "a", disk: "ssd" } }),
        },
      },
      {
        desiredNumberScheduled: 3,
        currentNumberScheduled: 3,
        numberReady: 2,
        updatedNumberScheduled: 1,
        numberAvailable: 2,
        numberMisscheduled: 0,
      },
    );
    await expectTable(url, `${apps}/daemonsets`, {
      columns: [
        "Name",
        "Desired:integer",
        "Current:integer",
        "Ready:integer",
        "Up-to-date:integer",
        "Available:integer",
        "Node Selector",
        "Age",
        "Containers (wide)",
        "Images (wide)",
        "Selector (wide)",
      ],
      rows: [["agent", 3, 3, 2, 1, 2, "disk=ssd,zone=a", AGE, "a,b", "nginx,redis", "app"]],
    });
  });

  it("prints ReplicationControllers, PodTemplates and ControllerRevisions", async () => {
    await create(url, `${api}/replicationcontrollers`, {
      metadata: meta("rc"),
      spec: { replicas: 2, selector: { app: "rc" }, template: template({ app: "rc" }) },
    });
    await expectTable(url, `${api}/replicationcontrollers`, {
      columns: [
        "Name",
        "Desired:integer",
        "Current:integer",
        "Ready:integer",
        "Age",
        "Containers (wide)",
        "Images (wide)",
        "Selector (wide)",
      ],
      rows: [["rc", 2, 0, 0, AGE, "a,b", "nginx,redis", "app=rc"]],
    });
    await create(url, `${api}/podtemplates`, {
      metadata: meta("tmpl"),
      template: template({ app: "web", tier: "a" }),
    });
    await expectTable(url, `${api}/podtemplates`, {
      columns: ["Name", "Containers", "Images", "Pod Labels"],
      rows: [["tmpl", "a,b", "nginx,redis", "app=web,tier=a"]],
    });
    await create(url, `${apps}/controllerrevisions`, {
      metadata: {
        ...meta("db-1"),
        ownerReferences: [
          {
            apiVersion: "apps/v1",
            kind: "StatefulSet",
            name: "db",
            uid: "0b4b7a4e-8d1f-4a7e-9a43-6d2b0f3c1e21",
            controller: true,
          },
        ],
      },
      data: { spec: {} },
      revision: 3,
    });
    await expectTable(url, `${apps}/controllerrevisions`, {
      columns: ["Name", "Controller", "Revision", "Age"],
      rows: [["db-1", "statefulset.apps/db", 3, AGE]],
    });
  });

  it("prints a Job's status, completions and duration, and a CronJob's schedule", async () => {
    const jobSpec = (extra: Record<string, unknown>) => ({
      ...extra,
      template: template({}, { restartPolicy: "Never" }),
    });
    const once = await create(
      url,
      `${batch}/jobs`,
      { metadata: meta("once"), spec: jobSpec({ completions: 3, parallelism: 2 }) },
      { startTime: ago(11.5 * MINUTE), active: 1, succeeded: 1 },
    );
    const queue = await create(url, `${batch}/jobs`, {
      metadata: meta("queue"),
      spec: jobSpec({ parallelism: 2 }),
    });
    const uid = (job: { metadata: { uid: string } }) =>
      `batch.kubernetes.io/controller-uid=${job.metadata.uid}`;
    await expectTable(url, `${batch}/jobs`, {
      columns: [
        "Name",
        "Status",
        "Completions",
        "Duration",
        "Age",
        "Containers (wide)",
        "Images (wide)",
        "Selector (wide)",
      ],
      rows: [
        ["once", "Running", "1/3", "11m", AGE, "a,b", "nginx,redis", uid(once)],
        ["queue", "Running", "0/1 of 2", "", AGE, "a,b", "nginx,redis", uid(queue)],
      ],
    });
    await create(
      url,
      `${batch}/cronjobs`,
      {
        metadata: meta("tick"),
        spec: {
          schedule: "*/5 * * * *",
          timeZone: "Etc/UTC",
          suspend: true,
          jobTemplate: { spec: jobSpec({}) },
        },
      },
      { lastScheduleTime: ago(15.5 * MINUTE) },
    );
    await create(url, `${batch}/cronjobs`, {
      metadata: meta("tock"),
      spec: { schedule: "@hourly", jobTemplate: { spec: jobSpec({}) } },
    });
    await expectTable(url, `${batch}/cronjobs`, {
      columns: [
        "Name",
        "Schedule",
        "Timezone",
        "Suspend:boolean",
        "Active:integer",
        "Last Schedule",
        "Age",
        "Containers (wide)",
        "Images (wide)",
        "Selector (wide)",
      ],
      rows: [
        ["tick", "*/5 * * * *", "Etc/UTC", "True", 0, "15m", AGE, "a,b", "nginx,redis", "<none>"],
        ["tock", "@hourly", "<none>", "False", 0, "<none>", AGE, "a,b", "nginx,redis", "<none>"],
      ],
    });
  });

  it("prints HorizontalPodAutoscalers' targets and PodDisruptionBudgets' bounds", async () => {
    await create(url, `/apis/autoscaling/v2/namespaces/${NS}/horizontalpodautoscalers`, {
      metadata: meta("web"),
      spec: {
        scaleTargetRef: { apiVersion: "apps/v1", kind: "Deployment", name: "web" },
        minReplicas: 2,
        maxReplicas: 5,
        metrics: [
          {
            type: "Resource",
            resource: { name: "cpu", target: { type: "Utilization", averageUtilization: 80 } },
          },
          {
            type: "Pods",
            pods: {
              metric: { name: "packets" },
              target: { type: "AverageValue", averageValue: "1k" },
            },
          },
          {
            type: "External",
            external: {
              metric: { name: "queue" },
              target: { type: "AverageValue", averageValue: "30" },
            },
          },
        ],
      },
    });
    await expectTable(url, `/apis/autoscaling/v2/namespaces/${NS}/horizontalpodautoscalers`, {
      columns: ["Name", "Reference", "Targets", "MinPods", "MaxPods", "Replicas", "Age"],
      rows: [
        ["web", "Deployment/web", "cpu: <unknown>/80%, <unknown>/1k + 1 more...", "2", 5, 0, AGE],
      ],
    });
    await create(url, `/apis/policy/v1/namespaces/${NS}/poddisruptionbudgets`, {
      metadata: meta("web"),
      spec: { minAvailable: "50%", selector: { matchLabels: { app: "web" } } },
    });
    await expectTable(url, `/apis/policy/v1/namespaces/${NS}/poddisruptionbudgets`, {
      columns: ["Name", "Min Available", "Max Unavailable", "Allowed Disruptions:integer", "Age"],
      rows: [["web", "50%", "N/A", 0, AGE]],
    });
  });

  it("prints Services' cluster IPs, external IPs, node ports and selectors", async () => {
    await create(url, `${api}/services`, {
      metadata: meta("web"),
      spec: {
        type: "NodePort",
        selector: { app: "web" },
        externalIPs: ["192.0.2.10"],
        ports: [
          { name: "http", port: 80, nodePort: 30080 },
          { name: "dns", port: 53, protocol: "UDP", nodePort: 30053 },
        ],
      },
    });
    await create(
      url,
      `${api}/services`,
      {
        metadata: meta("lb"),
        spec: {
          type: "LoadBalancer",
          allocateLoadBalancerNodePorts: false,
          ports: [{ port: 443 }],
        },
      },
      { loadBalancer: { ingress: [{ hostname: "lb.example.com" }, { ip: "203.0.113.7" }] } },
    );
    await create(url, `${api}/services`, {
      metadata: meta("ext"),
      spec: { type: "ExternalName", externalName: "example.com" },
    });
    const ip = /^\d+\.\d+\.\d+\.\d+$/;
    await expectTable(url, `${api}/services`, {
      columns: ["Name", "Type", "Cluster-IP", "External-IP", "Port(s)", "Age", "Selector (wide)"],
      rows: [
        ["ext", "ExternalName", "<none>", "example.com", "<none>", AGE, "<none>"],
        ["lb", "LoadBalancer", ip, "203.0.113.7,lb.example.com", "443/TCP", AGE, "<none>"],
        ["web", "NodePort", ip, "192.0.2.10", "80:30080/TCP,53:30053/UDP", AGE, "app=web"],
      ],
    });
  });

  it("shows the wide columns in kubectl get -o wide", async () => {
    const deployments = await rig.kubectl("get", "deployments", "-n", NS, "-o", "wide");
    assert.match(
      deployments,
      /^NAME\s+READY\s+UP-TO-DATE\s+AVAILABLE\s+AGE\s+CONTAINERS\s+IMAGES\s+SELECTOR\n/,
    );
    assert.match(
      deployments,
      /\nweb\s+2\/3\s+3\s+2\s+\S+\s+a,b\s+nginx,redis\s+app=web,tier in \(a,b\)\n/,
    );
    const services = await rig.kubectl("get", "services", "-n", NS, "-o", "wide");
    assert.match(
      services,
      /^NAME\s+TYPE\s+CLUSTER-IP\s+EXTERNAL-IP\s+PORT\(S\)\s+AGE\s+SELECTOR\n/,
    );
    assert.match(
      services,
      /\nweb\s+NodePort\s+\S+\s+192\.0\.2\.10\s+80:30080\/TCP,53:30053\/UDP\s+\S+\s+app=web\n/,
    );
    const pods = await rig.kubectl("get", "pods", "web", "-n", NS, "-o", "wide");
    assert.match(
      pods,
      /^NAME\s+READY\s+STATUS\s+RESTARTS\s+AGE\s+IP\s+NODE\s+NOMINATED NODE\s+READINESS GATES\n/,
    );
    assert.match(
      pods,
      /\nweb\s+1\/2\s+CrashLoopBackOff\s+3 \(12m ago\)\s+\S+\s+10\.1\.2\.3\s+<none>\s+node-b\s+1\/1\n/,
    );
    const plain = await rig.kubectl("get", "pods", "web", "-n", NS);
    assert.match(
      plain,
      /^NAME\s+READY\s+STATUS\s+RESTARTS\s+AGE\n/,
      "no wide columns without -o wide",
    );
    const cronJobs = await rig.kubectl("get", "cronjobs", "tick", "-n", NS, "-o", "wide");
    assert.match(
      cronJobs,
      /^NAME\s+SCHEDULE\s+TIMEZONE\s+SUSPEND\s+ACTIVE\s+LAST SCHEDULE\s+AGE\s+CONTAINERS\s+IMAGES\s+SELECTOR\n/,
    );
    assert.match(
      cronJobs,
      /\ntick\s+\*\/5 \* \* \* \*\s+Etc\/UTC\s+True\s+0\s+15m\s+\S+\s+a,b\s+nginx,redis\s+<none>\n/,
    );
    const jobs = await rig.kubectl("get", "jobs", "once", "-n", NS, "-o", "wide");
    assert.match(
      jobs,
      /^NAME\s+STATUS\s+COMPLETIONS\s+DURATION\s+AGE\s+CONTAINERS\s+IMAGES\s+SELECTOR\n/,
    );
    assert.match(
      jobs,
      /\nonce\s+Running\s+1\/3\s+11m\s+\S+\s+a,b\s+nginx,redis\s+batch\.kubernetes\.io\/controller-uid=\S+\n/,
    );
  });

  it("answers one object as a Table with the same columns", async () => {
    const one = await call(url, "GET", `${apps}/deployments/web`, undefined, {
      accept: "application/json;as=Table;v=v1;g=meta.k8s.io",
    });
    assert.equal(one.body.rows.length, 1);
    assert.equal(one.body.columnDefinitions.length, 8);
    assert.deepEqual(one.body.rows[0].cells.slice(0, 4), ["web", "2/3", 3, 2]);
  });
});
