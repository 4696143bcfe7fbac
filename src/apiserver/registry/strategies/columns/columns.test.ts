import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { KubeObject } from "../../../../core/index.ts";
import type { TableColumn } from "../../strategy.ts";
import { JOB_COLUMNS } from "./batch.ts";
import { API_SERVICE_COLUMNS, CSR_COLUMNS } from "./cluster.ts";
import { formatLabelSelector, humanDuration, selectorString } from "./common.ts";
import { RESOURCE_CLAIM_COLUMNS } from "./dra.ts";
import { EVENT_COLUMNS } from "./events.ts";
import { ENDPOINTS_COLUMNS, INGRESS_CLASS_COLUMNS, SERVICE_COLUMNS } from "./networking.ts";
import { podSummary } from "./pods.ts";
import { HPA_COLUMNS } from "./scaling.ts";
import { CONTROLLER_REVISION_COLUMNS, DEPLOYMENT_COLUMNS } from "./workloads.ts";

/*
 * The cells the black-box suites do not reach (they run on both backends, where kube's
 * validation and controllers limit what a test can store), table-tested against kube's printers.
 */

const NOW = Date.parse("2026-01-01T12:00:00Z");
const at = (minutesAgo: number) => new Date(NOW - minutesAgo * 60_000).toISOString();

/** The cell of the column named `name`, at NOW. */
function cell(columns: readonly TableColumn[], name: string, object: unknown): unknown {
  const column = columns.find((c) => c.name === name);
  assert.ok(column !== undefined, `a ${name} column`);
  return column.cell(object as KubeObject, NOW);
}

