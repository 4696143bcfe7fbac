/** The two-lane seed's HealthMonitor: an application health check, probed periodically. */
import { defineResource, type ResourceOf } from "kontroller/resources";
import { Type } from "typebox";

export const HealthMonitor = defineResource({
  group: "example.com",
  version: "v1",
  kind: "HealthMonitor",
  plural: "healthmonitors",
  shortNames: ["hm"],
  spec: Type.Object({
    url: Type.String({ minLength: 1, description: "What to probe (HTTP GET; 2xx is healthy)." }),
    intervalSeconds: Type.Integer({ minimum: 1, default: 30 }),
    active: Type.Boolean({
      default: false,
      description: "Tied to an active rollout: checked in the fast lane.",
    }),
  }),
  status: Type.Object({
    healthy: Type.Optional(Type.Boolean()),
    statusCode: Type.Optional(Type.Integer()),
    message: Type.Optional(Type.String()),
    lastProbeTime: Type.Optional(Type.String({ format: "date-time" })),
    consecutiveFailures: Type.Optional(Type.Integer()),
  }),
  printerColumns: [
    { name: "URL", jsonPath: ".spec.url", type: "string" },
    { name: "Active", jsonPath: ".spec.active", type: "boolean" },
    { name: "Healthy", jsonPath: ".status.healthy", type: "boolean" },
    { name: "Last Probe", jsonPath: ".status.lastProbeTime", type: "date" },
  ],
});
export type HealthMonitor = ResourceOf<typeof HealthMonitor>;
