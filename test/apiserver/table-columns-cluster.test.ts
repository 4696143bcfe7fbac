import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { startTestServer, type TestServer } from "kontroller/testing";
import { call } from "./helpers.ts";
import { AGE, CREATED, create, expectTable, named } from "./table-rig.ts";

/*
 * The Table columns kube-apiserver prints for storage, RBAC, admission, flow control,
 * scheduling, certificates and dynamic resource allocation, with cells computed as its printers
 * compute them. The expectations are kube-apiserver 1.36's answers: the suite runs on both
 * backends (KONTROLLER_TEST_BACKEND=kube-apiserver).
 */

const NS = "tables-cluster";
const api = `/api/v1/namespaces/${NS}`;
const meta = (name: string) => ({ name, namespace: NS });
/** Rules that match nothing: a group nothing serves. */
const NOTHING = {
  operations: ["CREATE"],
  apiGroups: ["nothing.tables.invalid"],
  apiVersions: ["v1"],
  resources: ["nothings"],
};

describe("Table columns of storage, RBAC, admission and the cluster's kinds, as kube-apiserver prints them", () => {
  let s: TestServer;
  let url = "";
  before(async () => {
    s = await startTestServer({ controllers: false });
    url = s.url;
    await create(url, "/api/v1/namespaces", { metadata: { name: NS } });
  });
  after(() => s.close());

  it("prints volumes, claims, storage classes and CSI kinds", async () => {
    const storage = "/apis/storage.k8s.io/v1";
    await create(
      url,
      "/api/v1/persistentvolumes",
      {
        metadata: { name: "tables-pv" },
        spec: {
          capacity: { storage: "5Gi" },
          accessModes: ["ReadWriteMany", "ReadWriteOnce"],
          persistentVolumeReclaimPolicy: "Retain",
          claimRef: { namespace: NS, name: "data" },
          storageClassName: "tables",
          volumeMode: "Filesystem",
          hostPath: { path: "/tmp/tables" },
        },
      },
      { phase: "Bound" },
    );
    await expectTable(url, named("/api/v1/persistentvolumes", "tables-pv"), {
      columns: [
        "Name",
        "Capacity",
        "Access Modes",
        "Reclaim Policy",
        "Status",
        "Claim",
        "StorageClass",
        "VolumeAttributesClass",
        "Reason",
        "Age",
        "VolumeMode (wide)",
      ],
      rows: [
        [
          "tables-pv",
          "5Gi",
          "RWO,RWX",
          "Retain",
          "Bound",
          `${NS}/data`,
          "tables",
          "<unset>",
          "",
          AGE,
          "Filesystem",
        ],
      ],
    });
    const claim = {
      accessModes: ["ReadWriteOnce"],
      resources: { requests: { storage: "1Gi" } },
      storageClassName: "tables",
      volumeMode: "Block",
    };
    await create(
      url,
      `${api}/persistentvolumeclaims`,
      { metadata: meta("data"), spec: { ...claim, volumeName: "tables-pv" } },
      { phase: "Bound", capacity: { storage: "5Gi" }, accessModes: ["ReadWriteOnce"] },
    );
    await create(
      url,
      `${api}/persistentvolumeclaims`,
      { metadata: meta("waiting"), spec: claim },
      { phase: "Pending" },
    );
    await expectTable(url, `${api}/persistentvolumeclaims`, {
      columns: [
        "Name",
        "Status",
        "Volume",
        "Capacity",
        "Access Modes",
        "StorageClass",
        "VolumeAttributesClass",
        "Age",
        "VolumeMode (wide)",
      ],
      rows: [
        ["data", "Bound", "tables-pv", "5Gi", "RWO", "tables", "<unset>", AGE, "Block"],
        ["waiting", "Pending", "", "", "", "tables", "<unset>", AGE, "Block"],
      ],
    });
    await create(url, `${storage}/storageclasses`, {
      metadata: {
        name: "tables",
        annotations: { "storageclass.kubernetes.io/is-default-class": "true" },
      },
      provisioner: "example.com/disk",
      allowVolumeExpansion: true,
    });
    await expectTable(url, named(`${storage}/storageclasses`, "tables"), {
      columns: [
        "Name",
        "Provisioner",
        "ReclaimPolicy",
        "VolumeBindingMode",
        "AllowVolumeExpansion",
        "Age",
      ],
      rows: [["tables (default)", "example.com/disk", "Delete", "Immediate", true, AGE]],
    });
    await create(url, `${storage}/csidrivers`, {
      metadata: { name: "csi.tables.example.com" },
      spec: {
        attachRequired: false,
        tokenRequests: [{ audience: "a" }, { audience: "b" }],
        volumeLifecycleModes: ["Persistent", "Ephemeral"],
      },
    });
    await expectTable(url, named(`${storage}/csidrivers`, "csi.tables.example.com"), {
      columns: [
        "Name",
        "AttachRequired:boolean",
        "PodInfoOnMount:boolean",
        "StorageCapacity:boolean",
        "TokenRequests",
        "RequiresRepublish:boolean",
        "Modes",
        "Age",
      ],
      rows: [
        ["csi.tables.example.com", false, false, false, "a,b", false, "Persistent,Ephemeral", AGE],
      ],
    });
    await create(url, `${storage}/csinodes`, {
      metadata: { name: "tables-node" },
      spec: { drivers: [{ name: "csi.tables.example.com", nodeID: "n1" }] },
    });
    await expectTable(url, named(`${storage}/csinodes`, "tables-node"), {
      columns: ["Name", "Drivers:integer", "Age"],
      rows: [["tables-node", 1, AGE]],
    });
    await create(
      url,
      `${storage}/volumeattachments`,
      {
        metadata: { name: "tables-va" },
        spec: {
          attacher: "csi.tables.example.com",
          nodeName: "tables-node",
          source: { persistentVolumeName: "tables-pv" },
        },
      },
      { attached: true },
    );
    await expectTable(url, named(`${storage}/volumeattachments`, "tables-va"), {
      columns: ["Name", "Attacher@name", "PV", "Node", "Attached:boolean", "Age"],
      rows: [["tables-va", "csi.tables.example.com", "tables-pv", "tables-node", true, AGE]],
    });
    await create(url, `${storage}/volumeattributesclasses`, {
      metadata: { name: "tables" },
      driverName: "csi.tables.example.com",
      parameters: { tier: "gold" },
    });
    await expectTable(url, named(`${storage}/volumeattributesclasses`, "tables"), {
      columns: ["Name", "DriverName", "Age"],
      rows: [["tables", "csi.tables.example.com", AGE]],
    });
    await create(url, `${storage}/namespaces/${NS}/csistoragecapacities`, {
      metadata: meta("cap"),
      storageClassName: "tables",
    });
    await expectTable(url, `${storage}/namespaces/${NS}/csistoragecapacities`, {
      columns: ["Name", "Created At:date"],
      rows: [["cap", CREATED]],
    });
  });

  it("prints role bindings' roles and subjects; roles print the default table", async () => {
    const rbac = "/apis/rbac.authorization.k8s.io/v1";
    const subjects = [
      { kind: "User", apiGroup: "rbac.authorization.k8s.io", name: "alice" },
      { kind: "Group", apiGroup: "rbac.authorization.k8s.io", name: "devs" },
      { kind: "ServiceAccount", namespace: NS, name: "robot" },
      { kind: "User", apiGroup: "rbac.authorization.k8s.io", name: "bob" },
    ];
    const rules = [{ apiGroups: [""], resources: ["configmaps"], verbs: ["get"] }];
    await create(url, `${rbac}/namespaces/${NS}/roles`, { metadata: meta("reader"), rules });
    await expectTable(url, `${rbac}/namespaces/${NS}/roles`, {
      columns: ["Name", "Created At:date"],
      rows: [["reader", CREATED]],
    });
    await create(url, `${rbac}/namespaces/${NS}/rolebindings`, {
      metadata: meta("readers"),
      roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "Role", name: "reader" },
      subjects,
    });
    const columns = [
      "Name",
      "Role",
      "Age",
      "Users (wide)",
      "Groups (wide)",
      "ServiceAccounts (wide)",
    ];
    await expectTable(url, `${rbac}/namespaces/${NS}/rolebindings`, {
      columns,
      rows: [["readers", "Role/reader", AGE, "alice, bob", "devs", `${NS}/robot`]],
    });
    await create(url, `${rbac}/clusterrolebindings`, {
      metadata: { name: "tables-viewers" },
      roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "ClusterRole", name: "view" },
      subjects: subjects.slice(1, 2),
    });
    await expectTable(url, named(`${rbac}/clusterrolebindings`, "tables-viewers"), {
      columns,
      rows: [["tables-viewers", "ClusterRole/view", AGE, "", "devs", ""]],
    });
  });

  it("prints webhook configurations and admission policies with their bindings", async () => {
    const adm = "/apis/admissionregistration.k8s.io/v1";
    const webhook = (name: string) => ({
      name,
      clientConfig: { url: "https://tables.example.com/hook" },
      admissionReviewVersions: ["v1"],
      sideEffects: "None",
      failurePolicy: "Ignore",
      rules: [NOTHING],
    });
    await create(url, `${adm}/validatingwebhookconfigurations`, {
      metadata: { name: "tables" },
      webhooks: [webhook("a.tables.example.com"), webhook("b.tables.example.com")],
    });
    await expectTable(url, named(`${adm}/validatingwebhookconfigurations`, "tables"), {
      columns: ["Name", "Webhooks:integer", "Age"],
      rows: [["tables", 2, AGE]],
    });
    await create(url, `${adm}/mutatingwebhookconfigurations`, {
      metadata: { name: "tables" },
      webhooks: [webhook("a.tables.example.com")],
    });
    await expectTable(url, named(`${adm}/mutatingwebhookconfigurations`, "tables"), {
      columns: ["Name", "Webhooks:integer", "Age"],
      rows: [["tables", 1, AGE]],
    });
    await create(url, `${adm}/validatingadmissionpolicies`, {
      metadata: { name: "tables" },
      spec: {
        paramKind: { apiVersion: "v1", kind: "ConfigMap" },
        matchConstraints: { resourceRules: [NOTHING] },
        validations: [{ expression: "true" }, { expression: "1 == 1" }],
      },
    });
    await expectTable(url, named(`${adm}/validatingadmissionpolicies`, "tables"), {
      columns: ["Name", "Validations:integer", "ParamKind", "Age"],
      rows: [["tables", 2, "v1/ConfigMap", AGE]],
    });
    const binding = (name: string, paramRef: Record<string, unknown>) => ({
      metadata: { name },
      spec: { policyName: "tables", validationActions: ["Deny"], paramRef },
    });
    await create(
      url,
      `${adm}/validatingadmissionpolicybindings`,
      binding("tables-named", { name: "p", namespace: NS, parameterNotFoundAction: "Deny" }),
    );
    await create(
      url,
      `${adm}/validatingadmissionpolicybindings`,
      binding("tables-selected", {
        selector: { matchLabels: { a: "b" } },
        parameterNotFoundAction: "Allow",
      }),
    );
    const bindings = `${adm}/validatingadmissionpolicybindings`;
    for (const [name, param] of [
      ["tables-named", `${NS}/p`],
      [
        "tables-selected",
        "&LabelSelector{MatchLabels:map[string]string{a: b,},MatchExpressions:[]LabelSelectorRequirement{},}",
      ],
    ]) {
      await expectTable(url, named(bindings, name!), {
        columns: ["Name", "PolicyName", "ParamRef", "Age"],
        rows: [[name, "tables", param, AGE]],
      });
    }
  });

  it("prints priority classes, runtime classes, leases, CSRs, flow control and DRA kinds", async () => {
    await create(url, "/apis/scheduling.k8s.io/v1/priorityclasses", {
      metadata: { name: "tables-high" },
      value: 1000,
      preemptionPolicy: "Never",
    });
    await expectTable(url, named("/apis/scheduling.k8s.io/v1/priorityclasses", "tables-high"), {
      columns: ["Name", "Value:integer", "Global-Default:boolean", "Age", "PreemptionPolicy"],
      rows: [["tables-high", 1000, false, AGE, "Never"]],
    });
    await create(url, "/apis/node.k8s.io/v1/runtimeclasses", {
      metadata: { name: "tables" },
      handler: "runsc",
    });
    await expectTable(url, named("/apis/node.k8s.io/v1/runtimeclasses", "tables"), {
      columns: ["Name", "Handler", "Age"],
      rows: [["tables", "runsc", AGE]],
    });
    await create(url, `/apis/coordination.k8s.io/v1/namespaces/${NS}/leases`, {
      metadata: meta("leader"),
      spec: { holderIdentity: "me", leaseDurationSeconds: 15 },
    });
    await expectTable(url, `/apis/coordination.k8s.io/v1/namespaces/${NS}/leases`, {
      columns: ["Name", "Holder", "Age"],
      rows: [["leader", "me", AGE]],
    });
    const csr = await create(url, "/apis/certificates.k8s.io/v1/certificatesigningrequests", {
      metadata: { name: "tables" },
      spec: {
        request: CSR,
        signerName: "example.com/signer",
        usages: ["digital signature"],
        expirationSeconds: 3600,
      },
    });
    await expectTable(
      url,
      named("/apis/certificates.k8s.io/v1/certificatesigningrequests", "tables"),
      {
        columns: ["Name", "Age", "SignerName", "Requestor", "RequestedDuration", "Condition"],
        rows: [["tables", AGE, "example.com/signer", csr.spec.username ?? "", "60m", "Pending"]],
      },
    );
    const flow = "/apis/flowcontrol.apiserver.k8s.io/v1";
    await create(url, `${flow}/prioritylevelconfigurations`, {
      metadata: { name: "tables" },
      spec: {
        type: "Limited",
        limited: {
          nominalConcurrencyShares: 5,
          limitResponse: {
            type: "Queue",
            queuing: { queues: 16, handSize: 4, queueLengthLimit: 20 },
          },
        },
      },
    });
    await expectTable(url, named(`${flow}/prioritylevelconfigurations`, "tables"), {
      columns: [
        "Name",
        "Type",
        "NominalConcurrencyShares",
        "Queues",
        "HandSize",
        "QueueLengthLimit",
        "Age",
      ],
      rows: [["tables", "Limited", 5, 16, 4, 20, AGE]],
    });
    const flowSchema = (name: string, matchingPrecedence: number) => ({
      metadata: { name, labels: { tables: "order" } },
      spec: {
        priorityLevelConfiguration: { name: "tables" },
        matchingPrecedence,
        distinguisherMethod: { type: "ByUser" },
        rules: [
          {
            subjects: [{ kind: "User", user: { name: "nobody.tables.invalid" } }],
            resourceRules: [
              {
                verbs: ["get"],
                apiGroups: NOTHING.apiGroups,
                resources: NOTHING.resources,
                namespaces: ["*"],
              },
            ],
          },
        ],
      },
    });
    await create(url, `${flow}/flowschemas`, flowSchema("tables-a", 9000));
    await create(url, `${flow}/flowschemas`, flowSchema("tables-b", 8000));
    // Listed by matching precedence, not by name. MissingPL is `?` until kube-apiserver's
    // flow-control controller sets the Dangling condition (False: the level exists).
    await expectTable(url, `${flow}/flowschemas?labelSelector=tables%3Dorder`, {
      columns: [
        "Name",
        "PriorityLevel",
        "MatchingPrecedence",
        "DistinguisherMethod",
        "Age",
        "MissingPL",
      ],
      rows: [
        ["tables-b", "tables", 8000, "ByUser", AGE, /^(\?|False)$/],
        ["tables-a", "tables", 9000, "ByUser", AGE, /^(\?|False)$/],
      ],
    });
    const dra = "/apis/resource.k8s.io/v1";
    await create(url, `${dra}/deviceclasses`, { metadata: { name: "tables" }, spec: {} });
    await expectTable(url, named(`${dra}/deviceclasses`, "tables"), {
      columns: ["Name", "Age"],
      rows: [["tables", AGE]],
    });
    await create(url, `${dra}/namespaces/${NS}/resourceclaims`, {
      metadata: meta("gpu"),
      spec: { devices: { requests: [{ name: "gpu", exactly: { deviceClassName: "tables" } }] } },
    });
    await expectTable(url, `${dra}/namespaces/${NS}/resourceclaims`, {
      columns: ["Name", "State", "Age"],
      rows: [["gpu", "pending", AGE]],
    });
    await create(url, `${dra}/resourceslices`, {
      metadata: { name: "tables-slice" },
      spec: {
        driver: "dra.tables.example.com",
        nodeName: "tables-node",
        pool: { name: "pool-a", generation: 1, resourceSliceCount: 1 },
      },
    });
    await expectTable(url, named(`${dra}/resourceslices`, "tables-slice"), {
      columns: ["Name", "Node", "Driver", "Pool", "Age"],
      rows: [["tables-slice", "tables-node", "dra.tables.example.com", "pool-a", AGE]],
    });
  });

  it("prints a CustomResourceDefinition in the default table", async () => {
    const crds = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions";
    const t = await call(url, "GET", `${crds}?limit=1`, undefined, {
      accept: "application/json;as=Table;v=v1;g=meta.k8s.io",
    });
    assert.equal(t.status, 200);
    assert.deepEqual(
      t.body.columnDefinitions.map((c: { name: string }) => c.name),
      ["Name", "Created At"],
    );
  });
});

/** A certificate request (PEM, base64) kube accepts. */
const CSR =
  "LS0tLS1CRUdJTiBDRVJUSUZJQ0FURSBSRVFVRVNULS0tLS0KTUlITE1ITUNBUUF3RVRFUE1BMEdBMVVFQXd3R1kyOXRjR0YwTUZrd0V3WUhLb1pJemowQ0FRWUlLb1pJemowRApBUWNEUWdBRVJma01uUm1NWDJqWWhVWHFwa3JHSWUrdyt2QUdWLzVvMkN5NzNkOCtSb2w2NW9ic3lJSmUvajZGCjJ5ZXptQ2h4SWwyM0drRnNaUFRlY05WUkkzbmYrNkFBTUFvR0NDcUdTTTQ5QkFNQ0EwZ0FNRVVDSUExTjBFdzMKZ1ZiY0o3RDZ5WUw1UFdtWWZxckhyN0VUenc2R0p3ZEtJMlJ3QWlFQTVGd0c5aFVubTZRRDhtSE5ZMThCeVd1MQpaL2tqL1lRZ3hUdTFlZitNVmNBPQotLS0tLUVORCBDRVJUSUZJQ0FURSBSRVFVRVNULS0tLS0K";
