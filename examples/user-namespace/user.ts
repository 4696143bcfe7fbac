/**
 * The seed's Cloudflare example: a cluster-scoped User, one schema for the type, the CRD and
 * validation.
 */
import { defineResource, type ResourceOf } from "kontroller/resources";
import { Type } from "typebox";

/** A status condition, as Kubernetes writes them. */
export const Condition = Type.Object({
  type: Type.String(),
  status: Type.Union([Type.Literal("True"), Type.Literal("False"), Type.Literal("Unknown")]),
  reason: Type.String(),
  message: Type.String(),
  lastTransitionTime: Type.String({ format: "date-time" }),
  observedGeneration: Type.Optional(Type.Integer()),
});

export const User = defineResource({
  group: "example.com",
  version: "v1",
  kind: "User",
  plural: "users",
  scope: "Cluster",
  shortNames: ["usr"],
  spec: Type.Object({
    displayName: Type.String({
      minLength: 1,
      maxLength: 256,
      description: "How the user is called.",
    }),
  }),
  status: Type.Object({
    namespace: Type.Optional(Type.String()),
    observedGeneration: Type.Optional(Type.Integer()),
    conditions: Type.Optional(
      Type.Array(Condition, {
        "x-kubernetes-list-type": "map",
        "x-kubernetes-list-map-keys": ["type"],
      }),
    ),
  }),
  printerColumns: [
    { name: "Display Name", jsonPath: ".spec.displayName", type: "string" },
    { name: "Namespace", jsonPath: ".status.namespace", type: "string" },
    { name: "Ready", jsonPath: '.status.conditions[?(@.type=="Ready")].status', type: "string" },
  ],
});
export type User = ResourceOf<typeof User>;
