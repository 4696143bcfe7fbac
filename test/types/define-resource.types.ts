/**
 * Type-level tests for resource definitions, checked by `npm run typecheck`: every line marked
 * `@ts-expect-error` must fail to compile (or tsc reports the unused directive), every other
 * line must compile. No casts in user code.
 */
import { defineResource, type ResourceOf } from "kontroller/resources";
import { Type } from "typebox";

export const User = defineResource({
  group: "example.com",
  version: "v1",
  kind: "User",
  plural: "users",
  scope: "Cluster",
  spec: Type.Object({ displayName: Type.String(), age: Type.Optional(Type.Integer()) }),
  status: Type.Object({ namespace: Type.Optional(Type.String()) }),
  otherVersions: { v1beta1: { spec: Type.Object({ name: Type.String() }) } },
});
export type User = ResourceOf<typeof User>;

// The object type is inferred from the schemas.
const u: User = User.object({ metadata: { name: "ann" }, spec: { displayName: "Ann" } });
const name: string = u.spec.displayName;
const age: number | undefined = u.spec.age;
const ns: string | undefined = u.status?.namespace;
const kind: string = u.kind;

// @ts-expect-error a required spec field is missing
User.object({ metadata: { name: "x" }, spec: {} });
// @ts-expect-error a spec field of the wrong type
User.object({ metadata: { name: "x" }, spec: { displayName: 1 } });
// @ts-expect-error a field the schema does not have
User.object({ metadata: { name: "x" }, spec: { displayName: "x", nickname: "y" } });
const bad: User = {
  apiVersion: "example.com/v1",
  kind: "User",
  metadata: {},
  spec: { displayName: "x" },
  // @ts-expect-error status is not a string
  status: "ok",
};

// Other versions are typed from their own schemas.
const old = User.at("v1beta1").object({ metadata: { name: "x" }, spec: { name: "x" } });
const oldName: string = old.spec.name;
// @ts-expect-error v1beta1 has no displayName
User.at("v1beta1").object({ metadata: { name: "x" }, spec: { displayName: "x" } });
// @ts-expect-error there is no such version
User.at("v2");

// A definition without a status schema has no status type.
const Plain = defineResource({
  group: "example.com",
  version: "v1",
  kind: "Plain",
  plural: "plains",
  spec: Type.Object({ n: Type.Number() }),
});
type Plain = ResourceOf<typeof Plain>;
const p: Plain = Plain.object({ metadata: {}, spec: { n: 1 } });
// @ts-expect-error status has type never
const pStatus: Plain = { ...p, status: { anything: true } };

// `parse` types what it checked.
const input: unknown = JSON.parse("{}");
const checked: string = User.parse(input).spec.displayName;

export { age, bad, checked, kind, name, ns, oldName, pStatus };