describe("Table cells as kube's printers compute them", () => {
  it("writes durations as kube's HumanDuration, tolerating a second of clock skew", () => {
    assert.deepEqual(
      [-2500, -1500, 0, 119_000, 125_000, 600_000, 3 * 3600_000 + 60_000, 9 * 86400_000].map(
        humanDuration,
      ),
      ["<invalid>", "0s", "0s", "119s", "2m5s", "10m", "3h1m", "9d"],
    );
  });

  it("writes label selectors with their requirements sorted by key", () => {
    const selector = {
      matchLabels: { b: "2" },
      matchExpressions: [
        { key: "c", operator: "NotIn", values: ["y", "x"] },
        { key: "a", operator: "DoesNotExist" },
        { key: "d", operator: "Exists" },
      ],
    };
    assert.equal(selectorString(selector), "!a,b=2,c notin (x,y),d");
    assert.equal(formatLabelSelector({}), "<none>");
    assert.equal(formatLabelSelector(undefined), "<none>");
    const bad = { matchExpressions: [{ key: "a", operator: "Near" }] };
    assert.equal(formatLabelSelector(bad), "<error>");
    assert.equal(cell(DEPLOYMENT_COLUMNS, "Selector", { spec: { selector: bad } }), "<invalid>");
  });

  it("sums a pod up as kube does, init containers and sidecars included", () => {
    const spec = { containers: [{ name: "a" }] };
    const summary = (pod: Record<string, unknown>) => {
      const s = podSummary({ spec, ...pod } as KubeObject, NOW);
      return `${s.ready} ${s.status} ${s.restarts}`;
    };
    const running = { name: "a", ready: true, state: { running: {} } };
    const done = {
      name: "a",
      ready: false,
      state: { terminated: { exitCode: 0, reason: "Completed" } },
    };
    assert.equal(
      summary({
        metadata: { deletionTimestamp: at(1) },
        status: { phase: "Running", containerStatuses: [running] },
      }),
      "1/1 Terminating 0",
    );
    assert.equal(
      summary({
        metadata: { deletionTimestamp: at(1) },
        status: { phase: "Running", reason: "NodeLost" },
      }),
      "0/1 Unknown 0",
    );
    assert.equal(
      summary({
        status: {
          phase: "Pending",
          conditions: [{ type: "PodScheduled", status: "False", reason: "SchedulingGated" }],
        },
      }),
      "0/1 SchedulingGated 0",
    );
    const init = (state: Record<string, unknown>, restartCount = 0) => ({
      spec: { initContainers: [{ name: "i" }, { name: "j" }], ...spec },
      status: { phase: "Pending", initContainerStatuses: [{ name: "i", restartCount, state }] },
    });
    assert.equal(summary(init({ terminated: { exitCode: 1 } }, 2)), "0/1 Init:ExitCode:1 2");
    assert.equal(summary(init({ terminated: { exitCode: 1, signal: 9 } })), "0/1 Init:Signal:9 0");
    assert.equal(
      summary(init({ waiting: { reason: "CrashLoopBackOff" } })),
      "0/1 Init:CrashLoopBackOff 0",
    );
    const sidecar = {
      spec: { initContainers: [{ name: "s", restartPolicy: "Always" }], ...spec },
      status: {
        phase: "Running",
        initContainerStatuses: [
          {
            name: "s",
            started: true,
            ready: true,
            restartCount: 1,
            state: { running: {} },
            lastState: { terminated: { exitCode: 1, finishedAt: at(30) } },
          },
        ],
        containerStatuses: [running],
      },
    };
    assert.equal(summary(sidecar), "2/2 Running 1 (30m ago)");
    const completed = (ready: string) => ({
      spec: { containers: [{ name: "a" }, { name: "b" }] },
      status: {
        phase: "Running",
        conditions: [{ type: "Ready", status: ready }],
        containerStatuses: [running, { ...done, name: "b" }],
      },
    });
    assert.equal(summary(completed("True")), "1/2 Running 0");
    assert.equal(summary(completed("False")), "1/2 NotReady 0");
    // The first container completed, the second failed: the pod prints the failure.
    const failed = { ...done, name: "b", state: { terminated: { exitCode: 2, reason: "Error" } } };
    assert.equal(
      summary({
        spec: { containers: [{ name: "a" }, { name: "b" }] },
        status: { phase: "Running", containerStatuses: [done, failed] },
      }),
      "0/2 Error 0",
    );
  });

  it("prints a Job's state in kube's order of precedence", () => {
    const job = (conditions: string[], deleting = false) => ({
      metadata: deleting ? { deletionTimestamp: at(1) } : {},
      status: { conditions: conditions.map((type) => ({ type, status: "True" })) },
    });
    assert.equal(cell(JOB_COLUMNS, "Status", job(["Suspended"], true)), "Terminating");
    assert.equal(cell(JOB_COLUMNS, "Status", job(["FailureTarget", "Failed"], true)), "Failed");
    assert.equal(cell(JOB_COLUMNS, "Status", job(["SuccessCriteriaMet"])), "SuccessCriteriaMet");
    const finished = { status: { startTime: at(30), completionTime: at(28) } };
    assert.equal(cell(JOB_COLUMNS, "Duration", finished), "2m");
  });

  it("prints an HPA's metrics of every source type", () => {
    const hpa = {
      spec: {
        metrics: [
          {
            type: "Object",
            object: { target: { type: "Value", value: "10" } },
          },
          {
            type: "ContainerResource",
            containerResource: { name: "memory", target: { averageValue: "1Gi" } },
          },
        ],
      },
      status: {
        currentMetrics: [
          { type: "Object", object: { current: { value: "4" } } },
          { type: "ContainerResource", containerResource: { current: { averageValue: "512Mi" } } },
        ],
      },
    };
    assert.equal(cell(HPA_COLUMNS, "Targets", hpa), "4/10, memory: 512Mi/1Gi");
    const unknown = { spec: { metrics: [{ type: "Sideways" }] } };
    assert.equal(cell(HPA_COLUMNS, "Targets", unknown), "<unknown type>");
    assert.equal(cell(HPA_COLUMNS, "Targets", { spec: {} }), "<none>");
    assert.equal(cell(HPA_COLUMNS, "MinPods", { spec: {} }), "<unset>");
  });

  it("prints events with only an event time, and objects without a name", () => {
    const event = {
      eventTime: at(45),
      involvedObject: { kind: "Node" },
      reportingComponent: "kubelet",
    };
    assert.equal(cell(EVENT_COLUMNS, "Last Seen", event), "45m");
    assert.equal(cell(EVENT_COLUMNS, "First Seen", event), "45m");
    assert.equal(cell(EVENT_COLUMNS, "Object", event), "node");
    assert.equal(cell(EVENT_COLUMNS, "Source", event), "kubelet");
    assert.equal(cell(EVENT_COLUMNS, "Count", event), 1);
  });

  it("prints endpoints and services in their other shapes", () => {
    const endpoints = (subsets: unknown) => cell(ENDPOINTS_COLUMNS, "Endpoints", { subsets });
    assert.equal(endpoints([]), "<none>");
    assert.equal(endpoints([{ addresses: [{ ip: "10.0.0.1" }] }]), "10.0.0.1");
    assert.equal(
      endpoints([{ addresses: [{ ip: "fd00::1" }], ports: [{ port: 80 }] }]),
      "[fd00::1]:80",
    );
    const lb = (externalIPs?: string[]) => ({ spec: { type: "LoadBalancer", externalIPs } });
    assert.equal(cell(SERVICE_COLUMNS, "External-IP", lb()), "<pending>");
    assert.equal(cell(SERVICE_COLUMNS, "External-IP", lb(["192.0.2.1"])), "192.0.2.1");
    assert.equal(cell(SERVICE_COLUMNS, "External-IP", { spec: { type: "Other" } }), "<unknown>");
  });

  it("prints owners, parameters, availability, certificate and claim states", () => {
    const owned = {
      metadata: {
        ownerReferences: [
          { apiVersion: "v1", kind: "ReplicationController", name: "rc", controller: true },
        ],
      },
    };
    assert.equal(
      cell(CONTROLLER_REVISION_COLUMNS, "Controller", owned),
      "replicationcontroller/rc",
    );
    assert.equal(cell(CONTROLLER_REVISION_COLUMNS, "Controller", {}), "<none>");
    const params = { spec: { parameters: { kind: "ConfigMap", name: "p" } } };
    assert.equal(cell(INGRESS_CLASS_COLUMNS, "Parameters", params), "ConfigMap/p");
    const available = (condition?: Record<string, string>) =>
      cell(API_SERVICE_COLUMNS, "Available", {
        status: {
          conditions: condition === undefined ? [] : [{ type: "Available", ...condition }],
        },
      });
    assert.equal(available(), "Unknown");
    assert.equal(available({ status: "True", reason: "Local" }), "True");
    assert.equal(
      available({ status: "False", reason: "ServiceNotFound" }),
      "False (ServiceNotFound)",
    );
    const csr = (types: string[], certificate?: string) => ({
      status: { conditions: types.map((type) => ({ type, status: "True" })), certificate },
    });
    assert.equal(cell(CSR_COLUMNS, "Condition", csr(["Approved"], "Y2VydA==")), "Approved,Issued");
    assert.equal(
      cell(CSR_COLUMNS, "Condition", csr(["Approved", "Denied", "Failed"])),
      "Denied,Failed",
    );
    const claim = (status: Record<string, unknown>, deleting = false) =>
      cell(RESOURCE_CLAIM_COLUMNS, "State", {
        metadata: deleting ? { deletionTimestamp: at(1) } : {},
        status,
      });
    assert.equal(claim({ allocation: {}, reservedFor: [{ name: "p" }] }), "allocated,reserved");
    assert.equal(claim({}, true), "deleted");
    assert.equal(claim({ allocation: {} }, true), "deleted,allocated");
  });
});
