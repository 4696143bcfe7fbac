import { after, before, describe, it } from "node:test";
import { startTestServer, type TestServer } from "kontroller/testing";
import { AGE, ago, CREATED, create, expectTable, MINUTE, named } from "./table-rig.ts";

/*
 * The Table columns kube-apiserver prints for the core kinds besides pods and Services (config
 * maps, secrets, service accounts, namespaces, quotas, limit ranges, nodes, events of both APIs)
 * and for the networking kinds, with cells computed as its printers compute them. The
 * expectations are kube-apiserver 1.36's answers: the suite runs on both backends
 * (KONTROLLER_TEST_BACKEND=kube-apiserver).
 */

const NS = "tables-core";
const api = `/api/v1/namespaces/${NS}`;
const meta = (name: string) => ({ name, namespace: NS });

describe("Table columns of the core and networking kinds, as kube-apiserver prints them", () => {
  let s: TestServer;
  let url = "";
  before(async () => {
    s = await startTestServer({ controllers: false });
    url = s.url;
    await create(url, "/api/v1/namespaces", { metadata: { name: NS } });
  });
  after(() => s.close());

  it("prints config maps, secrets, service accounts, namespaces, quotas and limit ranges", async () => {
    await create(url, `${api}/configmaps`, {
      metadata: meta("conf"),
      data: { a: "1", b: "2" },
      binaryData: { c: "AA==" },
    });
    await expectTable(url, named(`${api}/configmaps`, "conf"), {
      columns: ["Name", "Data", "Age"],
      rows: [["conf", 3, AGE]],
    });
    await create(url, `${api}/secrets`, {
      metadata: meta("token"),
      data: { a: "AA==", b: "AA==" },
    });
    await expectTable(url, named(`${api}/secrets`, "token"), {
      columns: ["Name", "Type", "Data", "Age"],
      rows: [["token", "Opaque", 2, AGE]],
    });
    await create(url, `${api}/serviceaccounts`, { metadata: meta("robot") });
    await expectTable(url, named(`${api}/serviceaccounts`, "robot"), {
      columns: ["Name", "Age"],
      rows: [["robot", AGE]],
    });
    await expectTable(url, named("/api/v1/namespaces", NS), {
      columns: ["Name", "Status", "Age"],
      rows: [[NS, "Active", AGE]],
    });
    const hard = { pods: "10", "requests.cpu": "1", "limits.memory": "1Gi" };
    await create(
      url,
      `${api}/resourcequotas`,
      { metadata: meta("quota"), spec: { hard } },
      { hard, used: { pods: "2", "requests.cpu": "500m", "limits.memory": "0" } },
    );
    await expectTable(url, `${api}/resourcequotas`, {
      columns: ["Name", "Request", "Limit", "Age"],
      rows: [["quota", "pods: 2/10, requests.cpu: 500m/1", "limits.memory: 0/1Gi", AGE]],
    });
    await create(url, `${api}/limitranges`, {
      metadata: meta("limits"),
      spec: { limits: [{ type: "Container", default: { cpu: "100m" } }] },
    });
    await expectTable(url, `${api}/limitranges`, {
      columns: ["Name", "Created At:date"],
      rows: [["limits", CREATED]],
    });
  });

  it("prints a node's status, roles and wide system info", async () => {
    await create(url, "/api/v1/nodes", {
      metadata: {
        name: "tables-node",
        labels: { "node-role.kubernetes.io/control-plane": "", "kubernetes.io/role": "worker" },
      },
      spec: { unschedulable: true },
      status: {
        conditions: [{ type: "Ready", status: "True" }],
        addresses: [
          { type: "InternalIP", address: "10.0.0.5" },
          { type: "ExternalIP", address: "203.0.113.5" },
        ],
        nodeInfo: {
          kubeletVersion: "v1.36.2",
          osImage: "Debian GNU/Linux 12",
          kernelVersion: "6.1.0",
          architecture: "amd64",
          containerRuntimeVersion: "containerd://2.0.0",
        },
      },
    });
    await expectTable(url, named("/api/v1/nodes", "tables-node"), {
      columns: [
        "Name",
        "Status",
        "Roles",
        "Age",
        "Version",
        "Internal-IP (wide)",
        "External-IP (wide)",
        "OS-Image (wide)",
        "Kernel-Version (wide)",
        "Container-Runtime (wide)",
      ],
      rows: [
        [
          "tables-node",
          "Ready,SchedulingDisabled",
          "control-plane,worker",
          AGE,
          "v1.36.2",
          "10.0.0.5",
          "203.0.113.5",
          "Debian GNU/Linux 12",
          "6.1.0 (amd64)",
          "containerd://2.0.0",
        ],
      ],
    });
  });

  it("prints events of both APIs, their ages and counts", async () => {
    await create(url, `${api}/events`, {
      metadata: meta("web.1"),
      involvedObject: { kind: "Pod", name: "web", namespace: NS, fieldPath: "spec.containers{a}" },
      reason: "BackOff",
      message: "  back-off restarting  ",
      type: "Warning",
      source: { component: "kubelet", host: "node-a" },
      firstTimestamp: ago(20.5 * MINUTE),
      lastTimestamp: ago(15.5 * MINUTE),
      count: 4,
    });
    await create(url, `/apis/events.k8s.io/v1/namespaces/${NS}/events`, {
      metadata: meta("web.2"),
      eventTime: ago(30.5 * MINUTE).replace("Z", ".000000Z"),
      series: { count: 2, lastObservedTime: ago(12.5 * MINUTE).replace("Z", ".000000Z") },
      reportingController: "example.com/ctrl",
      reportingInstance: "ctrl-1",
      action: "Check",
      reason: "Checked",
      type: "Normal",
      note: "checked",
      regarding: { kind: "Pod", name: "web", namespace: NS },
    });
    const columns = [
      "Last Seen",
      "Type",
      "Reason",
      "Object",
      "Subobject (wide)",
      "Source (wide)",
      "Message",
      "First Seen (wide)",
      "Count (wide)",
      "Name (wide)",
    ];
    const rows = [
      [
        "15m",
        "Warning",
        "BackOff",
        "pod/web",
        "spec.containers{a}",
        "kubelet, node-a",
        "back-off restarting",
        "20m",
        4,
        "web.1",
      ],
      [
        "12m",
        "Normal",
        "Checked",
        "pod/web",
        "",
        "example.com/ctrl, ctrl-1",
        "checked",
        "30m",
        2,
        "web.2",
      ],
    ];
    await expectTable(url, `${api}/events`, { columns, rows });
    await expectTable(url, `/apis/events.k8s.io/v1/namespaces/${NS}/events`, { columns, rows });
  });

  it("prints Ingresses, IngressClasses, NetworkPolicies, Endpoints, EndpointSlices, ServiceCIDRs and IPAddresses", async () => {
    const net = `/apis/networking.k8s.io/v1`;
    await create(
      url,
      `${net}/namespaces/${NS}/ingresses`,
      {
        metadata: meta("web"),
        spec: {
          ingressClassName: "tables",
          tls: [{ hosts: ["a.example.com"], secretName: "tls" }],
          rules: ["a", "", "b", "c", "d"].map((h) =>
            h === "" ? {} : { host: `${h}.example.com` },
          ),
        },
      },
      { loadBalancer: { ingress: [{ ip: "198.51.100.1" }] } },
    );
    await expectTable(url, `${net}/namespaces/${NS}/ingresses`, {
      columns: ["Name", "Class", "Hosts", "Address", "Ports", "Age"],
      rows: [
        [
          "web",
          "tables",
          "a.example.com,b.example.com,c.example.com + 2 more...",
          "198.51.100.1",
          "80, 443",
          AGE,
        ],
      ],
    });
    await create(url, `${net}/ingressclasses`, {
      metadata: {
        name: "tables",
        annotations: { "ingressclass.kubernetes.io/is-default-class": "true" },
      },
      spec: {
        controller: "example.com/ingress",
        parameters: { apiGroup: "k8s.example.com", kind: "Params", name: "p" },
      },
    });
    await expectTable(url, named(`${net}/ingressclasses`, "tables"), {
      columns: ["Name", "Controller", "Parameters", "Age"],
      rows: [["tables (default)", "example.com/ingress", "Params.k8s.example.com/p", AGE]],
    });
    await create(url, `${net}/namespaces/${NS}/networkpolicies`, {
      metadata: meta("db"),
      spec: { podSelector: { matchLabels: { role: "db" } }, policyTypes: ["Ingress"] },
    });
    await expectTable(url, `${net}/namespaces/${NS}/networkpolicies`, {
      columns: ["Name", "Pod-Selector", "Age"],
      rows: [["db", "role=db", AGE]],
    });
    await create(url, `${api}/endpoints`, {
      metadata: meta("web"),
      subsets: [
        {
          addresses: [{ ip: "10.0.0.1" }, { ip: "10.0.0.2" }],
          ports: [
            { name: "http", port: 80 },
            { name: "https", port: 443 },
          ],
        },
      ],
    });
    await expectTable(url, `${api}/endpoints`, {
      columns: ["Name", "Endpoints", "Age"],
      rows: [["web", "10.0.0.1:80,10.0.0.2:80,10.0.0.1:443 + 1 more...", AGE]],
    });
    await create(url, `/apis/discovery.k8s.io/v1/namespaces/${NS}/endpointslices`, {
      metadata: meta("web-abc"),
      addressType: "IPv4",
      endpoints: [{ addresses: ["10.0.0.1"] }, { addresses: ["10.0.0.2"] }],
      ports: [80, 53, 81, 82].map((port) => ({ name: `p${port}`, port })),
    });
    await expectTable(url, `/apis/discovery.k8s.io/v1/namespaces/${NS}/endpointslices`, {
      columns: ["Name", "AddressType", "Ports", "Endpoints", "Age"],
      rows: [["web-abc", "IPv4", "80,53,81 + 1 more...", "10.0.0.1,10.0.0.2", AGE]],
    });
    await create(url, `${net}/servicecidrs`, {
      metadata: { name: "tables" },
      spec: { cidrs: ["192.168.100.0/24"] },
    });
    await expectTable(url, named(`${net}/servicecidrs`, "tables"), {
      columns: ["Name", "CIDRs", "Age"],
      rows: [["tables", "192.168.100.0/24", AGE]],
    });
    await create(url, `${net}/ipaddresses`, {
      metadata: { name: "192.168.100.10" },
      spec: { parentRef: { group: "", resource: "services", namespace: NS, name: "web" } },
    });
    // kube prints an age in each row without declaring its column.
    await expectTable(url, named(`${net}/ipaddresses`, "192.168.100.10"), {
      columns: ["Name", "ParentRef"],
      rows: [["192.168.100.10", "services/tables-core/web", AGE]],
    });
  });
});

/** A certificate request (PEM, base64) kube accepts. */
const _CSR =
  "LS0tLS1CRUdJTiBDRVJUSUZJQ0FURSBSRVFVRVNULS0tLS0KTUlITE1ITUNBUUF3RVRFUE1BMEdBMVVFQXd3R1kyOXRjR0YwTUZrd0V3WUhLb1pJemowQ0FRWUlLb1pJemowRApBUWNEUWdBRVJma01uUm1NWDJqWWhVWHFwa3JHSWUrdyt2QUdWLzVvMkN5NzNkOCtSb2w2NW9ic3lJSmUvajZGCjJ5ZXptQ2h4SWwyM0drRnNaUFRlY05WUkkzbmYrNkFBTUFvR0NDcUdTTTQ5QkFNQ0EwZ0FNRVVDSUExTjBFdzMKZ1ZiY0o3RDZ5WUw1UFdtWWZxckhyN0VUenc2R0p3ZEtJMlJ3QWlFQTVGd0c5aFVubTZRRDhtSE5ZMThCeVd1MQpaL2tqL1lRZ3hUdTFlZitNVmNBPQotLS0tLUVORCBDRVJUSUZJQ0FURSBSRVFVRVNULS0tLS0K";
